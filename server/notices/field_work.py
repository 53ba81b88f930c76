"""What the notices domain makes of field work, heard through :mod:`server.field.events`.

Field work sits below notices, so it announces; these receivers act: an inspection that
disproves a violation resolves it and may comply the notice (:mod:`.compliance`); a
reinspection a notice ordered cannot be called off; a tablet's pull carries each parcel's
notices and, with a reinspection, the notice it checks; a checklist names a notice kind's
rules by the notice's title.
"""

from __future__ import annotations

from flask import Flask
from sqlalchemy import select

from gis.rulebook import RulebookError
from server.core import city
from server.core.errors import LateralError
from server.core.extensions import db
from server.field import events
from server.field.models import Assignment
from server.notices import compliance, reinspections
from server.notices.kinds import KINDS
from server.notices.models import Notice, NoticeViolation
from server.rules.models import Violation


def connect(app: Flask) -> None:
    events.connect(app, events.inspection_stored, _inspection_stored)
    events.connect(app, events.assignment_cancelling, _assignment_cancelling)
    events.connect(app, events.assignment_pulled, _assignment_pulled)
    events.connect(app, events.parcels_pulled, _parcels_pulled)
    events.connect(app, events.rule_names_wanted, _rule_names)


def _inspection_stored(_app, *, inspection, observed_on, actor) -> list[int]:
    return compliance.settle(inspection, observed_on, actor)


def _assignment_cancelling(_app, *, assignment: Assignment) -> None:
    """A reinspection a notice ordered is reassigned, not called off: the notice counts on it."""
    notice_id = db.session.scalar(select(Notice.id).where(Notice.reinspection_assignment_id == assignment.id))
    if notice_id is not None:
        raise LateralError("ordered_by_notice", f"assignment {assignment.id} is the reinspection notice {notice_id} "
                                               "ordered; send another inspector instead of calling it off")


def _iso(value) -> str | None:
    return value.isoformat() if value is not None else None


def notice_brief(n: Notice) -> dict:
    """A notice as the tablet shows it: kind, its title, state and the deadline in force."""
    kind = KINDS.get(n.kind)
    return {"id": n.id, "kind": n.kind, "title": kind.title if kind else n.kind, "state": n.state,
            "deadline": _iso(n.deadline), "article_number": n.article_number, "mailed_on": _iso(n.mailed_on)}


def _parcels_pulled(_app, *, actor, parcel_ids: list[int]) -> dict[int, dict]:
    """Each parcel's notices, oldest first (readable by every signed-in user)."""
    out: dict[int, dict] = {pid: {"notices": []} for pid in parcel_ids}
    for n in db.session.scalars(select(Notice).where(Notice.parcel_id.in_(parcel_ids)).order_by(Notice.id)):
        out[n.parcel_id]["notices"].append(notice_brief(n))
    return out


def _assignment_pulled(_app, *, assignment: Assignment) -> dict:
    """A reinspection names the notice it checks (None when no notice ordered it)."""
    if assignment.template_id != reinspections.TEMPLATE:
        return {}
    return {"notice": reinspection_notice(assignment.id)}


def reinspection_notice(assignment_id: int) -> dict | None:
    """The notice a reinspection assignment checks, with the rules it cites (its open
    violations' first), so the checklist can name them instead of asking; else None."""
    notice = db.session.scalar(select(Notice).where(Notice.reinspection_assignment_id == assignment_id))
    if notice is None:
        return None
    cited = list(db.session.scalars(
        select(Violation.rule_id).join(NoticeViolation, NoticeViolation.violation_id == Violation.id)
        .where(NoticeViolation.notice_id == notice.id, Violation.status == "open").order_by(Violation.id)))
    kind = KINDS.get(notice.kind)
    own = [notice.kind] + ([kind.deadline_rule] if kind and kind.deadline_rule != notice.kind else [])
    rules = list(dict.fromkeys(cited + own))
    return {**notice_brief(notice), "rules": rules}


def _rule_names(_app, *, known: dict[str, dict]) -> dict[str, dict]:
    """A notice kind's rule (and its deadline's) named by the notice's title, with the
    section of the deadline in the city's rulebook (else the field rule's)."""
    rulebook = city.current().rulebook
    names: dict[str, dict] = {}
    for kind in KINDS.values():
        for rule_id in dict.fromkeys((kind.id, kind.deadline_rule)):
            try:
                section = rulebook.deadline(rule_id).get("section")
            except RulebookError:
                section = None
            fallback = names.get(rule_id, known.get(rule_id, {})).get("section")
            names[rule_id] = {"title": kind.title, "section": section or fallback}
    return names
