"""One Mapbox Vector Tile of one layer, encoded by the database or in Python.

PostGIS builds the tile itself (``ST_AsMVTGeom`` + ``ST_AsMVT``); SpatiaLite has no MVT
encoder, so its rows are projected, clipped and encoded here with ``mapbox-vector-tile``.
Both select the same features (those intersecting the tile, through the spatial index
via ``server.core.dialects.bbox_filter``), carry the same properties and the feature id, and
clip to the tile plus the same buffer. This module is the tiles' database seam.
"""

from __future__ import annotations

from typing import Any

import mapbox_vector_tile
import numpy as np
import shapely
from sqlalchemy import bindparam, func, literal_column, select

from server.core.dialects import WEB_MERCATOR_COLUMN, bbox_filter, is_sqlite, postgis_bbox_shape
from server.core.extensions import db
from server.network.layers import Layer
from server.network.tiles.grid import tile_bounds_3857, tile_bounds_4326, to_3857

EXTENT = 4096  # tile coordinate units per side
BUFFER = 64  # units drawn beyond each edge, so strokes do not stop at tile seams


CATEGORY_MAX_LENGTH = 20  # longer strings (parcel numbers, addresses) are free text


def tile_properties(layer: Layer) -> list[str]:
    """What a tile tells about each feature besides its id: the attributes a map styles by.

    Those are the layer's filters that are categories, flags or numbers. Free text
    (parcel numbers, addresses, facility ids) would triple a tile's size; a client asks
    the feature API for it by id.
    """
    columns = layer.model.__table__.c
    return [name for name in layer.filters if _is_category(columns[name])]


def _is_category(column) -> bool:
    length = getattr(column.type, "length", None)  # None: not a string
    return not column.unique and (length is None or length <= CATEGORY_MAX_LENGTH)


def encode_tile(layer: Layer, z: int, x: int, y: int) -> bytes:
    """The MVT bytes of ``layer`` in tile z/x/y (one MVT layer named after it)."""
    if is_sqlite(db.session.get_bind()):
        return _encode_in_python(layer, z, x, y)
    return _encode_in_postgis(layer, z, x, y)


def _columns(layer: Layer) -> list:
    return [getattr(layer.model, name) for name in tile_properties(layer)]


def _where(layer: Layer, bbox):
    dialect = db.session.get_bind().dialect.name
    return bbox_filter(layer.model, bbox, dialect)


def _web_mercator(layer: Layer):
    """The geometry in EPSG:3857: the stored copy where the layer keeps one, else reprojected."""
    model: Any = layer.model
    if layer.web_mercator_copy:
        return literal_column(f"{model.__tablename__}.{WEB_MERCATOR_COLUMN}")
    return func.ST_Transform(model.geom, 3857)


PREPARED_FROM_ZOOM = 16  # from here down a tile is small enough for one plan to fit all

TILE_PARAMETERS = ("tile_z", "tile_x", "tile_y", "tile_minx", "tile_miny", "tile_maxx", "tile_maxy")


def _tile_values(z: int, x: int, y: int) -> dict[str, Any]:
    return dict(zip(TILE_PARAMETERS, (z, x, y, *tile_bounds_4326(z, x, y)), strict=True))


def _encode_in_postgis(layer: Layer, z: int, x: int, y: int) -> bytes:
    """Run the layer's tile statement, compiled once per layer and shape, with this tile's values.

    Building and compiling the statement through SQLAlchemy for every tile cost about
    twice what PostgreSQL took to make a zoom-17 tile (issue #35: a cold tile should
    cost little more than its SQL).
    """
    values = _tile_values(z, x, y)
    bounds = tuple(values[name] for name in TILE_PARAMETERS[3:])
    connection = db.session.connection()
    sql, fixed = _compiled_tile(layer, postgis_bbox_shape(bounds), connection.dialect, (z, x, y))
    # psycopg (the only PostgreSQL driver DATABASE_URL takes) prepares a statement on the
    # server after its fifth run, and PostgreSQL then may plan it once for any window. For
    # a deep tile (a few rows) that saves the planning; for a wide one the one-size plan
    # took an eighth longer than a plan made for its window (zoom 14: 10.2 ms against
    # 9.0), so those are planned each time.
    driver: Any = connection.connection.driver_connection
    row = driver.execute(sql, {**fixed, **values}, prepare=False if z < PREPARED_FROM_ZOOM else None).fetchone()
    return bytes(row[0] or b"") if row else b""


