"""Reading and writing features of any layer: the rules of the feature API.

Routes hand plain values here; this module checks versions and references, writes the
row and its audit entry in the caller's transaction, and renders GeoJSON text.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import orjson
import shapely
from flask import current_app
from geoalchemy2.shape import from_shape, to_shape
from marshmallow import ValidationError
from sqlalchemy import func, select

from gis.geojson import GeometryError, normalise, parse_geometry
from server.core.audit import trail as audit
from server.core.dialects import as_geojson, bbox_filter
from server.core.errors import LateralError, invalid_fields
from server.core.extensions import db
from server.network import counts, findings
from server.network.geojson import FeatureArray, feature_text, json_default
from server.network.layers import Layer


@dataclass
class Page:
    features: list[str] | FeatureArray  # GeoJSON text of each feature, or all of them as one array
    next_after: int | None  # the last id of the page while more rows follow it, else None


def property_names(layer: Layer) -> tuple[str, ...]:
    """Columns the layer's contract puts in ``properties`` (its dump fields)."""
    return _property_names(layer.properties)


@functools.cache
def _property_names(contract: type) -> tuple[str, ...]:
    # A contract's fields are fixed; building the schema on every page cost a millisecond.
    return tuple(name for name, fld in contract().fields.items() if not fld.load_only)


def _select(layer: Layer):
    return _base_select(layer.model, property_names(layer), db.session.get_bind().dialect.name)


@functools.lru_cache(maxsize=128)
def _base_select(model, names: tuple[str, ...], dialect: str):
    # Built once per layer and database: a Select is immutable (``where`` makes a new
    # one), and building it cost a small page a millisecond of its time.
    cols = [getattr(model, name) for name in names]
    # The database writes each geometry's GeoJSON (C, one pass) rather than handing
    # WKB to GEOS in Python: a page of 1,000 parcels is the API's hot path.
    geometry = as_geojson(model.geom, dialect).label("geometry")
    return select(model.id, geometry, *cols)


def _render(layer: Layer, rows) -> list[str]:
    names = property_names(layer)
    # _select puts id and the geometry's text first, then the properties in ``names`` order.
    return [feature_text(r[0], r[1], dict(zip(names, r[2:], strict=True))) for r in rows]


def _render_array(layer: Layer, rows) -> FeatureArray:
    """The rows as one JSON array, written by one orjson call (the geometry text as is)."""
    names = property_names(layer)
    fragment = orjson.Fragment
    features = [
        {"type": "Feature", "id": r[0], "geometry": fragment(r[1] or "null"),
         "properties": dict(zip(names, r[2:], strict=True))}
        for r in rows
    ]
    return FeatureArray(orjson.dumps(features, default=json_default, option=orjson.OPT_NAIVE_UTC).decode(),
                        len(features))


def _filtered(layer: Layer, stmt, bbox, filters):
    return _narrowed(layer.model, stmt, bbox, (filters or {}).items(), db.session.get_bind().dialect.name)


def _narrowed(model, stmt, bbox, filters, dialect: str):
    """``stmt`` kept to rows inside ``bbox`` (if any) matching each (name, value) of ``filters``."""
    if bbox is not None:
        stmt = stmt.where(bbox_filter(model, bbox, dialect))
    for name, value in filters:
        stmt = stmt.where(getattr(model, name) == value)
    return stmt


def _converts(sql_type, dialect) -> bool:
    """Whether SQLAlchemy turns the driver's values of this type into others (e.g. numerics)."""
    try:
        return sql_type.dialect_impl(dialect).result_processor(dialect, None) is not None
    except (TypeError, ValueError):  # it needs the driver's column type to decide: assume it does
        return True


def list_features(layer: Layer, *, bbox=None, filters=None, limit: int, after: int | None = None,
                  offset: int = 0, as_array: bool = False) -> Page:
    """One page of features in id order, optionally inside ``bbox`` and matching ``filters``.

    Pages start after the ``after`` cursor (cheap at any depth: the primary key's index
    starts there) or skip ``offset`` rows (what some OGC API clients send). An offset is
    stepped over on the ids alone, so the database writes the GeoJSON of the page's
    rows only, not of every row it skips. ``as_array``: the features as one JSON array
    (an HTTP response's body) rather than a text per feature.
    """
    model: Any = layer.model
    if offset:
        ids = _filtered(layer, select(model.id), bbox, filters)
        if after is not None:
            ids = ids.where(model.id > after)
        window = ids.order_by(model.id).offset(offset).limit(limit + 1).scalar_subquery()
        stmt = _select(layer).where(model.id.in_(window))
    else:
        stmt = _filtered(layer, _select(layer), bbox, filters)
    rows, next_after = page_rows(stmt, model.id, limit, after, plain=as_array)
    return Page(_render_array(layer, rows) if as_array else _render(layer, rows), next_after)


