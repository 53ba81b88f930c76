"""OGC API – Features (Part 1: Core) at ``/ogc``: every layer of ``LAYERS`` as a collection.

GIS clients (QGIS, GDAL's OAPIF driver, OWSLib) read the same features the JSON API
serves, through ``server.network.features``. Every endpoint needs a user, as the rest of
the API does: a bearer token, the web session, or HTTP Basic with a username and password.
"""

from __future__ import annotations

from server.network.ogc.views import bp


def init_app(app) -> None:
    app.register_blueprint(bp)
