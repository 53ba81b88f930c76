"""The election calendar the clerk keeps, and the legal calendar deadlines count on.

§ 995.20's partisan primary and general election are computed; special elections are
recorded here by the clerk as they are ordered, with the day the calendar has been
checked through (see :mod:`server.notices.models`). :func:`legal_calendar` joins the
two with the rulebook's own list; :func:`deadline` is the one way the server computes
a deadline, and turns "the calendar is not checked that far" into a 422.
"""

from __future__ import annotations

from datetime import date

from sqlalchemy import select

from gis.rulebook import Rulebook
from server.core import city
from server.core.access.roles import MAILROOM
from server.core.audit import trail as audit
from server.core.errors import LateralError  # services raise the plain error; the kernel sits above them
from server.core.extensions import db
from server.notices.calendar import Deadline, ElectionCalendarUnchecked, FrozenSeason, LegalCalendar, deadline_for, fmt
from server.notices.models import ElectionCalendarEntry

#: Who keeps the election calendar: the clerk (and the administrator).
KEEPERS = MAILROOM


def _rulebook() -> Rulebook:
    return city.current().rulebook


def legal_calendar(rb: Rulebook | None = None) -> LegalCalendar:
    """The rulebook's calendar with the clerk's special elections and checked-through day.

    The latest ``checked_through`` the clerk recorded replaces the rulebook's.
    """
    rows = db.session.scalars(select(ElectionCalendarEntry).order_by(ElectionCalendarEntry.id)).all()
    specials = tuple(r.day for r in rows if r.kind == "special_election")
    checks = [r.day for r in rows if r.kind == "checked_through"]
    return LegalCalendar.from_rulebook(rb or _rulebook(), specials, checks[-1] if checks else None)


def deadline(rule_id: str, served: date, rb: Rulebook | None = None, days: int | None = None,
             street_opening: bool = False) -> Deadline:
    """:func:`~server.notices.calendar.deadline_for` on :func:`legal_calendar`.

    ``street_opening``: the work needs a street opening, so the rulebook's frozen-ground
    season is not counted (§ 315-13A(3)).

    Raises:
        LateralError: ``election_calendar_unchecked`` when the last day lies past the
            day the clerk has checked the election calendar through.
    """
    rb = rb or _rulebook()
    try:
        frozen = FrozenSeason.from_rulebook(rb) if street_opening else None
        return deadline_for(rule_id, served, rb, legal_calendar(rb), days=days, frozen=frozen)
    except ElectionCalendarUnchecked as exc:
        raise LateralError("election_calendar_unchecked", str(exc), {
            "rule": rule_id, "served": served.isoformat(), "last_day": exc.last_day.isoformat(),
            "checked_through": exc.checked_through.isoformat() if exc.checked_through else None,
        }) from None


def _check_role(actor) -> None:
    role = getattr(actor, "role", None)
    if role not in KEEPERS:
        raise LateralError("forbidden", "the election calendar is kept by the clerk",
                           {"your_role": role})


def record_special_election(day: date, name: str, actor) -> ElectionCalendarEntry:
    """Record a special election the clerk learned of (a legal holiday, § 995.20)."""
    _check_role(actor)
    if not name or not name.strip():
        raise LateralError("invalid_fields", "name the special election (who ordered it, for what office)",
                           {"fields": {"name": ["required"]}})
    return _add("special_election", day, name.strip(), actor)


def record_checked_through(day: date, actor) -> ElectionCalendarEntry:
    """Record that no special election other than those recorded falls on or before ``day``."""
    _check_role(actor)
    return _add("checked_through", day, None, actor)


def _add(kind: str, day: date, name: str | None, actor) -> ElectionCalendarEntry:
    entry = ElectionCalendarEntry(kind=kind, day=day, name=name, recorded_by_id=getattr(actor, "id", None))
    db.session.add(entry)
    db.session.flush()
    audit.record(f"record_{kind}", "election_calendar", entry.id, None,
                 {"kind": kind, "day": day.isoformat(), "name": name}, actor)
    return entry


def describe() -> list[str]:
    """The calendar as the clerk reads it: special elections and the checked-through day."""
    cal = legal_calendar()
    lines = [f"special election {fmt(d)}" for d in cal.special_days]
    through = cal.checked_through
    lines.append(f"checked through {fmt(through)}" if through else "not checked for special elections")
    return lines