_COMPILED: dict[tuple[str, bool, str, str], tuple[str, dict[str, Any]]] = {}


def _compiled_tile(layer: Layer, shape: bool, dialect, example: tuple[int, int, int]) -> tuple[str, dict[str, Any]]:
    """(SQL, its fixed parameters) of ``layer``'s tiles of one shape; ``example`` is the tile
    asked for (its values are replaced at each run)."""
    key = (layer.name, shape, dialect.name, dialect.driver)
    found = _COMPILED.get(key)
    if found is None:
        compiled = postgis_tile_statement(layer, *example).compile(dialect=dialect)
        found = _COMPILED.setdefault(key, (str(compiled), dict(compiled.params)))
    return found


def postgis_tile_statement(layer: Layer, z: int, x: int, y: int):
    """The one PostGIS query that makes tile z/x/y of ``layer`` (also what ``bench/`` times as
    a tile's SQL, to compare a cache miss with). The tile's numbers are bound parameters
    named ``TILE_PARAMETERS``, so one compiled statement serves every tile of its shape."""
    model = layer.model
    p: dict[str, Any] = {name: bindparam(name, value) for name, value in _tile_values(z, x, y).items()}
    envelope = func.ST_TileEnvelope(p["tile_z"], p["tile_x"], p["tile_y"])
    mvt_geom = func.ST_AsMVTGeom(_web_mercator(layer), envelope, EXTENT, BUFFER, True)
    # Bound parameters holding this tile's numbers: bbox_filter shapes its SQL by them.
    bbox: Any = (p["tile_minx"], p["tile_miny"], p["tile_maxx"], p["tile_maxy"])
    # OFFSET 0 fences the subquery: flattened, PostgreSQL would evaluate ST_AsMVTGeom
    # twice per row, once for the IS NOT NULL below and once for ST_AsMVT (half a
    # zoom-14 tile's time).
    rows = (select(model.id, *_columns(layer), mvt_geom.label("mvt_geom"))
            .where(bbox_filter(layer.model, bbox, "postgresql")).offset(0).subquery("t"))
    stmt = (select(func.ST_AsMVT(literal_column("t"), layer.name, EXTENT, "mvt_geom", "id"))
            .select_from(rows).where(rows.c.mvt_geom.is_not(None)))
    return stmt


def _encode_in_python(layer: Layer, z: int, x: int, y: int) -> bytes:
    names = tile_properties(layer)
    stmt = (select(layer.model.id, func.AsBinary(layer.model.geom), *_columns(layer))
            .where(_where(layer, tile_bounds_4326(z, x, y))))
    rows = db.session.execute(stmt).all()
    if not rows:
        return b""
    minx, miny, maxx, maxy = tile_bounds_3857(z, x, y)
    scale = EXTENT / (maxx - minx)

    def to_tile(lonlat):  # lon/lat to tile units, y down from the tile's top edge
        metres = to_3857(lonlat)
        return np.column_stack([(metres[:, 0] - minx) * scale, (maxy - metres[:, 1]) * scale])

    geoms = shapely.transform(shapely.from_wkb([bytes(r[1]) for r in rows]), to_tile)
    clipped = shapely.clip_by_rect(geoms, -BUFFER, -BUFFER, EXTENT + BUFFER, EXTENT + BUFFER)
    features = [
        {"id": r[0], "geometry": g,
         "properties": {n: v for n, v in zip(names, r[2:], strict=True) if v is not None}}
        for r, g in zip(rows, clipped, strict=True) if not g.is_empty
    ]
    return mapbox_vector_tile.encode(
        [{"name": layer.name, "features": features}],
        default_options={"y_coord_down": True, "extents": EXTENT},
    )
