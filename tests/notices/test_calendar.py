"""Day counting under Wis. Stat. § 990.001(4) and § 995.20 holidays, 2026-2030.

Every expected date below was counted by hand from a printed calendar; the comment
shows the count (days left in the month of service, then whole months).
"""

from __future__ import annotations

from datetime import date

import pytest

from gis.rulebook import RulebookError, load_rulebook
from server.notices.calendar import (
    ElectionCalendarUnchecked,
    FrozenSeason,
    LegalCalendar,
    deadline_for,
    general_election,
    legal_holidays,
    nth_weekday,
    partisan_primary,
)

ARCADIA = load_rulebook("arcadia")  # the test apps' rulebook; pure code is always told which

D = date
#: No limit on how far ahead the special-election calendar is checked: the hand counts
#: below run to 2034.
OPEN = LegalCalendar()


@pytest.mark.parametrize(
    ("rule_id", "served", "expected"),
    [
        # --- 2026
        # Sep 25-30 = 6, Oct = 31 (37), Nov 23 = 60: Monday, an ordinary day.
        ("CW-DISCONNECT-60", D(2026, 9, 24), D(2026, 11, 23)),
        # Nov 17-26 = 10: Thu Nov 26 is Thanksgiving (4th Thu) -> Fri Nov 27.
        ("HOOKUP-PENALTY", D(2026, 11, 16), D(2026, 11, 27)),
        # Aug 2-11 = 10: Tue Aug 11 is the partisan primary -> Wed Aug 12.
        ("APPEAL-10", D(2026, 8, 1), D(2026, 8, 12)),
        # Oct 25-31 = 7, Nov 1-3 = 10: Tue Nov 3 is the general election -> Wed Nov 4.
        ("APPEAL-10", D(2026, 10, 24), D(2026, 11, 4)),
        # Jun 25-30 = 6, Jul 1-4 = 10: Sat Jul 4 is a holiday kept on the Saturday ->
        # Sun Jul 5 -> Mon Jul 6.
        ("APPEAL-10", D(2026, 6, 24), D(2026, 7, 6)),
        # Dec 16-25 = 10: Fri Dec 25 -> Sat Dec 26, a secular day (Saturdays count for
        # the owner's own act).
        ("HOOKUP-PENALTY", D(2026, 12, 15), D(2026, 12, 26)),
        # The same count for an appeal, a filing with the city's office (closed on
        # Saturdays, § 990.001(4)(c)): Sat Dec 26 -> Sun Dec 27 -> Mon Dec 28.
        ("APPEAL-10", D(2026, 12, 15), D(2026, 12, 28)),
        # Jan 10-19 = 10: Mon Jan 19 is the 3rd Monday in January -> Tue Jan 20.
        ("APPEAL-10", D(2026, 1, 9), D(2026, 1, 20)),
        # --- 2027
        # May 6-31 = 26, Jun = 30 (56), Jul 1-4 = 60: Sun Jul 4 -> Mon Jul 5 is the
        # observed Independence Day -> Tue Jul 6.
        ("CW-DISCONNECT-60", D(2027, 5, 5), D(2027, 7, 6)),
        # Mar 4-31 = 28, Apr = 30 (58), May 1-2 = 60: Sun May 2 -> Mon May 3.
        ("CW-DISCONNECT-60", D(2027, 3, 3), D(2027, 5, 3)),
        # Mar 3-31 = 29, Apr = 30 (59), May 1 = 60: Sat May 1 counts and stays.
        ("CW-DISCONNECT-60", D(2027, 3, 2), D(2027, 5, 1)),
        # Dec 16-25 = 10: Sat Dec 25 (holiday) -> Sun Dec 26 -> Mon Dec 27, which is
        # not a holiday because a Saturday holiday is not moved.
        ("APPEAL-10", D(2027, 12, 15), D(2027, 12, 27)),
        # Year end: Dec 23-31 = 9, Jan 1 = 10: Sat Jan 1 2028 -> Sun -> Mon Jan 3 2028.
        ("APPEAL-10", D(2027, 12, 22), D(2028, 1, 3)),
        # --- 2028 (leap year)
        # Feb 20-29 = 10: the leap day itself, a Tuesday.
        ("APPEAL-10", D(2028, 2, 19), D(2028, 2, 29)),
        # 2027-03-01 to 2028-03-01 is 366 days (it holds Feb 29 2028), so day 365 is
        # Tue Feb 29 2028.
        ("HOOKUP-365", D(2027, 3, 1), D(2028, 2, 29)),
        # Jul 30-31 = 2, Aug 1-8 = 10: Tue Aug 8 is the primary -> Wed Aug 9.
        ("APPEAL-10", D(2028, 7, 29), D(2028, 8, 9)),
        # Oct 29-31 = 3, Nov 1-7 = 10: Tue Nov 7 general election -> Wed Nov 8.
        ("APPEAL-10", D(2028, 10, 28), D(2028, 11, 8)),
        # May 20-29 = 10: Mon May 29 is the last Monday in May -> Tue May 30.
        ("APPEAL-10", D(2028, 5, 19), D(2028, 5, 30)),
        # --- 2029 (no elections in the rulebook)
        # Jan 6-15 = 10: Mon Jan 15 is the 3rd Monday in January -> Tue Jan 16.
        ("APPEAL-10", D(2029, 1, 5), D(2029, 1, 16)),
        # Chain: Aug 24-31 = 8, Sep 1-2 = 10: Sun Sep 2 -> Mon Sep 3 is Labor Day ->
        # Tue Sep 4.
        ("APPEAL-10", D(2029, 8, 23), D(2029, 9, 4)),
        # Oct 28-31 = 4, Nov 1-6 = 10: Tue Nov 6 2029 is no election day -> stays.
        ("APPEAL-10", D(2029, 10, 27), D(2029, 11, 6)),
        # Nov 2-11 = 10: Sun Nov 11 -> Mon Nov 12 (observed Veterans Day) -> Tue Nov 13.
        ("APPEAL-10", D(2029, 11, 1), D(2029, 11, 13)),
        # --- 2030
        # Apr 21-30 = 10, May = 31 (41), Jun 1-19 = 60: Wed Jun 19 -> Thu Jun 20.
        ("CW-DISCONNECT-60", D(2030, 4, 20), D(2030, 6, 20)),
        # Oct 5-14 = 10: Mon Oct 14 is the 2nd Monday in October -> Tue Oct 15.
        ("APPEAL-10", D(2030, 10, 4), D(2030, 10, 15)),
        # Oct 27-31 = 5, Nov 1-5 = 10: Tue Nov 5 general election -> Wed Nov 6.
        ("APPEAL-10", D(2030, 10, 26), D(2030, 11, 6)),
        # Year end: Aug 5-31 = 27, Sep 30 (57), Oct 31 (88), Nov 30 (118), Dec 31 (149),
        # Jan 1 = 150: Wed Jan 1 2031 -> Thu Jan 2 2031.
        ("CW-REMOVE-150", D(2030, 8, 4), D(2031, 1, 2)),
        # --- computed election days, past the rulebook's old list
        # Oct 24-31 = 8, Nov 1-2 = 10: Mon Nov 1 2032 is the first Monday, so Tue Nov 2 is
        # the general election -> Wed Nov 3.
        ("HOOKUP-PENALTY", D(2032, 10, 23), D(2032, 11, 3)),
        # Jul 30-31 = 2, Aug 1-8 = 10: Aug 1 2034 is a Tuesday, so the 2nd Tuesday (the
        # partisan primary) is Aug 8 -> Wed Aug 9.
        ("HOOKUP-PENALTY", D(2034, 7, 29), D(2034, 8, 9)),
        # Nov 2029 and Aug 2031 are odd years: no election holiday. Aug 3-12 = 10: Tue
        # Aug 12 2031 stays.
        ("HOOKUP-PENALTY", D(2031, 8, 2), D(2031, 8, 12)),
        # --- the per-rule Saturday rule (§ 990.001(4)(c))
        # Apr 22-30 = 9, May 1 = 10: Sat May 1 2027 stays for the owner's own act...
        ("HOOKUP-PENALTY", D(2027, 4, 21), D(2027, 5, 1)),
        # ...and moves to Mon May 3 for a filing with the city.
        ("APPEAL-10", D(2027, 4, 21), D(2027, 5, 3)),
        ("COUNCIL-APPEAL-10", D(2027, 4, 21), D(2027, 5, 3)),
        # Apr 2-30 = 29, May 1 = 30: the survey's certification to the Commission, a
        # filing: Sat May 1 -> Mon May 3.
        ("SURVEY-CERTIFY-30", D(2027, 4, 1), D(2027, 5, 3)),
        # --- the per-rule mail-holiday rule (federal holiday, no mail delivery)
        # Jun 24-30 = 7, Jul 1-3 = 10: Sat Jul 4 2026 is observed federally on Fri Jul 3.
        # The owner's own act: Fri Jul 3 stays.
        ("HOOKUP-PENALTY", D(2026, 6, 23), D(2026, 7, 3)),
        # An appeal (may be mailed): Fri Jul 3 no mail -> Sat Jul 4 (holiday; and a
        # Saturday) -> Sun Jul 5 -> Mon Jul 6.
        ("APPEAL-10", D(2026, 6, 23), D(2026, 7, 6)),
        # Dec 15-24 = 10: Sat Dec 25 2027 is observed federally on Fri Dec 24 -> Sat Dec 25
        # -> Sun -> Mon Dec 27.
        ("APPEAL-10", D(2027, 12, 14), D(2027, 12, 27)),
        # Dec 22-31 = 10: Sat Jan 1 2028 is observed federally on Fri Dec 31 2027 -> Sat
        # Jan 1 -> Sun Jan 2 -> Mon Jan 3 2028.
        ("APPEAL-10", D(2027, 12, 21), D(2028, 1, 3)),
        # The owner's act on the same count stays on Fri Dec 31.
        ("HOOKUP-PENALTY", D(2027, 12, 21), D(2027, 12, 31)),
        # Jun 29, 30, Jul 1, 2, 3 = 5: the Commission's notice to owners, by certified mail,
        # received Sun Jun 28 2026: Fri Jul 3 no mail -> Sat Jul 4 holiday -> Sun -> Mon Jul 6.
        ("SURVEY-NOTIFY-5", D(2026, 6, 28), D(2026, 7, 6)),
    ],
)
def test_deadline_matches_hand_count(rule_id, served, expected):
    assert deadline_for(rule_id, served, ARCADIA, legal_calendar=OPEN).date == expected


