"""The legal calendar: Wisconsin day counting and legal holidays.

Wis. Stat. § 990.001(4) says how a period of days is counted: the day of the
triggering event (service of the notice) is excluded, the last day is included,
and a last day that falls on a Sunday or a legal holiday moves to the next
secular day (neither a Sunday nor a legal holiday). Saturdays count.

Two further rules apply only to some acts, so they are set **per deadline** in the
rulebook (``[deadlines.<id>]``), and each deadline's steps say whether they applied:

* ``saturday_office_closed`` — § 990.001(4)(c): a last day on a Saturday moves to the
  next secular day when the act is a filing, payment or service at a state or local
  office that is not open on Saturdays (an appeal filed with the Utility Commission,
  the appeal to the Common Council). Off for what the owner does on their own
  property (disconnect a downspout, connect to the main).
* ``mail_holidays`` — for an act that may be done by mail, a federal holiday on which
  the Postal Service does not deliver counts as a legal holiday (the reference notes,
  ``legal-and-standards.md`` § 1). The federal days are those of 5 U.S.C. § 6103(a),
  on the day they are observed (a Saturday holiday on the Friday before, a Sunday one
  on the Monday after), which is when mail is not delivered.

Legal holidays are those of Wis. Stat. § 995.20, computed here from the statute's
words. Its two election days are computed too, from the election statutes:

* the **general election**: the Tuesday after the first Monday in November of each
  even-numbered year (§ 5.02(5));
* the **partisan primary**: the second Tuesday in August of each even-numbered year
  (§ 5.02(12s), since 2011 Act 75 moved it from September; § 995.20 as amended by that
  Act names the partisan primary). Computed for 2012 onwards.

The spring primary (third Tuesday in February) and spring election (first Tuesday in
April, § 5.02(21)) are **not** § 995.20 legal holidays (municipal election days are
holidays only in 1st class cities, which Arcadia is not), so they do not move a
deadline. A **special** primary or election (§ 8.50) is ordered when a vacancy occurs:
its date cannot be computed, and a special partisan primary may be a "day of holding
the partisan primary". So the clerk records special election days as they are ordered,
and records how far ahead the calendar has been checked (``checked_through``). A last
day beyond that date is refused (:class:`ElectionCalendarUnchecked`) rather than printed
on a guess.

Two choices a clerk may be asked to defend, made in the owner's favour:

* A holiday on a **Sunday** is also observed on the following **Monday**, which is
  then treated as a legal holiday ("a Sunday holiday moves to Monday").
* A holiday on a **Saturday** stays on that Saturday and is *not* moved to the
  Friday before. § 995.20 names dates, not observances; moving it to Friday is the
  federal/state-employee rule (§ 230.35). The Friday before counts as a holiday only
  under the ``mail_holidays`` rule, for an act that may be done by mail.
"""

from __future__ import annotations

import calendar as _cal
from dataclasses import dataclass, field, replace
from datetime import date, timedelta
from functools import lru_cache
from typing import Any

from gis.rulebook import FrozenSeason, Rulebook

COUNTING = "§ 990.001(4)(a)"
ROLLING = "§ 990.001(4)(b)"
SATURDAY_RULE = "§ 990.001(4)(c)"
FEDERAL_HOLIDAYS = "5 U.S.C. § 6103(a)"
FIRST_PARTISAN_PRIMARY_IN_AUGUST = 2012

MON, TUE, THU, FRI, SAT, SUN = 0, 1, 3, 4, 5, 6


class ElectionCalendarUnchecked(ValueError):
    """A last day falls after the day through which the clerk has checked for special
    elections: it might be one (a legal holiday), so no deadline is printed."""

    def __init__(self, last_day: date, checked_through: date | None):
        self.last_day = last_day
        self.checked_through = checked_through
        through = checked_through.isoformat() if checked_through else "no date yet"
        super().__init__(
            f"the last day would be {fmt(last_day)}, but special elections have been checked "
            f"only through {through}; a special election that day would be a legal holiday "
            f"(§ 995.20). The clerk records any special election ordered and the day the "
            f"calendar is checked through (flask calendar special-election / checked-through)")


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


def general_election(year: int) -> date | None:
    """The November general election (§ 5.02(5)): the Tuesday after the first Monday
    in November of an even-numbered year; None in odd years."""
    if year % 2:
        return None
    return nth_weekday(year, 11, MON, 1) + timedelta(days=1)


def partisan_primary(year: int) -> date | None:
    """The partisan primary (§ 5.02(12s)): the second Tuesday in August of an
    even-numbered year, from 2012; None otherwise."""
    if year % 2 or year < FIRST_PARTISAN_PRIMARY_IN_AUGUST:
        return None
    return nth_weekday(year, 8, TUE, 2)


