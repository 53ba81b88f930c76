"""Closing what a later inspection disproves: violations resolved, notices complied.

An inspection's failing answers open violations (:mod:`server.field.inspections`);
a later inspection of the parcel can show the breach gone (docs/sync.md, "Resolution"):

* a clear-water survey that was let in ends the refusal of access (Art. I (1976);
  § 315-12F): the parcel's ``SURVEY-ACCESS`` is resolved, whatever the survey found;
* a passing ``reinspection`` shows the rule it names corrected (§ 315-13D for clear
  water, § 315-21B(1) in general): that rule's violations on the parcel are resolved,
  and, when it names the notice's own rule, every violation of that notice.

Only violations opened by inspections are resolved here; the rules engine resolves its
own when the map no longer shows them (docs/rules.md). Tablets sync late and out of
order, so a violation is resolved only by an inspection finished after every standing
inspection that saw it (one not replaced by a correction), and it names that inspection.
A notice whose violations are then all resolved or waived is complied through the
notice workflow. Everything is written in the caller's transaction.

Two pushes may read the same violation open at once; on PostgreSQL the second to write
finds its version counter moved on (``StaleDataError`` at the flush) and the push asks
the tablet to send the record again (:func:`server.field.sync.push_record`).
"""

from __future__ import annotations

from collections import defaultdict
from datetime import date

from sqlalchemy import select

from server.core.audit import trail as audit
from server.core.extensions import db
from server.core.models import as_utc, utcnow
from server.field.models import Inspection
from server.notices import reinspections
from server.notices.clock import city_day, today
from server.notices.models import Notice, NoticeViolation
from server.notices.tick import violations_cleared
from server.notices.workflow import TRANSITIONS, apply_event
from server.rules.models import Violation

ACCESS_RULE = "SURVEY-ACCESS"
SURVEY = "clear-water-survey"  # server/field/checklists/clear-water-survey.json


def disproved_rules(inspection: Inspection) -> set[str]:
    """The rules whose breach ``inspection`` shows gone on its parcel."""
    if inspection.template_id == SURVEY and (inspection.answers or {}).get("access") == "granted":
        return {ACCESS_RULE}
    named = reinspections.named_rule(inspection)
    if named and inspection.result == "pass":
        return {named}
    return set()


def settle(inspection: Inspection, observed_on: date, actor) -> list[int]:
    """Resolve the open violations ``inspection`` disproves, and those it saw that a later
    inspection already disproved; comply the notices left with nothing open.

    Args:
        inspection: Just stored and evaluated (its ``violation_ids`` set).
        observed_on: The inspection's day on the city's calendar (``notices.city_day``).
        actor: Who pushed it; the audit rows and the notice events are theirs.

    Returns:
        The ids of the violations ``inspection`` resolved itself, in id order.
    """
    if inspection.parcel_id is None:
        return []
    open_rows = _open_violations(inspection.parcel_id)
    cited = _notice_rules([v.id for v in open_rows])
    seen = set(inspection.violation_ids or [])
    touched = [v for v in open_rows if v.id in seen or _disproves(inspection, v, cited[v.id])]
    if not touched:
        return []
    visits = _standing_visits(inspection.parcel_id)
    resolved: dict[int, tuple[Inspection, date]] = {}
    for violation in touched:
        by = _first_disproof(violation, visits, cited[violation.id])
        if by is not None:
            _resolve(violation, by, actor)
            day = observed_on if by is inspection else city_day(by.finished_at)
            resolved[violation.id] = (by, day)
    _comply_notices(resolved, actor)
    return sorted(vid for vid, (by, _) in resolved.items() if by is inspection)


def _open_violations(parcel_id: int) -> list[Violation]:
    return list(db.session.scalars(
        select(Violation).where(Violation.parcel_id == parcel_id, Violation.status == "open",
                                Violation.source == "inspection").order_by(Violation.id)))


def _standing_visits(parcel_id: int) -> list[Inspection]:
    """The parcel's inspections not replaced by a correction, oldest first."""
    replaced = select(Inspection.replaces_id).where(Inspection.replaces_id.is_not(None))
    rows = db.session.scalars(select(Inspection).where(Inspection.parcel_id == parcel_id,
                                                       Inspection.id.not_in(replaced)))
    return sorted(rows, key=lambda i: (as_utc(i.finished_at), i.id))


def _notice_rules(violation_ids: list[int]) -> dict[int, set[str]]:
    """For each violation, the own rules of the open notice citing it (none: empty)."""
    out: dict[int, set[str]] = defaultdict(set)
    rows = db.session.execute(
        select(NoticeViolation.violation_id, Notice.kind).join(Notice, Notice.id == NoticeViolation.notice_id)
        .where(NoticeViolation.violation_id.in_(violation_ids), NoticeViolation.closed.is_(False)))
    for violation_id, kind in rows:
        out[violation_id] |= reinspections.own_rules(kind)
    return out


def _disproves(inspection: Inspection, violation: Violation, notice_rules: set[str]) -> bool:
    rules = disproved_rules(inspection)
    if violation.rule_id in rules:
        return True
    # A reinspection naming the notice's own rule (CORRECTION for a general notice)
    # checked everything that notice cites.
    return inspection.template_id == reinspections.TEMPLATE and bool(rules & notice_rules)


def _first_disproof(violation: Violation, visits: list[Inspection], notice_rules: set[str]) -> Inspection | None:
    """The first standing inspection that disproves ``violation`` after the last one that saw it,
    made by someone it counts from (:func:`reinspections.on_assignment`)."""
    seen = [as_utc(i.finished_at) for i in visits if violation.id in (i.violation_ids or [])]
    last_seen = max(seen, default=None)
    return next((i for i in visits
                 if (last_seen is None or as_utc(i.finished_at) > last_seen)
                 and _disproves(i, violation, notice_rules) and reinspections.on_assignment(i)), None)


def _resolve(violation: Violation, by: Inspection, actor) -> None:
    violation.status, violation.resolved_at, violation.resolved_by_inspection_id = "resolved", utcnow(), by.id
    db.session.flush()
    audit.record("resolve", "violation", violation.id, {"status": "open"},
                 {"status": "resolved", "key": violation.key, "inspection": by.uuid,
                  "template": by.template_id}, actor)


def _comply_notices(resolved: dict[int, tuple[Inspection, date]], actor) -> None:
    """Comply each open notice citing a resolved violation once none of its violations is
    open, on the day of the last inspection that resolved one.

    A notice not yet mailed, or under appeal, is left to the desk: the workflow has no
    ``comply`` from there (docs/notices.md).
    """
    if not resolved:
        return
    links = db.session.execute(
        select(NoticeViolation.notice_id, NoticeViolation.violation_id)
        .where(NoticeViolation.violation_id.in_(list(resolved)), NoticeViolation.closed.is_(False))).all()
    by_notice: dict[int, list[tuple[Inspection, date]]] = defaultdict(list)
    for notice_id, violation_id in links:
        by_notice[notice_id].append(resolved[violation_id])
    for notice_id in sorted(by_notice):
        notice = db.session.get(Notice, notice_id)
        if (notice.state, "comply") not in TRANSITIONS or not violations_cleared(notice):
            continue
        by, day = max(by_notice[notice_id], key=lambda pair: (pair[1], pair[0].id))
        apply_event(notice, "comply", actor, on=min(day, today()),
                                   reason=f"resolved by inspection {by.id}", evidence=by)
