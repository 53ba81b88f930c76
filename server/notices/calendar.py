"""The legal calendar: Wisconsin day counting and legal holidays.

Wis. Stat. § 990.001(4) says how a period of days is counted: the day of the
triggering event (service of the notice) is excluded, the last day is included,
and a last day that falls on a Sunday or a legal holiday moves to the next
secular day (neither a Sunday nor a legal holiday). Saturdays count, and a
Saturday last day stays put, unless the (4)(c) closed-office rule is switched on.

Legal holidays are those of Wis. Stat. § 995.20, computed here from the statute's
words; election days come from the rulebook (``calendar.election_days``) because
the clerk confirms them each year.

Two choices a clerk may be asked to defend, made in the owner's favour:

* A holiday on a **Sunday** is also observed on the following **Monday**, which is
  then treated as a legal holiday ("a Sunday holiday moves to Monday").
* A holiday on a **Saturday** stays on that Saturday and is *not* moved to the
  Friday before. § 995.20 names dates, not observances; moving it to Friday is the
  federal/state-employee rule (§ 230.35), which would make a Friday last day roll
  and the Saturday count as an ordinary day. Keeping it on the Saturday means a last
  day on that Saturday rolls forward to the next secular day (Monday, usually).
"""

from __future__ import annotations

import calendar as _cal
from dataclasses import dataclass, field
from datetime import date, timedelta
from functools import lru_cache
from typing import Any

from gis.rulebook import Rulebook, load_rulebook

COUNTING = "§ 990.001(4)(a)"
ROLLING = "§ 990.001(4)(b)"
SATURDAY_RULE = "§ 990.001(4)(c)"

MON, THU, SAT, SUN = 0, 3, 5, 6


@dataclass(frozen=True)
class Deadline:
    """The last day to act on a notice, and how it was computed.

    Attributes:
        date: the last day on which the owner may act.
        rule_id: the notice kind, e.g. ``CW-DISCONNECT-60``.
        section: the ordinance section that sets the period.
        days: the period in days.
        served: the day of service (not counted).
        steps: the computation in words, one sentence each, for a clerk at a hearing.
    """

    date: date
    rule_id: str
    section: str
    days: int
    served: date
    steps: list[str] = field(default_factory=list)

    def explanation(self) -> str:
        """The steps as one paragraph."""
        return "; ".join(self.steps) + "."


def fmt(d: date) -> str:
    """``Thu 2026-09-24``: weekday and ISO date, unambiguous on paper."""
    return f"{d:%a} {d.isoformat()}"


def nth_weekday(year: int, month: int, weekday: int, n: int) -> date:
    """The n-th (1-based) given weekday of a month; ``n=-1`` is the last one."""
    if n > 0:
        first = date(year, month, 1)
        return first + timedelta(days=(weekday - first.weekday()) % 7 + 7 * (n - 1))
    last = date(year, month, _cal.monthrange(year, month)[1])
    return last - timedelta(days=(last.weekday() - weekday) % 7)


def statutory_holidays(year: int) -> dict[date, str]:
    """The fixed and weekday holidays of Wis. Stat. § 995.20 in one year (no elections)."""
    return {
        date(year, 1, 1): "New Year's Day",
        nth_weekday(year, 1, MON, 3): "Martin Luther King, Jr. Day",
        nth_weekday(year, 2, MON, 3): "Washington-Lincoln Day",
        nth_weekday(year, 5, MON, -1): "Memorial Day",
        date(year, 6, 19): "Juneteenth",
        date(year, 7, 4): "Independence Day",
        nth_weekday(year, 9, MON, 1): "Labor Day",
        nth_weekday(year, 10, MON, 2): "Columbus Day",
        date(year, 11, 11): "Veterans Day",
        nth_weekday(year, 11, THU, 4): "Thanksgiving Day",
        date(year, 12, 25): "Christmas Day",
    }


@lru_cache(maxsize=64)
def _legal_holidays(year: int, election_days: tuple[date, ...]) -> dict[date, str]:
    days = statutory_holidays(year)
    for d in election_days:
        if d.year == year:
            days[d] = "Election Day (primary)" if d.month < 11 else "Election Day (general)"
    observed = {}
    for d, name in days.items():
        if d.weekday() == SUN:
            monday = d + timedelta(days=1)
            observed[monday] = f"{name}, observed on Monday for a Sunday holiday"
    for d, name in observed.items():
        days.setdefault(d, name)
    return dict(sorted(days.items()))


def election_days_of(rulebook: Rulebook) -> tuple[date, ...]:
    """The election days the rulebook lists (``calendar.election_days``)."""
    return tuple(date.fromisoformat(s) for s in rulebook.section("calendar").get("election_days", []))


