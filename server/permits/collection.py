"""Permits as the OGC API's collection ``permits`` (``server/network/sources.py``).

Each permit is a feature whose geometry is its parcel's, as ``/api/v1/permits`` serves it,
paged in id order with the collection's bbox (the parcel's) and its ``state`` and ``kind``
filters. The owners' personal data (the applicant, the owner who consented, the contact
on site: :data:`~server.permits.schemas.PERSONAL`) is for the office that keeps permits
(:data:`VIEWERS`); any other caller, such as an inspector's GIS token, gets each permit
without those properties.
"""

from __future__ import annotations

import json

from sqlalchemy import func, select

from server.core.access.roles import DESK
from server.core.dialects import as_geojson, bbox_filter, engine_name, extent
from server.core.extensions import db
from server.network.models import Parcel
from server.network.sources import Source
from server.permits import record
from server.permits.models import Permit
from server.permits.schemas import PERSONAL, PermitProperties

#: Who reads the owners' personal data of a permit: the office (clerk, superintendent, admin).
VIEWERS = DESK
_NAMES = tuple(name for name in PermitProperties().fields)


def _shown(role: str | None) -> tuple[str, ...]:
    return _NAMES if role in VIEWERS else tuple(n for n in _NAMES if n not in PERSONAL)


def _select():
    return (select(Permit, Parcel.parcel_number, Parcel.site_address,
                   as_geojson(Parcel.geom, engine_name(db.session)))
            .join(Parcel, Parcel.id == Permit.parcel_id))


def _where(stmt, bbox, filters: dict):
    if bbox is not None:
        stmt = stmt.where(bbox_filter(Parcel, bbox, engine_name(db.session)))
    for name, value in (filters or {}).items():
        stmt = stmt.where(getattr(Permit, name) == value)
    return stmt


def _feature(row, names: tuple[str, ...]) -> dict:
    permit, number, address, geometry = row
    props = record.properties(permit, number, address)
    return {"type": "Feature", "id": permit.id, "geometry": json.loads(geometry) if geometry else None,
            "properties": {n: props.get(n) for n in names}}


def page(bbox, filters: dict, limit: int, after: int | None, offset: int, role: str | None):
    """A page of permits after ``after`` (or past ``offset``), as ``role`` may read them."""
    stmt = _where(_select(), bbox, filters).order_by(Permit.id)
    if after is not None:
        stmt = stmt.where(Permit.id > after)
    rows = db.session.execute(stmt.offset(offset or None).limit(limit + 1)).all()
    more, rows = len(rows) > limit, rows[:limit]
    names = _shown(role)
    return [_feature(r, names) for r in rows], (rows[-1][0].id if more and rows else None)


def count(bbox, filters: dict) -> int:
    stmt = select(func.count(Permit.id))
    if bbox is not None:
        stmt = stmt.join(Parcel, Parcel.id == Permit.parcel_id)
    return db.session.scalar(_where(stmt, bbox, filters)) or 0


def item(fid: int, role: str | None):
    row = db.session.execute(_select().where(Permit.id == fid)).one_or_none()
    return None if row is None else (_feature(row, _shown(role)), row[0].version)


def permits_extent():
    """The parcels' extent, read off their spatial index, while there are permits."""
    if db.session.scalar(select(Permit.id).limit(1)) is None:
        return None
    return extent(db.session, Parcel)


SOURCE = Source(name="permits", subject="permit", properties=PermitProperties, geometry_types=("MultiPolygon",),
                filters=("state", "kind"), extent=permits_extent, page=page, count=count, item=item)
