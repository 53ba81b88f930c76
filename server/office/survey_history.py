"""A parcel's inspection history for the survey map's panel: who came, with which
checklist, what they found, the photos they took, and which record corrects which.

Two queries whatever the number of inspections: the inspections with their checklist
title, inspector and correction, then all their photos. Inspectors see their own
inspections only, as in the inspections API (``inspections.list_inspections``).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import and_, select
from sqlalchemy.orm import aliased

from server.core.access.roles import INSPECTOR
from server.core.accounts.models import User
from server.core.extensions import db
from server.core.models import as_utc
from server.field.models import ChecklistTemplate, Inspection, InspectionPhoto, Photo
from server.office.survey_filters import inspector_name


def _iso(value: datetime | None) -> str | None:
    """ISO 8601 in UTC; SQLite hands back naive UTC."""
    if value is None:
        return None
    return as_utc(value).isoformat()


def _photos(inspection_ids: list[int]) -> dict[int, list[dict]]:
    """Photos by inspection; ``stored`` is False for one the tablet has not sent yet."""
    if not inspection_ids:
        return {}
    rows = db.session.execute(
        select(InspectionPhoto.inspection_id, InspectionPhoto.sha256, InspectionPhoto.item_id,
               InspectionPhoto.filename, Photo.id.is_not(None), Photo.width, Photo.height)
        .outerjoin(Photo, Photo.sha256 == InspectionPhoto.sha256)
        .where(InspectionPhoto.inspection_id.in_(inspection_ids))
        .order_by(InspectionPhoto.inspection_id, InspectionPhoto.id))
    out: dict[int, list[dict]] = {}
    for inspection_id, sha256, item_id, filename, stored, width, height in rows:
        out.setdefault(inspection_id, []).append({
            "sha256": sha256, "item_id": item_id, "filename": filename, "stored": bool(stored),
            "width": width, "height": height})
    return out


def inspections_of(parcel_id: int, viewer: User | None) -> list[dict]:
    """The parcel's inspections, newest first, each with its photos.

    ``replaces`` names the inspection a record corrects and ``superseded_by`` the one
    that corrects it (by UUID, as the field app knows them).
    """
    replaced, correction = aliased(Inspection), aliased(Inspection)
    stmt = (
        select(Inspection.id, Inspection.uuid, Inspection.template_id, Inspection.template_version,
               ChecklistTemplate.title, inspector_name(), Inspection.started_at, Inspection.finished_at,
               Inspection.result, Inspection.failures, replaced.uuid, correction.uuid)
        .join(User, User.id == Inspection.inspector_id)
        .outerjoin(ChecklistTemplate, and_(ChecklistTemplate.template_id == Inspection.template_id,
                                           ChecklistTemplate.version == Inspection.template_version))
        .outerjoin(replaced, replaced.id == Inspection.replaces_id)
        .outerjoin(correction, correction.replaces_id == Inspection.id)
        .where(Inspection.parcel_id == parcel_id)
        .order_by(Inspection.finished_at.desc(), Inspection.id.desc())
    )
    if viewer is not None and viewer.role == INSPECTOR:
        stmt = stmt.where(Inspection.inspector_id == viewer.id)
    rows = db.session.execute(stmt).all()
    photos = _photos([r[0] for r in rows])
    return [
        {"id": iid, "uuid": uuid, "template_id": template_id, "template_version": version,
         "template_title": title or template_id, "inspector": inspector, "started_at": _iso(started),
         "finished_at": _iso(finished), "result": result, "failures": failures or [],
         "replaces": replaces, "superseded_by": superseded_by, "photos": photos.get(iid, [])}
        for (iid, uuid, template_id, version, title, inspector, started, finished, result, failures,
             replaces, superseded_by) in rows
    ]
