"""Assignments: the parcels the superintendent sends an inspector to, with a checklist.

One parcel at a time (:func:`create_assignment`, the API's) or many at once
(:func:`assign_parcels`, the Assign work page's), moved to another inspector
(:func:`reassign`) or called off (:func:`unassign`). Every change is audited.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

from sqlalchemy import case, func, select

from server.core import city
from server.core.access.roles import INSPECTOR, SUPERINTENDENT
from server.core.accounts.models import User
from server.core.audit import trail as audit
from server.core.errors import LateralError
from server.core.extensions import db
from server.field import events
from server.field.models import Assignment, ChecklistTemplate
from server.network.models import Parcel

#: Who may be sent to a parcel.
ASSIGNABLE = (INSPECTOR, SUPERINTENDENT)
#: Parcels one bulk assignment may name; a city's block or survey area is far smaller.
MAX_BULK = 2000


def _refuse(name: str, message: str) -> LateralError:
    return LateralError("invalid_fields", f"{name}: {message}", {"fields": {name: [message]}})


def _inspector(inspector_id) -> User:
    inspector = db.session.get(User, inspector_id) if isinstance(inspector_id, int) else None
    if inspector is None or not inspector.active or inspector.role not in ASSIGNABLE:
        raise _refuse("inspector_id", "no active inspector with this id")
    return inspector


def create_assignment(data: dict, actor: User) -> Assignment:
    """Send ``data["inspector_id"]`` to a parcel with a checklist (audited)."""
    _inspector(data["inspector_id"])
    if db.session.get(Parcel, data["parcel_id"]) is None:
        raise LateralError("invalid_fields", "parcel_id: no parcel with this id",
                           {"fields": {"parcel_id": ["no parcel with this id"]}})
    known = db.session.execute(select(ChecklistTemplate.id).filter_by(template_id=data["template_id"])).first()
    if known is None:
        raise LateralError("invalid_fields", "template_id: no checklist with this id",
                           {"fields": {"template_id": ["no checklist with this id"]}})
    return _add(data, actor)


def _add(data: dict, actor: User) -> Assignment:
    assignment = Assignment(**data, status="open", created_by_id=actor.id)
    db.session.add(assignment)
    db.session.flush()
    audit.record("create", "assignment", assignment.id, None, assignment_out(assignment), actor)
    events.announce(events.assignment_created, assignment=assignment)
    return assignment


def open_assignments(inspector_id: int) -> list[Assignment]:
    return list(db.session.execute(
        select(Assignment).filter_by(inspector_id=inspector_id, status="open").order_by(Assignment.id)).scalars())


def list_assignments(viewer: User, status: str | None = None, inspector_id: int | None = None) -> list[Assignment]:
    """Assignments in id order; inspectors see only their own."""
    stmt = select(Assignment).order_by(Assignment.id)
    if viewer.role == INSPECTOR:
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


def assignable_inspectors() -> list[User]:
    """Active users who can be sent to a parcel, inspectors first, by name."""
    return list(db.session.scalars(
        select(User).where(User.active.is_(True), User.role.in_(ASSIGNABLE))
        .order_by(User.role != INSPECTOR, User.display_name, User.username)))


def _known_template(template_id: str) -> bool:
    return db.session.execute(select(ChecklistTemplate.id).filter_by(template_id=template_id)).first() is not None


@dataclass
class BulkResult:
    """What :func:`assign_parcels` did: the assignments made, and the parcels left as they
    were because an open assignment with the same checklist was already there."""

    created: list[Assignment] = field(default_factory=list)
    already: list[tuple[str, str]] = field(default_factory=list)  # (parcel number, assigned to)


def _parcels(parcel_ids: list[int], parcel_numbers: list[str]) -> list[Parcel]:
    """The parcels named by id or by number, each once, in the order given; an unknown
    id or number refuses the whole request."""
    ids = list(dict.fromkeys(parcel_ids))
    numbers = list(dict.fromkeys(n.strip() for n in parcel_numbers if n.strip()))
    if not ids and not numbers:
        raise _refuse("parcels", "choose at least one parcel: click it on the map, draw an area, "
                                 "select what the filters show, or type its parcel number")
    found = {p.id: p for p in db.session.scalars(select(Parcel).where(Parcel.id.in_(ids)))} if ids else {}
    missing = [str(i) for i in ids if i not in found]
    if missing:
        raise _refuse("parcels", f"no parcel with id {', '.join(missing[:10])}")
    by_number = {}
    if numbers:
        by_number = {p.parcel_number: p
                     for p in db.session.scalars(select(Parcel).where(Parcel.parcel_number.in_(numbers)))}
    unknown = [n for n in numbers if n not in by_number]
    if unknown:
        more = f" and {len(unknown) - 10} more" if len(unknown) > 10 else ""
        raise _refuse("parcel_numbers", f"no parcel numbered {', '.join(unknown[:10])}{more}")
    chosen = {p.id: p for p in [*(found[i] for i in ids), *by_number.values()]}
    if len(chosen) > MAX_BULK:
        raise _refuse("parcels", f"{len(chosen)} parcels chosen; assign at most {MAX_BULK} at a time")
    return list(chosen.values())


def assign_parcels(parcel_ids: list[int], parcel_numbers: list[str], inspector_id: int | None,
                   template_id: str | None, due_on: date | None, reason: str | None, actor: User) -> BulkResult:
    """Send one inspector to many parcels with one checklist and due date (each audited).

    Everything is checked before anything is written: an unknown inspector, checklist or
    parcel, or a due date already past, refuses the whole request (422). A parcel that
    already has an open assignment with this checklist is left as it was and reported,
    so that selecting a block twice does not send two inspectors.

    Args:
        parcel_ids: Parcels picked on the map.
        parcel_numbers: Parcels typed by number.
        inspector_id: Who goes.
        template_id: The checklist they fill in.
        due_on: When the visit is due; None for no date.
        reason: What the inspector reads on their Today list.
        actor: The superintendent.
    """
    inspector = _inspector(inspector_id)
    if not template_id or not _known_template(template_id):
        raise _refuse("template_id", "choose a checklist")
    if due_on is not None and due_on < city.current().today():
        raise _refuse("due_on", f"the due date {due_on.isoformat()} has already passed")
    parcels = _parcels(parcel_ids, parcel_numbers)
    held: dict[int, str] = {pid: name for pid, name in db.session.execute(
        select(Assignment.parcel_id, func.coalesce(User.display_name, User.username))
        .join(User, User.id == Assignment.inspector_id)
        .where(Assignment.status == "open", Assignment.template_id == template_id,
               Assignment.parcel_id.in_([p.id for p in parcels])))}
    result = BulkResult()
    for parcel in parcels:
        if parcel.id in held:
            result.already.append((parcel.parcel_number, held[parcel.id]))
            continue
        result.created.append(_add(
            {"inspector_id": inspector.id, "parcel_id": parcel.id, "template_id": template_id,
             "due_on": due_on, "reason": reason or None}, actor))
    return result


def _open(assignment: Assignment | None) -> Assignment:
    if assignment is None:
        raise LateralError("not_found", "no such assignment")
    if assignment.status != "open":
        raise LateralError("not_open",
                           f"assignment {assignment.id} is {assignment.status}; only an open one can change")
    return assignment


def reassign(assignment: Assignment | None, inspector_id: int | None, due_on: date | None, actor: User) -> Assignment:
    """Send another inspector (and/or set another due date) on an open assignment (audited)."""
    assignment = _open(assignment)
    inspector = _inspector(inspector_id)
    if due_on is not None and due_on < city.current().today() and due_on != assignment.due_on:
        raise _refuse("due_on", f"the due date {due_on.isoformat()} has already passed")
    before = assignment_out(assignment)
    assignment.inspector_id, assignment.due_on = inspector.id, due_on
    db.session.flush()
    audit.record("reassign", "assignment", assignment.id, before, assignment_out(assignment), actor)
    return assignment


def unassign(assignment: Assignment | None, actor: User) -> Assignment:
    """Call an open assignment off: it leaves the inspector's Today list (audited).

    The domains above may refuse it (:data:`server.field.events.assignment_cancelling`):
    a reinspection a notice ordered is reassigned rather than called off, since the notice
    counts on it.
    """
    assignment = _open(assignment)
    events.announce(events.assignment_cancelling, assignment=assignment)  # a receiver may refuse
    before = assignment_out(assignment)
    assignment.status = "cancelled"
    db.session.flush()
    audit.record("cancel", "assignment", assignment.id, before, assignment_out(assignment), actor)
    return assignment


@dataclass(frozen=True)
class Load:
    """One inspector's open work: how many assignments, how many due today, how many late."""

    inspector_id: int
    name: str
    role: str
    active: bool
    open: int
    due_today: int
    overdue: int