def count_features(layer: Layer, *, bbox=None, filters=None, budget: float | None = None) -> int | None:
    """How many features ``list_features`` would page through with these filters.

    Without a box or filters, the triggers' count (``server.network.counts``), no table
    read. Otherwise counts ids only (an index scan), never writing a geometry; with a
    ``budget`` (seconds), None if the database takes longer.
    """
    if bbox is None and not filters:
        return counts.feature_count(layer)
    stmt = _filtered(layer, select(func.count(layer.model.id)), bbox, filters)
    if budget is not None:
        return counts.count_in_budget(stmt, budget)
    return db.session.scalar(stmt)


def page_rows(stmt, id_column, limit: int, after: int | None, plain: bool = False) -> tuple[list, int | None]:
    """One page of ``stmt``'s rows in id order after the cursor, and the next cursor.

    ``plain``: rows as tuples (id first), fetched straight from the driver where the
    driver's values are already what SQLAlchemy would hand back.
    """
    if after is not None:
        stmt = stmt.where(id_column > after)
    stmt = stmt.order_by(id_column).limit(limit + 1)
    rows = _driver_rows(stmt) if plain else db.session.execute(stmt).all()
    more = len(rows) > limit
    rows = rows[:limit]
    return rows, (rows[-1][0] if more else None)


def _driver_rows(stmt) -> list:
    """``stmt``'s rows as the DB-API driver returns them, when nothing needs converting.

    A page of 1,000 parcels spends a quarter of its fetch building SQLAlchemy rows. On
    PostgreSQL psycopg already returns aware datetimes, booleans and text, so the
    driver's tuples are used as they are; where a column's type converts driver values
    (SQLite's dates and booleans), the session fetches as usual.
    """
    connection = db.session.connection()
    if any(_converts(c.type, connection.dialect) for c in stmt.selected_columns):
        return db.session.execute(stmt).all()
    # Executed by SQLAlchemy (its statement cache spares compiling the page's SELECT
    # each time), then read straight from the DB-API cursor it ran on.
    result = connection.execute(stmt)
    try:
        return result.cursor.fetchall()
    finally:
        result.close()


def features_by_ids(layer: Layer, ids, *, bbox=None) -> dict[int, str]:
    """GeoJSON text of the features with these ids (inside ``bbox`` if given), by id."""
    if not ids:
        return {}
    stmt = _select(layer).where(layer.model.id.in_(sorted(ids)))
    if bbox is not None:
        stmt = stmt.where(bbox_filter(layer.model, bbox, db.session.get_bind().dialect.name))
    rows = db.session.execute(stmt.order_by(layer.model.id)).all()
    return {row.id: text for row, text in zip(rows, _render(layer, rows), strict=True)}


def feature_text_by_id(layer: Layer, fid: int) -> tuple[str, int]:
    """(GeoJSON text, version) of one feature, or a 404."""
    row = db.session.execute(_select(layer).where(layer.model.id == fid)).one_or_none()
    if row is None:
        raise not_found(layer, fid)
    return _render(layer, [row])[0], row.version


def not_found(layer: Layer, fid) -> LateralError:
    return LateralError("not_found", f"no {layer.subject.replace('_', ' ')} with id {fid}")


def _parse_geometry(layer: Layer, obj):
    try:
        return normalise(parse_geometry(obj, layer.geometry_types), layer.stored_type)
    except GeometryError as exc:
        raise LateralError("invalid_geometry", str(exc), {"field": "geometry", "reason": exc.reason}) from None


def _load_properties(layer: Layer, data, partial: bool) -> dict:
    try:
        return layer.properties().load(data or {}, partial=partial)
    except ValidationError as exc:
        raise invalid_fields(exc.messages, prefix="properties") from None


def _check_references(layer: Layer, props: dict) -> None:
    for name, target in layer.references.items():
        value = props.get(name)
        if value is not None and db.session.get(target, value) is None:
            raise invalid_fields({name: [f"no {target.__tablename__} row with id {value}"]}, "properties")


