"""Reading the stored sewer network into the rules engine's plain features, fast.

Rows go straight from a column select (geometry as WKB, decoded by shapely in one
vectorised call) into the frozen dataclasses of ``gis.rules.network``: no ORM objects,
so the whole system of a 160,000-parcel utility loads in a few seconds. Field names
of the models mirror the dataclasses on purpose; a field the table lacks (a main's
surveyed ``joint_points``) is left at its default.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, fields
from itertools import repeat, starmap
from typing import Any

import shapely
from sqlalchemy import func, or_, select

from gis import rules as engine
from server.core.dialects import bbox_filter
from server.core.extensions import db
from server.network.layers import rules_layers

BBox = tuple[float, float, float, float]


@dataclass(frozen=True)
class Source:
    """One stored layer as the engine sees it."""

    attr: str  # attribute of gis.rules.Network
    subject: str  # layer name in violation keys ("tap", "tracer_wire", ...)
    model: Any  # the layer's mapped class (each has its own columns: id, geom, …)
    feature: type  # gis.rules dataclass

    @property
    def columns(self) -> list[str]:
        table = self.model.__table__.c
        return [f.name for f in fields(self.feature) if f.name not in ("id", "geometry") and f.name in table]


# From the layer registry: every layer with a ``rules`` input, in registry order.
SOURCES = tuple(Source(read.attr, layer.subject, layer.model, read.feature)
                for layer in rules_layers() if (read := layer.rules) is not None)
BY_SUBJECT = {s.subject: s for s in SOURCES}


def load_layer(source: Source, where: Iterable = ()) -> list:
    """The rows of one layer matching ``where``, as engine features in id order."""
    model, names = source.model, source.columns
    stmt = select(model.id, func.ST_AsBinary(model.geom), *(getattr(model, n) for n in names))
    stmt = stmt.where(*where).order_by(model.id)
    if where:  # a neighbourhood: few rows, and the session caches the compiled statement
        rows = db.session.execute(stmt).all()
        columns = [list(c) for c in zip(*rows, strict=True)] if rows else [[]]
        if rows:
            columns[1] = [None if b is None else bytes(b) for b in columns[1]]
    else:
        columns = _fetch_columns(stmt, 2 + len(names))
    if not columns[0]:
        return []
    by_name = {"id": columns[0], "geometry": shapely.from_wkb(columns[1]),
               **dict(zip(names, columns[2:], strict=True))}
    # Positional arguments in the dataclass's field order (a third cheaper than keywords);
    # a field the table lacks gets its default.
    ordered = [by_name[f.name] if f.name in by_name else repeat(f.default) for f in fields(source.feature)]
    return list(starmap(source.feature, zip(*ordered, strict=False)))  # repeat() is endless


def _fetch_columns(stmt, width: int) -> list[list]:
    """The statement's result column by column, through the DBAPI cursor.

    SQLAlchemy's per-row result objects cost more than the query itself at 150,000
    rows; here only the columns whose type needs converting on this database (SQLite's
    dates and booleans) are converted, a whole column at a time.
    """
    connection = db.session.connection()
    dialect = connection.dialect
    compiled = stmt.compile(dialect=dialect)
    if compiled.positional:
        params = [compiled.params[name] for name in compiled.positiontup]
    else:
        params = compiled.params
    cursor = connection.connection.dbapi_connection.cursor()
    try:
        cursor.execute(str(compiled), params)
        rows = cursor.fetchall()
        type_codes = [d[1] for d in cursor.description]
    finally:
        cursor.close()
    columns = [list(c) for c in zip(*rows, strict=True)] if rows else [[] for _ in range(width)]
    for i, column in enumerate(stmt.selected_columns):
        if i == 1:  # the geometry's WKB
            continue
        convert = column.type.dialect_impl(dialect).result_processor(dialect, type_codes[i])
        if convert is not None:
            columns[i] = [convert(v) for v in columns[i]]
    return columns


def load_network(boxes: list[BBox] | None = None) -> engine.Network:
    """The whole network, or every feature intersecting any of ``boxes`` (spatial index)."""
    dialect = db.session.get_bind().dialect.name
    layers = {}
    for source in SOURCES:
        where = ()
        if boxes is not None:
            where = (or_(*(bbox_filter(source.model, b, dialect) for b in boxes)),)
        layers[source.attr] = load_layer(source, where)
    return engine.Network(**layers)


def grow(bounds: BBox, feet: float) -> BBox:
    """``bounds`` (lon/lat) grown by at least ``feet`` on every side."""
    minx, miny, maxx, maxy = bounds
    dlat = feet * 0.3048 / 111_000.0
    widest = max(abs(miny), abs(maxy))
    dlon = dlat / max(math.cos(math.radians(min(widest + dlat, 89.0))), 0.01)
    return (minx - dlon, miny - dlat, maxx + dlon, maxy + dlat)


def contains(outer: BBox, inner: BBox) -> bool:
    return outer[0] <= inner[0] and outer[1] <= inner[1] and outer[2] >= inner[2] and outer[3] >= inner[3]


def merge_boxes(boxes: list[BBox], join_within_deg: float = 0.02) -> list[BBox]:
    """Fewer boxes: any two that overlap or lie within ``join_within_deg`` become one."""
    out: list[BBox] = []
    for box in boxes:
        for i, other in enumerate(out):
            if (box[0] <= other[2] + join_within_deg and other[0] <= box[2] + join_within_deg
                    and box[1] <= other[3] + join_within_deg and other[1] <= box[3] + join_within_deg):
                out[i] = (min(box[0], other[0]), min(box[1], other[1]),
                          max(box[2], other[2]), max(box[3], other[3]))
                break
        else:
            out.append(box)
    return out if len(out) == len(boxes) else merge_boxes(out, join_within_deg)
