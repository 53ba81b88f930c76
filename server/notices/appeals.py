"""Appeals of a notice (§ 315-21H): filed in time or accepted late, decided, re-clocked.

* An appeal to the Utility Commission is due within 10 days of the notice's date
  (``APPEAL-10``, counted from the mailing day; when the certified letter came back
  refused or unclaimed, from the last substitute-service step, and never late while
  that service is incomplete); to the Common Council within 10 days
  after notification of the Commission's decision (``COUNCIL-APPEAL-10``, from the
  decision letter's service as its return receipt shows, else its mailing). Every
  written appeal is recorded with its filing date; a late one is flagged, and the
  body's decision says whether it heard it.
* The Commission decides within 30 days of receipt (``APPEAL-DECISION-30``): the desk
  shows the day and the daily tick reports decisions past it.
* The clerk records the decision with its meeting date. Overturned closes the notice
  and its cited violations (waived, the decision as the reason), so drafting does not
  issue them again; a later inspection finding the problem opens a new violation.
  Upheld or modified keeps it open: the owner's deadline is set again, counted from the
  decision letter (:mod:`server.notices.decisions`), never by redrafting.
"""

from __future__ import annotations

from datetime import date

from sqlalchemy import select

from server.core.errors import LateralError
from server.core.extensions import db
from server.notices.calendar import fmt
from server.notices.clock import deadline_rule, needs_street_opening, rulebook, today
from server.notices.election_calendar import deadline
from server.notices.models import DECISIONS, Notice, NoticeAppeal, NoticeViolation
from server.rules.models import Violation
from server.rules.violations import waive

RULES = {"commission": "APPEAL-10", "council": "COUNCIL-APPEAL-10"}


def appeals_of(notice: Notice) -> list[NoticeAppeal]:
    """The notice's appeals, first to last."""
    return list(db.session.scalars(select(NoticeAppeal).filter_by(notice_id=notice.id).order_by(NoticeAppeal.id)))


def pending_appeal(notice: Notice) -> NoticeAppeal | None:
    """The appeal not yet decided, if any."""
    return next((a for a in appeals_of(notice) if a.decision is None), None)


def notice_served_for_appeal(notice: Notice) -> date | None:
    """The day the Commission appeal's 10 days count from: the mailing day, or, when the
    certified letter came back refused or unclaimed (it did not serve the notice), the last
    substitute-service step; None while that service is incomplete (the 10 days have not
    started, so no appeal is late)."""
    if notice.delivery_event in ("refused", "unclaimed"):
        return notice.served_on
    return notice.mailed_on


def _next_level(notice: Notice) -> tuple[str, date | None]:
    """Which body the next appeal goes to, and the day its 10 days count from (None:
    not started yet)."""
    decided = [a for a in appeals_of(notice) if a.decision is not None]
    if notice.mailed_on is None:
        raise LateralError("not_mailed", f"notice {notice.id} has not been mailed; there is nothing to appeal yet")
    if not decided:
        return "commission", notice_served_for_appeal(notice)
    last = decided[-1]
    if last.level == "council":
        raise LateralError("no_further_appeal", f"notice {notice.id} was decided by the Common Council; "
                                                "§ 315-21H provides no further appeal")
    if last.letter_mailed_on is None:
        raise LateralError("decision_not_notified",
                           f"the Commission's decision on notice {notice.id} has not been mailed; the 10 days to "
                           "appeal to the Common Council run from its notification")
    return "council", last.letter_served_on or last.letter_mailed_on


