"""The notice clock: the city's day, the deadline a letter prints and the one in force.

A notice's deadline counts from the day it is served (``[calendar] clock_starts`` in the
rulebook: the mailing day, or the delivery day on the return receipt) under Wis. Stat.
§ 990.001(4), computed on the clerk's election calendar
(:func:`server.notices.election_calendar.deadline`). A per-day
penalty (§ 315-11D) accrues from the day after the deadline.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from decimal import Decimal

from sqlalchemy import select

from gis.rulebook import Rulebook
from server.core import city
from server.core.extensions import db
from server.core.models import utcnow
from server.notices.calendar import FrozenSeason, fmt
from server.notices.election_calendar import deadline as deadline_for
from server.notices.kinds import notice_kind
from server.notices.models import Notice, NoticeViolation
from server.notices.service_of_notice import substitute_service
from server.rules.models import Violation


def rulebook() -> Rulebook:
    """The rulebook of the app's city (``server.core.city``)."""
    return city.current().rulebook


def today() -> date:
    """Today on the city's calendar (the rulebook's ``time_zone``), not the server's."""
    return city.current().today(utcnow())


def city_day(moment: datetime) -> date:
    """The city's calendar day of ``moment``: the day an inspection was made or a
    violation closed, as the ordinance counts days. A naive value is UTC (SQLite hands
    those back)."""
    return city.current().day_of(moment)


def deadline_rule(kind: str) -> str:
    return notice_kind(kind).deadline_rule


def assumed_service_day(mailed_on: date, rb: Rulebook) -> date:
    """The day the letter's printed deadline counts from.

    With ``clock_starts = "mailing"`` it is the mailing day. With ``"delivery"`` the
    day of delivery is unknown when the letter is printed, so the letter counts from
    mailing + ``undelivered_fallback_days`` (the day refused or unclaimed mail is
    served); a later delivery only moves the deadline later (:func:`start_clock`).
    """
    cal = rb.section("calendar")
    if cal.get("clock_starts", "delivery") == "mailing":
        return mailed_on
    return mailed_on + timedelta(days=int(cal.get("undelivered_fallback_days", 0)))


def needs_street_opening(notice: Notice, rb: Rulebook) -> bool:
    """Whether correcting what the notice cites needs a street opening: the notice is of a
    kind in ``[frozen_ground] street_opening_kinds`` (connecting to the sewer), or it
    cites a violation of a rule in ``street_opening_rules`` (a re-tap, a lateral
    replacement)."""
    frozen = rb.section("frozen_ground")
    if notice.kind in frozen.get("street_opening_kinds", []):
        return True
    rules = frozen.get("street_opening_rules", [])
    if not rules or notice.id is None:
        return False
    return db.session.scalar(select(Violation.id).join(NoticeViolation, NoticeViolation.violation_id == Violation.id)
                             .where(NoticeViolation.notice_id == notice.id, Violation.rule_id.in_(rules))
                             .limit(1)) is not None


def printed_deadline(notice: Notice, mailed_on: date, rb: Rulebook):
    """The deadline the letter prints, as a :class:`~server.notices.calendar.Deadline`."""
    return deadline_for(deadline_rule(notice.kind), assumed_service_day(mailed_on, rb), rb,
                        street_opening=needs_street_opening(notice, rb))


def start_clock(notice: Notice, rb: Rulebook, source: str | None = None) -> None:
    """Set ``served_on``, ``deadline`` and its steps from the event that starts the clock.

    ``[calendar] clock_starts``: ``mailing`` counts from the mailing day; ``delivery``
    from the delivery date on the return receipt (or, ``source="usps_tracking"``, as
    USPS tracking shows it). Refused or unclaimed mail starts no clock until the
    substitute service is complete, then from its last step
    (:mod:`server.notices.service_of_notice`). The deadline in force is
    never earlier than the one printed on the letter.
    """
    cal = rb.section("calendar")
    notice.clock_starts = cal.get("clock_starts", "delivery")
    if notice.clock_starts == "mailing":
        served, why = notice.mailed_on, f"clock starts on mailing, {fmt(notice.mailed_on)}"
    elif notice.delivery_event == "delivered":
        per = "USPS tracking" if source == "usps_tracking" else "the return receipt"
        served, why = notice.delivery_event_on, f"clock starts on delivery per {per}, {fmt(notice.delivery_event_on)}"
    elif notice.delivery_event in ("refused", "unclaimed"):
        served, words = substitute_service(notice, rb)
        if served is None:
            notice.served_on, notice.deadline, notice.deadline_steps = None, None, words
            return
        why = "; ".join(words)
    else:
        return  # delivery clock, no return receipt yet
    d = deadline_for(deadline_rule(notice.kind), served, rb, street_opening=needs_street_opening(notice, rb))
    steps = [why, *d.steps]
    if notice.deadline_printed and notice.deadline_printed > d.date:
        steps.append(f"the letter printed {fmt(notice.deadline_printed)}, which is later, so it applies")
    notice.served_on = served
    notice.deadline = max(d.date, notice.deadline_printed or d.date)
    notice.deadline_steps = steps


def accrue_penalty(notice: Notice, through: date) -> None:
    """Per-day penalty from the day after the deadline through ``through`` (§ 315-11D).

    When the correction needs a street opening (:func:`needs_street_opening`), the days
    of the frozen-ground season (§ 315-13A(3)) do not accrue: the work cannot be done.
    """
    if notice.penalty_per_day is None or notice.deadline is None:
        return
    rb = rulebook()
    season = FrozenSeason.from_rulebook(rb) if needs_street_opening(notice, rb) else None
    days = sum(1 for n in range(1, (through - notice.deadline).days + 1)
               if season is None or not season.contains(notice.deadline + timedelta(days=n)))
    notice.penalty_accrued = (notice.penalty_per_day * days).quantize(Decimal("0.01"))
    notice.penalty_through = through