@pytest.mark.parametrize(
    ("year", "primary", "general"),
    [
        # Real Wisconsin election days, read from the state's published calendars.
        (2016, D(2016, 8, 9), D(2016, 11, 8)),  # Nov 1 2016 was a Tuesday: not the first Tuesday
        (2022, D(2022, 8, 9), D(2022, 11, 8)),
        (2024, D(2024, 8, 13), D(2024, 11, 5)),
        (2032, D(2032, 8, 10), D(2032, 11, 2)),
        (2027, None, None),
    ],
)
def test_election_days_are_computed(year, primary, general):
    assert (partisan_primary(year), general_election(year)) == (primary, general)


def test_the_2032_general_election_is_a_legal_holiday():
    assert OPEN.holiday(D(2032, 11, 2)).startswith("Election Day (general election")


def test_spring_elections_are_not_legal_holidays():
    # First Tuesday in April 2027 (spring election) and third Tuesday in February 2027
    # (spring primary) are ordinary days under § 995.20.
    assert OPEN.is_secular_day(D(2027, 4, 6)) and OPEN.is_secular_day(D(2027, 2, 16))


def test_a_special_election_recorded_by_the_clerk_moves_a_last_day():
    # Mar 7-16 = 10: Tue Mar 16 2027 is a special election the clerk recorded -> Wed Mar 17.
    cal = LegalCalendar(special_days=(D(2027, 3, 16),))
    d = deadline_for("HOOKUP-PENALTY", D(2027, 3, 6), ARCADIA, legal_calendar=cal)
    assert d.date == D(2027, 3, 17)
    assert "special election recorded by the clerk" in d.steps[2]


