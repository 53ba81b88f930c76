"""Work in the field: assignments, inspections against checklists, photos, and the
tablets' sync (push, pull, conflicts), with the field app's shell at ``/field/``."""


def init_app(app, api) -> None:
    from server.field import cli, pages
    from server.field.api import inspections, photos, sync

    api.register_blueprint(sync.blp)
    api.register_blueprint(inspections.blp)
    photos.register(api, app)
    pages.init_app(app)
    cli.init_app(app)
