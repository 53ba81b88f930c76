"""Vector tiles of every layer at ``/tiles/<layer>/<z>/<x>/<y>.mvt`` (Mapbox Vector Tile 2.1),
and the city's basemap file at ``/tiles/basemap.pmtiles``.

Like the rest of the API, tiles need a user (token, session or Basic); GIS clients are
offered HTTP Basic (``gis(bp)``).
"""

from __future__ import annotations

from flask import Blueprint, Response, request, send_file

from server.core import settings
from server.core.access import SIGNED_IN, access, gis
from server.core.accounts import login_reads
from server.core.errors import LateralError
from server.network import counts
from server.network.layers import LAYERS
from server.network.tiles import cache
from server.network.tiles.encode import encode_tile
from server.network.tiles.grid import valid

MVT = "application/vnd.mapbox-vector-tile"
MIN_ZOOM = 12  # below this one tile would hold a whole city's parcels

bp = Blueprint("tiles", __name__, url_prefix="/tiles")
gis(bp)


def _reads_with_login() -> dict:
    """A tile request's layer version, read by the caller's token lookup: a cached tile then
    costs one database round trip, not two."""
    layer = LAYERS.get((request.view_args or {}).get("layer_name", ""))
    if layer is None or cache.store() is None:
        return {}
    return counts.write_version_read(layer)


login_reads.add(bp, _reads_with_login)


@bp.route("/<layer_name>/<int:z>/<int:x>/<int:y>.mvt")
@access(SIGNED_IN)
def tile(layer_name: str, z: int, x: int, y: int):
    layer = LAYERS.get(layer_name)
    if layer is None:
        raise LateralError("not_found", f"no layer {layer_name!r}", {"layers": list(LAYERS)})
    if not valid(z, x, y):
        raise LateralError("not_found", f"no tile {z}/{x}/{y}")
    if z < MIN_ZOOM:
        raise LateralError("zoom_too_low", f"tiles start at zoom {MIN_ZOOM}", {"min_zoom": MIN_ZOOM})
    data, hit = cache.cached_tile(layer, z, x, y, lambda: encode_tile(layer, z, x, y))
    response = Response(data, mimetype=MVT)
    response.headers["Cache-Control"] = "private, max-age=30"
    response.headers["X-Tile-Cache"] = "hit" if hit else "miss"
    return response


@bp.route("/basemap.pmtiles")
@access(SIGNED_IN)
def basemap():
    """The city's own basemap, one PMTiles file (``LATERAL_BASEMAP_PMTILES``).

    Maps read it a few kilobytes at a time with HTTP ``Range`` requests (206 Partial
    Content); the field app takes it whole, once, to keep it offline.
    """
    path = settings.current().basemap_pmtiles
    if path is None:
        raise LateralError("not_found", "this server has no basemap file (LATERAL_BASEMAP_PMTILES)")
    response = send_file(path, mimetype="application/vnd.pmtiles", conditional=True, max_age=3600)
    response.headers["Accept-Ranges"] = "bytes"
    return response


def init_app(app) -> None:
    app.register_blueprint(bp)
    cache.init_app(app)
