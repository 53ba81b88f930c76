"""Running Lateral: backup and restore, verify, ``doctor``, and the health check."""


def init_app(app, api) -> None:
    from server.operations import api as health
    from server.operations import cli

    api.register_blueprint(health.blp)
    cli.init_app(app)