def file_appeal(notice: Notice, data: dict, actor) -> NoticeAppeal:
    """Record a written appeal received on ``data["on"]`` (default today).

    Every written appeal is recorded with its filing date. One received after its 10
    days is flagged ``late`` (the owner's stated reason, if any, in ``late_reason``);
    whether to hear it is the body's to decide, and its decision says
    (:func:`record_decision`).

    Raises:
        LateralError: ``invalid_fields`` when it states no facts, or gives a late
            reason for an appeal in time; ``invalid_date``.
    """
    level, trigger = _next_level(notice)
    filed = data.get("on") or today()
    starts = trigger or notice.mailed_on
    if starts is not None and filed < starts:
        raise LateralError("invalid_date", f"{filed.isoformat()} is before {fmt(starts)}, "
                                           "the day the appeal period starts")
    if filed > today():
        raise LateralError("invalid_date", f"{filed.isoformat()} is in the future")
    facts = (data.get("note") or "").strip()
    if not facts:
        raise LateralError("invalid_fields", "a written appeal sets forth in detail the facts supporting it "
                           "(§ 315-21H): record them as the note", {"fields": {"note": ["required"]}})
    rb = rulebook()
    # Service not yet complete: the 10 days have not started, so the appeal is in time.
    due = deadline(RULES[level], trigger or filed, rb)
    late_reason = (data.get("late_reason") or "").strip() or None
    late = filed > due.date
    if not late and late_reason is not None:
        raise LateralError("invalid_fields",
                           f"the appeal is in time (due by {fmt(due.date)}); it needs no late reason",
                           {"fields": {"late_reason": ["only for an appeal filed after its 10 days"]}})
    decide_by = deadline("APPEAL-DECISION-30", filed, rb).date if level == "commission" else None
    appeal = NoticeAppeal(notice_id=notice.id, level=level, filed_on=filed, due_on=due.date, facts=facts,
                          late_reason=late_reason, late=late, decide_by=decide_by,
                          recorded_by_id=getattr(actor, "id", None))
    db.session.add(appeal)
    notice.appealed_on, notice.appeal_note = filed, facts
    return appeal


def record_decision(notice: Notice, data: dict, actor) -> NoticeAppeal:
    """Record the body's decision, made at the meeting of ``data["on"]``.

    ``note`` holds the terms (required when modified); ``days`` the period to comply
    the decision sets (required when modified, and when upheld if the rulebook's
    ``[appeals] upheld_period`` is ``decision``). The owner's deadline is cleared until
    the decision letter is mailed, from which it is counted again.
    """
    appeal = pending_appeal(notice)
    if appeal is None:
        raise LateralError("no_pending_appeal", f"notice {notice.id} has no appeal awaiting a decision")
    decision = data.get("decision")
    if decision not in DECISIONS:
        raise LateralError("invalid_fields", f"decision must be one of {', '.join(DECISIONS)}",
                           {"fields": {"decision": [f"one of {', '.join(DECISIONS)}"]}})
    on = data.get("on") or today()
    if on < appeal.filed_on or on > today():
        raise LateralError("invalid_date", f"the meeting of {on.isoformat()} is before the appeal was received "
                           f"({appeal.filed_on.isoformat()}) or in the future")
    terms, days = (data.get("note") or "").strip() or None, data.get("days")
    heard = data.get("heard")
    if appeal.late and heard is None:
        raise LateralError("invalid_fields", f"the appeal was received {fmt(appeal.filed_on)}, after its 10 days "
                           f"(due by {fmt(appeal.due_on)}): the decision says whether the appeal was heard",
                           {"fields": {"heard": ["required for a late appeal: true or false"]}})
    if not appeal.late and heard is False:
        raise LateralError("invalid_fields", "the appeal was filed in time; it is heard",
                           {"fields": {"heard": ["only for a late appeal"]}})
    if heard is False:
        if decision != "upheld":
            raise LateralError("invalid_fields", "an appeal not heard leaves the notice as it stands: record the "
                               "decision as upheld", {"fields": {"decision": ["upheld when the appeal is not heard"]}})
        appeal.heard = False
        appeal.decision, appeal.decided_on, appeal.decision_terms, appeal.comply_days = decision, on, terms, None
        appeal.decision_recorded_by_id = getattr(actor, "id", None)
        notice.decision, notice.decided_on, notice.decision_note = decision, on, terms
        notice.deadline_steps = [*(notice.deadline_steps or []),
                                 f"the late appeal was not heard by the {appeal.level} on {fmt(on)}: "
                                 "the notice's last day stands"]
        return appeal
    policy = upheld_policy(rulebook())[0] if decision == "upheld" else None
    appeal.heard = True if appeal.late else None
    needs_days = decision == "modified" or policy == "decision"
    if policy == "remaining_days" and notice.deadline is not None:
        # The days that remained on the notice when the appeal was received.
        days = max((notice.deadline - appeal.filed_on).days, 1)
    if decision == "modified" and not terms:
        raise LateralError("invalid_fields", "a modified decision states its new terms (the note)",
                           {"fields": {"note": ["required when modified"]}})
    if needs_days and days is None:
        raise LateralError("invalid_fields", f"the {decision} decision states the days the owner has to comply",
                           {"fields": {"days": ["required"]}})
    appeal.decision, appeal.decided_on, appeal.decision_terms = decision, on, terms
    appeal.comply_days = days if decision != "overturned" else None
    appeal.decision_recorded_by_id = getattr(actor, "id", None)
    notice.decision, notice.decided_on, notice.decision_note = decision, on, terms
    if decision == "overturned":
        close_overturned_violations(notice, appeal, actor)
    notice.deadline = None
    notice.deadline_steps = [f"appeal overturned by the {appeal.level} on {fmt(on)}: the notice is closed"
                             if decision == "overturned" else
                             f"appeal {decision} by the {appeal.level} on {fmt(on)}: the new last day is "
                             "counted from the mailing of the decision letter"]
    return appeal