def inspector_loads(today: date | None = None) -> list[Load]:
    """Every assignable inspector's open load, and anyone else still holding open work."""
    today = today or city.current().today()
    open_ = Assignment.status == "open"
    counts = (select(Assignment.inspector_id,
                     func.count(Assignment.id).label("open"),
                     func.sum(case((Assignment.due_on == today, 1), else_=0)).label("due_today"),
                     func.sum(case((Assignment.due_on < today, 1), else_=0)).label("overdue"))
              .where(open_).group_by(Assignment.inspector_id).subquery())
    rows = db.session.execute(
        select(User, counts.c.open, counts.c.due_today, counts.c.overdue)
        .outerjoin(counts, counts.c.inspector_id == User.id)
        .where((User.active.is_(True) & User.role.in_(ASSIGNABLE)) | counts.c.open.is_not(None))
        .order_by(User.role != INSPECTOR, User.display_name, User.username)).all()
    return [Load(u.id, u.display_name or u.username, u.role, u.active, n or 0, int(d or 0), int(o or 0))
            for u, n, d, o in rows]


@dataclass(frozen=True)
class OpenRow:
    """An open assignment as the Assign work page lists it."""

    assignment: Assignment
    parcel_number: str
    site_address: str | None
    inspector: str
    overdue: bool


def open_rows(inspector_id: int | None = None, overdue_only: bool = False, limit: int = 500,
              today: date | None = None) -> tuple[list[OpenRow], int]:
    """Open assignments by due date (undated last), with their parcel and inspector; and
    how many there are in all."""
    today = today or city.current().today()
    where = [Assignment.status == "open"]
    if inspector_id is not None:
        where.append(Assignment.inspector_id == inspector_id)
    if overdue_only:
        where.append(Assignment.due_on < today)
    total = db.session.scalar(select(func.count(Assignment.id)).where(*where)) or 0
    rows = db.session.execute(
        select(Assignment, Parcel.parcel_number, Parcel.site_address, func.coalesce(User.display_name, User.username))
        .join(Parcel, Parcel.id == Assignment.parcel_id).join(User, User.id == Assignment.inspector_id)
        .where(*where).order_by(Assignment.due_on.is_(None), Assignment.due_on, Assignment.id).limit(limit)).all()
    return [OpenRow(a, number, address, name, a.due_on is not None and a.due_on < today)
            for a, number, address, name in rows], total