def _check_unique(layer: Layer, props: dict, fid: int | None = None) -> None:
    """A value that must be unique (a parcel number) and is taken is a 409, not a crash."""
    model = layer.model
    for column in model.__table__.columns:
        value = props.get(column.name)
        if not column.unique or value is None:
            continue
        stmt = select(model.id).where(column == value)
        if fid is not None:
            stmt = stmt.where(model.id != fid)
        other = db.session.scalar(stmt)
        if other is not None:
            raise LateralError("duplicate", f"{column.name} {value!r} is already used by {layer.subject} {other}",
                               {"field": f"properties.{column.name}", "existing_id": other})


def snapshot(layer: Layer, obj, geom) -> dict:
    """What the audit trail keeps of a feature: its properties and geometry."""
    props = layer.properties().dump(obj)
    return {"properties": props, "geometry": shapely.geometry.mapping(geom)}


def _render_obj(layer: Layer, obj, geom, members: dict | None = None) -> str:
    names = property_names(layer)
    return feature_text(obj.id, shapely.to_geojson(geom), {n: getattr(obj, n) for n in names}, members)


# Hooks run after a feature is created, updated or deleted, in the write's transaction,
# by layer name: ``hook(layer, fid, geoms, actor) -> dict`` where ``geoms`` is the
# geometry now (and, after a move, before; after a delete, where it was); the dicts are
# added to the returned Feature as foreign members (a delete returns no Feature).
WRITE_HOOKS = "lateral_write_hooks"


def add_write_hook(app, layer_names, hook) -> None:
    """Call ``hook`` after every create, update or delete of the named layers."""
    hooks = app.extensions.setdefault(WRITE_HOOKS, {})
    for name in layer_names:
        hooks.setdefault(name, []).append(hook)


def _after_write(layer: Layer, fid: int, geoms: list, actor) -> dict:
    counts.after_write(layer)
    members: dict = {}
    for hook in current_app.extensions.get(WRITE_HOOKS, {}).get(layer.name, ()):
        members.update(hook(layer, fid, geoms, actor))
    return members


def create_feature(layer: Layer, geometry, properties, actor) -> tuple[str, int, int]:
    """Store a new feature; returns (GeoJSON text, id, version)."""
    geom = _parse_geometry(layer, geometry)
    props = findings.stamp_new(layer, _load_properties(layer, properties, partial=False), actor)
    _check_references(layer, props)
    _check_unique(layer, props)
    obj = layer.model(**props, geom=from_shape(geom, srid=4326))
    db.session.add(obj)
    db.session.flush()
    audit.record("create", layer.subject, obj.id, None, snapshot(layer, obj, geom), actor)
    members = _after_write(layer, obj.id, [geom], actor)
    return _render_obj(layer, obj, geom, members), obj.id, obj.version


def _locked(layer: Layer, fid: int, expected_version: int):
    obj = db.session.get(layer.model, fid)
    if obj is None:
        raise not_found(layer, fid)
    if obj.version != expected_version:
        raise LateralError(
            "version_conflict",
            f"{layer.subject.replace('_', ' ')} {fid} is at version {obj.version}, "
            f"not {expected_version}: someone changed it; reload and try again",
            {"current_version": obj.version},
        )
    return obj


def update_feature(layer: Layer, fid: int, expected_version: int, geometry, properties, actor):
    """Apply a partial change made from ``expected_version``; returns (text, version)."""
    obj = _locked(layer, fid, expected_version)
    old_geom = to_shape(obj.geom)
    before = snapshot(layer, obj, old_geom)
    props = _load_properties(layer, properties, partial=True) if properties is not None else {}
    findings.check_change(layer, obj, props, actor)
    _check_references(layer, props)
    _check_unique(layer, props, fid)
    geom = _parse_geometry(layer, geometry) if geometry is not None else old_geom
    for name, value in props.items():
        setattr(obj, name, value)
    if geometry is not None:
        obj.geom = from_shape(geom, srid=4326)
    db.session.flush()
    audit.record("update", layer.subject, obj.id, before, snapshot(layer, obj, geom), actor)
    moved = [old_geom] if geometry is not None and not geom.equals(old_geom) else []
    members = _after_write(layer, obj.id, [geom, *moved], actor)
    return _render_obj(layer, obj, geom, members), obj.version


def delete_feature(layer: Layer, fid: int, expected_version: int, actor) -> None:
    obj = _locked(layer, fid, expected_version)
    findings.check_change(layer, obj, None, actor)
    geom = to_shape(obj.geom)
    before = snapshot(layer, obj, geom)
    db.session.delete(obj)
    db.session.flush()
    audit.record("delete", layer.subject, fid, before, None, actor)
    _after_write(layer, fid, [geom], actor)