def election_holidays(year: int) -> dict[date, str]:
    """The § 995.20 election days of one year that the statutes fix."""
    out = {}
    if (d := partisan_primary(year)) is not None:
        out[d] = "Election Day (partisan primary, § 5.02(12s))"
    if (d := general_election(year)) is not None:
        out[d] = "Election Day (general election, § 5.02(5))"
    return out


def federal_no_mail_days(year: int) -> dict[date, str]:
    """Federal holidays (5 U.S.C. § 6103(a)) on the day they are observed in ``year``,
    when the Postal Service does not deliver: Saturday holidays on the Friday before,
    Sunday holidays on the Monday after. New Year's Day of the next year may be
    observed on Dec 31."""
    out = {}
    for y in (year, year + 1):
        for d, name in statutory_holidays(y).items():
            observed = d - timedelta(days=1) if d.weekday() == SAT else (
                d + timedelta(days=1) if d.weekday() == SUN else d)
            if observed.year == year:
                out[observed] = f"{name}, federal holiday observed {observed:%a %Y-%m-%d}, no mail delivery"
    return out


@lru_cache(maxsize=64)
def _legal_holidays(year: int, special_days: tuple[date, ...]) -> dict[date, str]:
    days = statutory_holidays(year)
    days.update(election_holidays(year))
    for d in special_days:
        if d.year == year:
            days.setdefault(d, "Election Day (special election recorded by the clerk)")
    observed = {}
    for d, name in days.items():
        if d.weekday() == SUN:
            monday = d + timedelta(days=1)
            observed[monday] = f"{name}, observed on Monday for a Sunday holiday"
    for d, name in observed.items():
        days.setdefault(d, name)
    return dict(sorted(days.items()))


def special_election_days_of(rulebook: Rulebook) -> tuple[date, ...]:
    """Special election days the rulebook lists (``calendar.special_election_days``)."""
    return tuple(date.fromisoformat(s) for s in rulebook.section("calendar").get("special_election_days", []))


def checked_through_of(rulebook: Rulebook) -> date | None:
    """The day through which the rulebook's special elections are known
    (``calendar.special_elections_checked_through``); None when not set."""
    value = rulebook.section("calendar").get("special_elections_checked_through")
    if value is None:
        return None
    return value if isinstance(value, date) else date.fromisoformat(str(value))


def legal_holidays(year: int, special_days: tuple[date, ...] = ()) -> dict[date, str]:
    """Every legal holiday of one year, with its name, including observed Mondays.

    Args:
        year: calendar year.
        special_days: special election days the clerk recorded; the partisan primary
            and general election are computed.
    """
    return dict(_legal_holidays(year, tuple(sorted(special_days))))