BODIES = {"commission": "Utility Commission", "council": "Common Council"}
#: How an upheld notice's time to comply is set, counted from the decision letter: the
#: notice kind's whole period again, the days that remained when the appeal was received,
#: or the days the decision states. The ordinance says none; the Commission chooses.
UPHELD_PERIODS = ("notice_period", "remaining_days", "decision")


def upheld_policy(rb) -> tuple[str, str]:
    """The rulebook's ``[appeals] upheld_period`` and the Commission resolution that chose
    it (``upheld_period_resolution``, "" when none is named; ``flask doctor`` asks).

    Raises:
        LateralError: ``rulebook_choice_missing`` when the rulebook makes no express
            choice; ``rulebook_invalid`` for one not in :data:`UPHELD_PERIODS`.
    """
    section = rb.section("appeals")
    period = section.get("upheld_period")
    if period is None:
        raise LateralError("rulebook_choice_missing",
                           "the rulebook's [appeals] upheld_period is not set: § 315-21H does not say how long an "
                           "owner has after an upheld notice, so the Commission chooses by resolution "
                           f"({' or '.join(UPHELD_PERIODS[:2])}) and the rulebook names it",
                           {"setting": "[appeals] upheld_period", "choices": list(UPHELD_PERIODS)})
    if period not in UPHELD_PERIODS:
        raise LateralError("rulebook_invalid", f"[appeals] upheld_period = {period!r} is not one of "
                                               f"{', '.join(UPHELD_PERIODS)}")
    return period, str(section.get("upheld_period_resolution") or "").strip()


def upheld_period_sentence(rb, commission: str, days: int | None) -> str:
    """What the decision letter says of the time an upheld notice gives, and on whose choice."""
    period, resolution = upheld_policy(rb)
    under = f"Under {resolution}" if resolution else f"As the {commission} has decided"
    if period == "notice_period":
        return f"{under}, when a notice is upheld the full time the notice gave is counted again from this decision."
    if period == "remaining_days":
        return (f"{under}, when a notice is upheld you have the days that remained when your appeal was received"
                + (f" ({days} days)" if days else "") + ", counted from this decision.")
    return f"{under}, when a notice is upheld the decision states the days you have to comply."


def close_overturned_violations(notice: Notice, appeal: NoticeAppeal, actor) -> list[int]:
    """An overturned notice closes the matter: each open violation it cites is closed
    (waived) with the decision as the reason, so no routine draft issues it again. Only a
    later inspection that finds the problem again opens a new violation to notice."""
    closed = []
    reason = (f"Overturned on appeal: the {BODIES[appeal.level]} decided at its meeting of "
              f"{fmt(appeal.decided_on or today())} that notice {notice.id} is overturned (§ 315-21H); "
              "the matter is closed")
    ids = db.session.scalars(select(NoticeViolation.violation_id).filter_by(notice_id=notice.id)).all()
    for violation in db.session.scalars(select(Violation).where(Violation.id.in_(ids), Violation.status == "open")):
        waive(violation.id, reason, actor)
        closed.append(violation.id)
    return closed


def deadline_after_decision(notice: Notice, appeal: NoticeAppeal, served: date):
    """The owner's new deadline, counted from ``served`` (the decision letter's service):
    over the days the decision states, else the notice kind's own period."""
    rb = rulebook()
    return deadline(deadline_rule(notice.kind), served, rb, days=appeal.comply_days,
                    street_opening=needs_street_opening(notice, rb))


def decision_overdue(appeal: NoticeAppeal, on: date) -> bool:
    """The body has not decided and its days to decide are past."""
    return appeal.decision is None and appeal.decide_by is not None and appeal.decide_by < on
