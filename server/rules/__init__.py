"""The ordinance's rules over the stored network: whole-network and on-save runs, and the
violations they open, keep and resolve (the rules themselves are pure, in ``gis.rules``)."""


def init_app(app, api) -> None:
    from server.rules import api as rules_api
    from server.rules import cli

    rules_api.register(api, app)
    cli.init_app(app)
