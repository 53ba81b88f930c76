"""Permits under §§ 315-11 to 315-13: a connection's life from the application to the
as-built record (new connections, lateral repairs, taps, street excavations, abandonment),
with the inspections before backfill that field work carries out under them."""


def init_app(app, api) -> None:
    """Register the permits' routes."""
    from server.network.sources import add_source
    from server.permits import api as permits_api
    from server.permits import collection, field_work, pages

    api.register_blueprint(permits_api.blp)
    add_source(app, collection.SOURCE)
    app.register_blueprint(pages.bp)
    field_work.connect(app)