def legal_holidays(year: int, election_days: tuple[date, ...] = ()) -> dict[date, str]:
    """Every legal holiday of one year, with its name, including observed Mondays.

    Args:
        year: calendar year.
        election_days: primary and general election dates (§ 995.20 makes them
            legal holidays); usually ``election_days_of(rulebook)``.
    """
    return dict(_legal_holidays(year, tuple(sorted(election_days))))


class LegalCalendar:
    """Sundays, legal holidays and (optionally) Saturdays of one municipality.

    Args:
        election_days: dates from the rulebook.
        saturday_office_closed: apply § 990.001(4)(c): a last day on a Saturday moves
            to the next secular day, for an act done at an office with no Saturday
            hours. Off by default, because the ordinance's periods are for the owner
            to act (disconnect, connect, appeal by letter), and Saturdays count.
    """

    def __init__(self, election_days: tuple[date, ...] = (), saturday_office_closed: bool = False):
        self.election_days = tuple(sorted(election_days))
        self.saturday_office_closed = saturday_office_closed

    @classmethod
    def from_rulebook(cls, rulebook: Rulebook | None = None) -> LegalCalendar:
        rulebook = rulebook or load_rulebook()
        cfg = rulebook.section("calendar")
        return cls(election_days_of(rulebook), bool(cfg.get("saturday_office_closed", False)))

    def holiday(self, d: date) -> str | None:
        """The legal holiday's name on that day, or None."""
        return _legal_holidays(d.year, self.election_days).get(d)

    def why_not_secular(self, d: date) -> str | None:
        """Why ``d`` cannot be a last day, or None when it can."""
        name = self.holiday(d)
        if d.weekday() == SUN:
            return "a Sunday" + (f" ({name})" if name else "")
        if name:
            return f"a legal holiday ({name}, § 995.20)"
        if d.weekday() == SAT and self.saturday_office_closed:
            return f"a Saturday and the office is closed on Saturdays ({SATURDAY_RULE})"
        return None

    def is_secular_day(self, d: date) -> bool:
        return self.why_not_secular(d) is None

    def last_day(self, served: date, days: int) -> tuple[date, list[str]]:
        """Count ``days`` from ``served`` under § 990.001(4); return the date and the steps."""
        steps = [
            f"served {fmt(served)} (day of service not counted, {COUNTING}); "
            f"day 1 is {fmt(served + timedelta(days=1))}"
        ]
        d = served + timedelta(days=days)
        steps.append(f"+ {days} days = {fmt(d)} (last day counted, {COUNTING})")
        reason = self.why_not_secular(d)
        while reason:
            nxt = d + timedelta(days=1)
            steps.append(
                f"{fmt(d)} is {reason}, so the last day moves to the next secular day, "
                f"{fmt(nxt)} ({ROLLING})"
            )
            d, reason = nxt, self.why_not_secular(nxt)
        if len(steps) == 2:
            if d.weekday() == SAT:
                steps.append(
                    f"{fmt(d)} is a Saturday, and Saturdays count "
                    f"({SATURDAY_RULE} closed-office rule not applied); no legal holiday"
                )
            else:
                steps.append(f"{fmt(d)} is neither a Sunday nor a legal holiday")
        steps.append(f"deadline: {fmt(d)}")
        return d, steps


def deadline_for(
    rule_id: str,
    served: date,
    rulebook: Rulebook | None = None,
    legal_calendar: LegalCalendar | None = None,
) -> Deadline:
    """The last day to comply with a notice of kind ``rule_id`` served on ``served``.

    The period and section come from the rulebook's ``[deadlines.<rule_id>]``; the
    counting is Wis. Stat. § 990.001(4) (see the module docstring).

    Args:
        rule_id: notice kind, e.g. ``"CW-DISCONNECT-60"`` (§ 315-13D, 60 days).
        served: the day the notice was served (delivered, or the fallback day).
        rulebook: defaults to ``load_rulebook()``.
        legal_calendar: defaults to the rulebook's calendar.

    Raises:
        gis.rulebook.RulebookError: the rulebook has no such deadline.
        ValueError: the deadline has no whole number of days.
    """
    rulebook = rulebook or load_rulebook()
    cfg: dict[str, Any] = rulebook.deadline(rule_id)
    days = cfg.get("days")
    if not isinstance(days, int) or days < 0:
        raise ValueError(f"deadline {rule_id!r} has no whole number of days: {days!r}")
    cal = legal_calendar or LegalCalendar.from_rulebook(rulebook)
    last, steps = cal.last_day(served, days)
    return Deadline(
        date=last, rule_id=rule_id, section=str(cfg.get("section", "")), days=days,
        served=served, steps=steps,
    )