def test_a_last_day_past_the_checked_calendar_is_refused_not_guessed():
    cal = LegalCalendar(checked_through=D(2027, 3, 10))
    with pytest.raises(ElectionCalendarUnchecked) as err:
        deadline_for("HOOKUP-PENALTY", D(2027, 3, 6), ARCADIA, legal_calendar=cal)
    assert err.value.last_day == D(2027, 3, 16)
    assert "checked only through 2027-03-10" in str(err.value)


def test_the_rulebook_sets_how_far_the_calendar_is_checked():
    # Arcadia's rulebook is checked through 2030-12-31: a last day in 2031 is refused.
    assert LegalCalendar.from_rulebook(ARCADIA).checked_through == D(2030, 12, 31)
    with pytest.raises(ElectionCalendarUnchecked):
        deadline_for("CW-REMOVE-150", D(2030, 8, 4), ARCADIA)


def test_the_checked_day_the_clerk_recorded_replaces_the_rulebooks():
    cal = LegalCalendar.from_rulebook(ARCADIA, special_days=(D(2031, 1, 6),), checked_through=D(2031, 12, 31))
    assert cal.checked_through == D(2031, 12, 31)
    assert deadline_for("CW-REMOVE-150", D(2030, 8, 4), ARCADIA, legal_calendar=cal).date == D(2031, 1, 2)


