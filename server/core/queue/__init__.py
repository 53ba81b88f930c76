"""The job queue: long work (the whole-network rules run, ...) runs in a worker, not a web worker.

``service`` (submit, run once, progress), ``models`` (``Job``), ``api`` (``GET
/api/v1/jobs/<id>``), ``cli`` (``flask --app server jobs worker``).
"""


def init_app(app, api) -> None:
    from server.core.queue import api as queue_api
    from server.core.queue import cli, service

    service.init_app(app)
    api.register_blueprint(queue_api.blp)
    cli.init_app(app)
