"""Reading permits: one, a page of them as GeoJSON features keyed on the parcel, and a
permit's dated history."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date, datetime

from sqlalchemy import select

from server.core.dialects import as_geojson, engine_name
from server.core.errors import LateralError
from server.core.extensions import db
from server.network.models import Parcel
from server.permits.models import Permit, PermitEvent, PermitFile

#: What a permit feature's properties carry (beside its geometry, the parcel's).
_FIELDS = ("number", "kind", "state", "parcel_id", "lateral_id", "applied_on", "applicant_name", "applicant_phone",
           "applicant_email", "applicant_is_owner", "owner_consent_by", "owner_consent_on", "plumber_name",
           "plumber_license", "plumber_license_expires", "wastes", "connection_kind", "connection_size_in",
           "work_description", "inside_limits", "connected_by_cutoff", "surcharged", "fees", "fee_total", "paid",
           "paid_on", "receipt_number", "approval_basis", "commission_meeting_on", "delegation", "approved_on",
           "rejected_reason", "issued_on", "expires_on", "work_on", "frozen_override_reason", "inspection_earliest",
           "inspection_contact", "inspection_requested_on", "assignment_id", "inspected_on", "inspection_id",
           "corrections", "connected_on", "closed_on", "withdrawn_reason", "version")


@dataclass(frozen=True)
class Page:
    features: list[dict]
    next_after: int | None


def get_permit(permit_id: int) -> Permit:
    permit = db.session.get(Permit, permit_id)
    if permit is None:
        raise LateralError("not_found", f"no permit with id {permit_id}")
    return permit


def _plain(value):
    if isinstance(value, date | datetime):
        return value.isoformat()
    if hasattr(value, "quantize"):  # Decimal
        return str(value)
    return value


def properties(permit: Permit, parcel_number: str | None, site_address: str | None) -> dict:
    out = {name: _plain(getattr(permit, name)) for name in _FIELDS}
    out.update(parcel_number=parcel_number, site_address=site_address)
    return out


def _select():
    return (select(Permit, Parcel.parcel_number, Parcel.site_address,
                   as_geojson(Parcel.geom, engine_name(db.session)))
            .join(Parcel, Parcel.id == Permit.parcel_id))


def _feature(row) -> dict:
    permit, number, address, geometry = row
    return {"type": "Feature", "id": permit.id, "geometry": json.loads(geometry) if geometry else None,
            "properties": properties(permit, number, address)}


def list_permits(state: str | None = None, kind: str | None = None, plumber: str | None = None,
                 parcel_id: int | None = None, limit: int = 100, after: int | None = None) -> Page:
    """A page of permits as features in id order, filtered by state, kind, the plumber's
    license number (or name) and parcel."""
    stmt = _select().order_by(Permit.id).limit(limit + 1)
    for column, value in ((Permit.state, state), (Permit.kind, kind), (Permit.parcel_id, parcel_id)):
        if value is not None:
            stmt = stmt.where(column == value)
    if plumber:
        stmt = stmt.where((Permit.plumber_license == plumber) | (Permit.plumber_name == plumber))
    if after is not None:
        stmt = stmt.where(Permit.id > after)
    rows = db.session.execute(stmt).all()
    more = len(rows) > limit
    rows = rows[:limit]
    return Page([_feature(r) for r in rows], rows[-1][0].id if more and rows else None)


def feature(permit: Permit) -> dict:
    """One permit as a feature, with its dated history."""
    row = db.session.execute(_select().where(Permit.id == permit.id)).one()
    out = _feature(row)
    out["properties"]["history"] = history(permit.id)
    return out


def history(permit_id: int) -> list[dict]:
    events = db.session.scalars(select(PermitEvent).where(PermitEvent.permit_id == permit_id)
                                .order_by(PermitEvent.id))
    return [{"event": e.event, "from_state": e.from_state, "to_state": e.to_state, "on": e.on.isoformat(),
             "at": _plain(e.at), "actor_id": e.actor_id, "note": e.note, "data": e.data} for e in events]


def parcel_history(parcel_id: int) -> list[dict]:
    """A parcel's permits, newest first, as the survey map's panel lists them."""
    permits = db.session.scalars(select(Permit).where(Permit.parcel_id == parcel_id).order_by(Permit.id.desc()))
    return [{"id": p.id, "number": p.number, "kind": p.kind, "state": p.state, "applied_on": _plain(p.applied_on),
             "issued_on": _plain(p.issued_on), "closed_on": _plain(p.closed_on), "plumber_name": p.plumber_name}
            for p in permits]


def files_of(permit_id: int) -> list[PermitFile]:
    """The files kept with a permit (the owner's consent attached online), first to last."""
    return list(db.session.scalars(select(PermitFile).where(PermitFile.permit_id == permit_id).order_by(PermitFile.id)))