def test_saturday_rolls_only_with_the_closed_office_rule():
    # Same case as above (Sat 2027-05-01 stays); under § 990.001(4)(c) it moves to Mon.
    cal = LegalCalendar(saturday_office_closed=True)
    assert cal.last_day(D(2027, 3, 2), 60)[0] == D(2027, 5, 3)


@pytest.mark.parametrize(
    ("rule_id", "saturday", "mail"),
    [
        ("APPEAL-10", "§ 990.001(4)(c) applies", "federal holidays without mail delivery count"),
        ("CW-DISCONNECT-60", "§ 990.001(4)(c) does not apply",
         "federal holidays without mail delivery are not counted"),
    ],
)
def test_each_deadline_says_which_rules_applied(rule_id, saturday, mail):
    steps = deadline_for(rule_id, D(2026, 9, 24), ARCADIA).steps
    assert saturday in steps[-2] and mail in steps[-2]


def test_steps_explain_service_count_and_result():
    steps = deadline_for("CW-DISCONNECT-60", D(2026, 9, 24), ARCADIA).steps
    assert steps[0].startswith("served Thu 2026-09-24 (day of service not counted")
    assert "+ 60 days = Mon 2026-11-23" in steps[1]
    assert steps[-1] == "deadline: Mon 2026-11-23"


def test_steps_say_why_the_last_day_rolled():
    steps = deadline_for("CW-DISCONNECT-60", D(2027, 5, 5), ARCADIA).steps
    assert steps[2].startswith(
        "Sun 2027-07-04 is a Sunday (Independence Day), so the last day moves to the next "
        "secular day, Mon 2027-07-05")
    assert steps[3].startswith("Mon 2027-07-05 is a legal holiday (Independence Day, observed")
    assert steps[-1] == "deadline: Tue 2027-07-06"


def test_steps_say_saturdays_count():
    steps = deadline_for("CW-DISCONNECT-60", D(2027, 3, 2), ARCADIA).steps
    assert "Saturdays count" in steps[2]


def test_deadline_carries_rule_section_and_days():
    d = deadline_for("CW-DISCONNECT-60", D(2026, 9, 24), ARCADIA)
    assert (d.rule_id, d.section, d.days, d.served) == (
        "CW-DISCONNECT-60", "§ 315-13D", 60, D(2026, 9, 24))


def test_unknown_rule_is_an_error():
    with pytest.raises(RulebookError):
        deadline_for("NO-SUCH-RULE", D(2026, 1, 5), ARCADIA)


