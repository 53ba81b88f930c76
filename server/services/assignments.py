"""Assignments: the parcels the superintendent sends an inspector to, with a checklist."""

from __future__ import annotations

from sqlalchemy import select

from server.errors import ApiError
from server.extensions import db
from server.models import Assignment, ChecklistTemplate, Parcel, User
from server.services import audit


def create_assignment(data: dict, actor: User) -> Assignment:
    """Send ``data["inspector_id"]`` to a parcel with a checklist (audited)."""
    inspector = db.session.get(User, data["inspector_id"])
    if inspector is None or not inspector.active or inspector.role not in ("inspector", "superintendent"):
        raise ApiError(422, "invalid_fields", "inspector_id: no active inspector with this id",
                       {"fields": {"inspector_id": ["no active inspector with this id"]}})
    if db.session.get(Parcel, data["parcel_id"]) is None:
        raise ApiError(422, "invalid_fields", "parcel_id: no parcel with this id",
                       {"fields": {"parcel_id": ["no parcel with this id"]}})
    known = db.session.execute(select(ChecklistTemplate.id).filter_by(template_id=data["template_id"])).first()
    if known is None:
        raise ApiError(422, "invalid_fields", "template_id: no checklist with this id",
                       {"fields": {"template_id": ["no checklist with this id"]}})
    assignment = Assignment(**data, status="open", created_by_id=actor.id)
    db.session.add(assignment)
    db.session.flush()
    audit.record("create", "assignment", assignment.id, None, assignment_out(assignment), actor)
    return assignment


def open_assignments(inspector_id: int) -> list[Assignment]:
    return list(db.session.execute(
        select(Assignment).filter_by(inspector_id=inspector_id, status="open").order_by(Assignment.id)).scalars())


def list_assignments(viewer: User, status: str | None = None, inspector_id: int | None = None) -> list[Assignment]:
    """Assignments in id order; inspectors see only their own."""
    stmt = select(Assignment).order_by(Assignment.id)
    if viewer.role == "inspector":
        stmt = stmt.where(Assignment.inspector_id == viewer.id)
    elif inspector_id is not None:
        stmt = stmt.where(Assignment.inspector_id == inspector_id)
    if status is not None:
        stmt = stmt.where(Assignment.status == status)
    return list(db.session.execute(stmt).scalars())


def assignment_out(a: Assignment) -> dict:
    return {"id": a.id, "inspector_id": a.inspector_id, "parcel_id": a.parcel_id, "template_id": a.template_id,
            "due_on": a.due_on.isoformat() if a.due_on else None, "reason": a.reason, "status": a.status,
            "completed_by_inspection_id": a.completed_by_inspection_id}
