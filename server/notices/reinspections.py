"""Where notices meet field inspections: reinspection assignments and passing visits."""

from __future__ import annotations

from datetime import UTC, datetime, time

from sqlalchemy import func, select

from server.core.access.roles import INSPECTOR
from server.core.accounts.models import User
from server.core.audit import trail as audit
from server.core.extensions import db
from server.field.events import announce, assignment_created
from server.field.models import Assignment, Inspection
from server.notices.kinds import notice_kind
from server.notices.models import Notice, NoticeViolation
from server.rules.models import Violation

TEMPLATE = "reinspection"  # server/field/checklists/reinspection.json
RULE_ITEM = "violation_rule"  # the reinspection's answer naming the rule it checks


def own_rules(kind: str) -> set[str]:
    """The rules a notice of ``kind`` cites as its own: the kind and its deadline's rule
    (``CORRECTION``, § 315-21B, for a general notice)."""
    return {kind, notice_kind(kind).deadline_rule}


def notice_rules(notice: Notice) -> set[str]:
    """Every rule a reinspection may name for ``notice``: its own and its violations'."""
    cited = db.session.scalars(
        select(Violation.rule_id).join(NoticeViolation, NoticeViolation.violation_id == Violation.id)
        .where(NoticeViolation.notice_id == notice.id))
    return own_rules(notice.kind) | set(cited)


def named_rule(inspection: Inspection) -> str | None:
    """The rule a ``reinspection`` checked, or None for any other checklist."""
    if inspection.template_id != TEMPLATE:
        return None
    return (inspection.answers or {}).get(RULE_ITEM)


def _inspector_for(parcel_id: int) -> int | None:
    """Who goes: whoever last inspected the parcel, else the active inspector with
    the fewest open assignments (the superintendent can reassign)."""
    last = db.session.scalar(
        select(Inspection.inspector_id).where(Inspection.parcel_id == parcel_id)
        .order_by(Inspection.finished_at.desc()).limit(1))
    if last is not None:
        return last
    open_count = (select(func.count(Assignment.id)).where(Assignment.inspector_id == User.id,
                                                           Assignment.status == "open")
                  .correlate(User).scalar_subquery())
    return db.session.scalar(
        select(User.id).where(User.role == INSPECTOR, User.active.is_(True))
        .order_by(open_count, User.id).limit(1))


def request_reinspection(notice: Notice) -> Assignment | None:
    """An open ``reinspection`` assignment for the notice's parcel (once per notice).

    Returns None when there is no active inspector to send.
    """
    if notice.reinspection_assignment_id is not None:
        return db.session.get(Assignment, notice.reinspection_assignment_id)
    inspector_id = _inspector_for(notice.parcel_id)
    if inspector_id is None:
        return None
    assignment = Assignment(
        inspector_id=inspector_id, parcel_id=notice.parcel_id, template_id=TEMPLATE,
        due_on=notice.overdue_on, status="open",
        reason=(f"Notice {notice.id} ({notice.kind}, article {notice.article_number}) passed its "
                f"deadline {notice.deadline.isoformat() if notice.deadline else ''}: check compliance"),
    )
    db.session.add(assignment)
    db.session.flush()
    notice.reinspection_assignment_id = assignment.id
    audit.record("create", "assignment", assignment.id, None,
                 {"parcel_id": notice.parcel_id, "template_id": TEMPLATE, "notice_id": notice.id,
                  "inspector_id": inspector_id}, None)
    announce(assignment_created, assignment=assignment)
    return assignment


#: Assignment states that let an inspector's visit stand as evidence (not ``cancelled``).
HELD_ASSIGNMENTS = ("open", "done")


def on_assignment(inspection: Inspection) -> bool:
    """Whether ``inspection`` may stand as evidence that a breach is gone: made by the
    superintendent or an administrator, or by an inspector the parcel was assigned to (an
    open or done assignment). An inspector's visit elsewhere still opens violations, but
    resolves none and complies no notice (issue 15: inspectors hold their own work)."""
    role = db.session.scalar(select(User.role).where(User.id == inspection.inspector_id))
    if role != INSPECTOR:
        return True
    return db.session.scalar(
        select(Assignment.id).where(Assignment.inspector_id == inspection.inspector_id,
                                    Assignment.parcel_id == inspection.parcel_id,
                                    Assignment.status.in_(HELD_ASSIGNMENTS)).limit(1)) is not None


def passing_inspection(notice: Notice) -> Inspection | None:
    """A passing ``reinspection`` of the notice's parcel, done since mailing, that named
    one of the notice's rules (:func:`notice_rules`), by someone it counts from
    (:func:`on_assignment`).

    Only the reinspection checklist counts: a passing tap inspection says nothing
    about the downspout the notice is about, nor does a reinspection of another rule.
    """
    if notice.mailed_on is None:
        return None
    since = datetime.combine(notice.mailed_on, time.min, tzinfo=UTC)
    passed = db.session.scalars(
        select(Inspection).where(Inspection.parcel_id == notice.parcel_id, Inspection.result == "pass",
                                 Inspection.template_id == TEMPLATE,
                                 Inspection.finished_at >= since)
        .order_by(Inspection.finished_at))
    rules = notice_rules(notice)
    return next((i for i in passed if named_rule(i) in rules and on_assignment(i)), None)