# Hand-listed from § 995.20 and the 2026 calendar: no holiday falls on a Sunday.
HOLIDAYS_2026 = {
    D(2026, 1, 1), D(2026, 1, 19), D(2026, 2, 16), D(2026, 5, 25), D(2026, 6, 19),
    D(2026, 7, 4), D(2026, 8, 11), D(2026, 9, 7), D(2026, 10, 12), D(2026, 11, 3),
    D(2026, 11, 11), D(2026, 11, 26), D(2026, 12, 25),
}
# 2027: no elections; Jul 4 is a Sunday, so Mon Jul 5 is observed.
HOLIDAYS_2027 = {
    D(2027, 1, 1), D(2027, 1, 18), D(2027, 2, 15), D(2027, 5, 31), D(2027, 6, 19),
    D(2027, 7, 4), D(2027, 7, 5), D(2027, 9, 6), D(2027, 10, 11), D(2027, 11, 11),
    D(2027, 11, 25), D(2027, 12, 25),
}
# 2028: Jan 1 and Nov 11 are Saturdays and stay there (no Friday observance).
HOLIDAYS_2028 = {
    D(2028, 1, 1), D(2028, 1, 17), D(2028, 2, 21), D(2028, 5, 29), D(2028, 6, 19),
    D(2028, 7, 4), D(2028, 8, 8), D(2028, 9, 4), D(2028, 10, 9), D(2028, 11, 7),
    D(2028, 11, 11), D(2028, 11, 23), D(2028, 12, 25),
}


@pytest.mark.parametrize(
    ("year", "expected"), [(2026, HOLIDAYS_2026), (2027, HOLIDAYS_2027), (2028, HOLIDAYS_2028)]
)
def test_legal_holidays_of_a_year(year, expected):
    assert set(legal_holidays(year)) == expected


def test_friday_before_a_saturday_holiday_is_a_secular_day():
    # Fri 2027-12-24 is not a legal holiday under § 995.20 (the state-office closure
    # list of § 230.35 is a different thing).
    assert LegalCalendar().is_secular_day(D(2027, 12, 24))


@pytest.mark.parametrize(
    ("year", "month", "weekday", "n", "expected"),
    [
        (2026, 5, 0, -1, D(2026, 5, 25)),  # last Monday in May 2026 (May 31 is a Sunday)
        (2027, 5, 0, -1, D(2027, 5, 31)),  # May 31 2027 is itself a Monday
        (2029, 1, 0, 3, D(2029, 1, 15)),  # Jan 1 2029 is a Monday: 1, 8, 15
        (2030, 11, 3, 4, D(2030, 11, 28)),  # Nov 2030 Thursdays: 7, 14, 21, 28
    ],
)
def test_nth_weekday(year, month, weekday, n, expected):
    assert nth_weekday(year, month, weekday, n) == expected


# --- the frozen-ground season (§ 315-13A(3)), Arcadia's Dec 1 - Apr 15
SEASON = FrozenSeason((12, 1), (4, 15))


def test_a_street_opening_deadline_does_not_count_the_frozen_days():
    # Nov 21-30 = 10 days counted; Dec 1 - Apr 15 frozen, not counted; Apr 16 is day 11,
    # May 5 2027 (a Wednesday) day 30.
    d = deadline_for("CORRECTION", D(2026, 11, 20), ARCADIA, legal_calendar=OPEN, frozen=SEASON)
    assert d.date == D(2027, 5, 5)
    assert "the 136 frozen days are not counted, so day 30 is Wed 2027-05-05" in d.steps[2]


def test_a_period_outside_the_season_still_rolls_past_a_holiday():
    # May 2-31 = 30: Mon May 31 2027 is Memorial Day -> Tue Jun 1.
    d = deadline_for("CORRECTION", D(2027, 5, 1), ARCADIA, legal_calendar=OPEN, frozen=SEASON)
    assert d.date == D(2027, 6, 1) and "no day of the period falls in the frozen season" in d.steps[2]


def test_without_a_street_opening_the_season_does_not_matter():
    # Nov 21-30 = 10, Dec 1-20 = 30: Sun Dec 20 -> Mon Dec 21.
    assert deadline_for("CORRECTION", D(2026, 11, 20), ARCADIA, legal_calendar=OPEN).date == D(2026, 12, 21)
