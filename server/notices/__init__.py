"""Notices under the ordinance: kinds, drafting, the workflow and its clocks, appeals,
service of notice, certified mailing and the election calendar deadlines count on.

One module per subject: ``workflow`` (the transition table, :func:`apply_event`),
``clock`` (the city's day, the printed deadline and the one in force), ``tick`` (the daily
job), ``citations`` (the cited violations' fate), ``drafts`` (open violations → one notice
per parcel and kind), ``record`` (reading notices), ``appeals`` (§ 315-21H),
``service_of_notice`` (return receipts and substitute service), ``due_process``,
``mailing`` (a batch: serials, letters and the mailing book), ``compliance`` and
``reinspections``. Every sentence an owner reads is in the pure package ``letters/``;
``kinds``, ``calendar`` and ``article_numbers`` are pure too.
"""


def init_app(app, api) -> None:
    from server.notices import api as notices_api
    from server.notices import cli, field_work

    api.register_blueprint(notices_api.blp)
    notices_api.register_jobs(app)
    cli.init_app(app)
    field_work.connect(app)