@dataclass(frozen=True)
class LegalCalendar:
    """Sundays, legal holidays and the per-rule extras of one municipality.

    Attributes:
        special_days: special election days recorded by the clerk (legal holidays).
        checked_through: the clerk has checked for special elections through this day;
            a last day after it is refused. None: no limit (tests, previews).
        saturday_office_closed: apply § 990.001(4)(c) (a Saturday last day moves on).
        mail_holidays: treat federal holidays without mail delivery as legal holidays.
    """

    special_days: tuple[date, ...] = ()
    checked_through: date | None = None
    saturday_office_closed: bool = False
    mail_holidays: bool = False

    @classmethod
    def from_rulebook(cls, rulebook: Rulebook, special_days: tuple[date, ...] = (),
                      checked_through: date | None = None) -> LegalCalendar:
        """The rulebook's calendar, plus the special days and the checked-through day the
        clerk recorded in the database (the server passes them); the clerk's
        checked-through day, when given, replaces the rulebook's."""
        return cls(tuple(sorted({*special_election_days_of(rulebook), *special_days})),
                   checked_through or checked_through_of(rulebook))

    def for_rule(self, cfg: dict[str, Any]) -> LegalCalendar:
        """This calendar with one deadline's ``saturday_office_closed`` and
        ``mail_holidays`` settings."""
        return replace(self, saturday_office_closed=bool(cfg.get("saturday_office_closed", False)),
                       mail_holidays=bool(cfg.get("mail_holidays", False)))

    def holiday(self, d: date) -> str | None:
        """The legal holiday's name on that day, or None."""
        return _legal_holidays(d.year, tuple(sorted(self.special_days))).get(d)

    def why_not_secular(self, d: date) -> str | None:
        """Why ``d`` cannot be a last day, or None when it can."""
        name = self.holiday(d)
        if d.weekday() == SUN:
            return "a Sunday" + (f" ({name})" if name else "")
        if name:
            return f"a legal holiday ({name}, § 995.20)"
        if self.mail_holidays and (federal := federal_no_mail_days(d.year).get(d)):
            return (f"a federal holiday without mail delivery ({federal}, {FEDERAL_HOLIDAYS}), "
                    "a legal holiday for an act that may be done by mail")
        if d.weekday() == SAT and self.saturday_office_closed:
            return f"a Saturday and the office is not open on Saturdays ({SATURDAY_RULE})"
        return None

    def is_secular_day(self, d: date) -> bool:
        return self.why_not_secular(d) is None

    def rules_applied(self) -> str:
        """One sentence: which of the per-rule extras this count applied."""
        sat = (f"{SATURDAY_RULE} applies (a filing with a city office that is not open on Saturdays)"
               if self.saturday_office_closed else
               f"{SATURDAY_RULE} does not apply (not an act at a government office), so Saturdays count")
        mail = ("federal holidays without mail delivery count as legal holidays (the act may be done by mail)"
                if self.mail_holidays else
                "federal holidays without mail delivery are not counted (not an act done by mail)")
        return f"{sat}; {mail}"

    def last_day(self, served: date, days: int, frozen: FrozenSeason | None = None) -> tuple[date, list[str]]:
        """Count ``days`` from ``served`` under § 990.001(4); return the date and the steps.

        Args:
            frozen: for work that needs a street opening: days in this season are not
                counted (§ 315-13A(3)).

        Raises:
            ElectionCalendarUnchecked: the last day is after :attr:`checked_through`.
        """
        steps = [
            f"served {fmt(served)} (day of service not counted, {COUNTING}); "
            f"day 1 is {fmt(served + timedelta(days=1))}"
        ]
        d = served + timedelta(days=days)
        steps.append(f"+ {days} days = {fmt(d)} (last day counted, {COUNTING})")
        if frozen is not None:
            d, skipped = served, 0
            counted = 0
            while counted < days:
                d += timedelta(days=1)
                if frozen.contains(d):
                    skipped += 1
                else:
                    counted += 1
            if skipped:
                steps.append(f"the work needs a street opening, which § 315-13A(3) forbids while the ground is "
                             f"frozen ({frozen.label()}): the {skipped} frozen days are not counted, so day "
                             f"{days} is {fmt(d)}")
            else:
                steps.append(f"the work needs a street opening; no day of the period falls in the frozen "
                             f"season ({frozen.label()}, § 315-13A(3))")
        reason = self.why_not_secular(d)
        while reason:
            nxt = d + timedelta(days=1)
            steps.append(
                f"{fmt(d)} is {reason}, so the last day moves to the next secular day, "
                f"{fmt(nxt)} ({ROLLING})"
            )
            d, reason = nxt, self.why_not_secular(nxt)
        if self.checked_through is not None and d > self.checked_through:
            raise ElectionCalendarUnchecked(d, self.checked_through)
        if not any("legal holiday" in st or "a Sunday" in st or "Saturday" in st for st in steps[2:]):
            if d.weekday() == SAT:
                steps.append(f"{fmt(d)} is a Saturday, and Saturdays count; no legal holiday")
            else:
                steps.append(f"{fmt(d)} is neither a Sunday nor a legal holiday")
        steps.append(self.rules_applied())
        steps.append(f"deadline: {fmt(d)}")
        return d, steps


def deadline_for(
    rule_id: str,
    served: date,
    rulebook: Rulebook,
    legal_calendar: LegalCalendar | None = None,
    days: int | None = None,
    frozen: FrozenSeason | None = None,
) -> Deadline:
    """The last day to comply with a notice of kind ``rule_id`` served on ``served``.

    The period, section and the rule's ``saturday_office_closed`` / ``mail_holidays``
    settings come from the rulebook's ``[deadlines.<rule_id>]``; the counting is Wis.
    Stat. § 990.001(4) (see the module docstring).

    Args:
        rule_id: notice kind, e.g. ``"CW-DISCONNECT-60"`` (§ 315-13D, 60 days).
        served: the day the notice was served (delivered, or the fallback day).
        rulebook: the city's (``city.current().rulebook`` in the app).
        legal_calendar: special elections and the checked-through day; defaults to the
            rulebook's. The rule's own settings are applied to it.
        days: a period set by a decision instead of the rule's own (an appeal decided
            with new terms); the rule's section and counting settings still apply.
        frozen: the frozen-ground season, for work that needs a street opening.

    Raises:
        gis.rulebook.RulebookError: the rulebook has no such deadline.
        ElectionCalendarUnchecked: the last day is past the checked election calendar.
        ValueError: the deadline has no whole number of days.
    """
    cfg: dict[str, Any] = rulebook.deadline(rule_id)
    days = cfg.get("days") if days is None else days
    if not isinstance(days, int) or days < 0:
        raise ValueError(f"deadline {rule_id!r} has no whole number of days: {days!r}")
    cal = (legal_calendar or LegalCalendar.from_rulebook(rulebook)).for_rule(cfg)
    last, steps = cal.last_day(served, days, frozen)
    return Deadline(
        date=last, rule_id=rule_id, section=str(cfg.get("section", "")), days=days,
        served=served, steps=steps,
    )
