"""The demo city: a deterministic synthetic city around Arcadia (the pure generator:
``city``, ``layout``, ``network``, ``owners``, ``services``, ``findings``, ``names``),
loaded by ``seed`` and played forward to today by ``living``."""


def init_app(app, api) -> None:
    from server.demo import cli

    cli.init_app(app)
