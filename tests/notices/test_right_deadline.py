"""The right deadline for the thing: a septic system is a hookup (§ 315-11C/D, 365 days);
a re-tap or a hook-up does not run while the ground is frozen (§ 315-13A(3))."""

from __future__ import annotations

from datetime import timedelta

from gis.rulebook import load_rulebook
from server.notices.calendar import FrozenSeason, LegalCalendar, deadline_for
from tests.support.notices import MAILED_ON, add_violation, draft_one, walk

ARCADIA = load_rulebook("arcadia")  # the test apps' rulebook; pure code is always told which

FALLBACK = 5  # arcadia.toml [calendar] undelivered_fallback_days
SEASON = FrozenSeason((12, 1), (4, 15))  # arcadia.toml [frozen_ground]


def test_a_septic_system_in_the_service_area_gets_the_hookup_notice(client, auth, parcel):
    add_violation(parcel, "SEPTIC-IN-AREA", "§ 315-11C", "A septic tank serves the house inside the service area")
    notice = draft_one(client, auth)
    assert notice["kind"] == "HOOKUP-365"
    mailed = walk(client, auth, notice["id"], "mailed")
    served = MAILED_ON + timedelta(days=FALLBACK)
    # Connecting to the sewer needs a street opening: the frozen season is not counted (issue 29).
    expected = deadline_for("HOOKUP-365", served, ARCADIA, legal_calendar=LegalCalendar(), frozen=SEASON).date
    assert mailed["deadline_printed"] == expected.isoformat()


def test_a_re_tap_deadline_is_extended_past_the_frozen_ground(client, auth, parcel):
    add_violation(parcel, "TAP-QUADRANT", "§ 315-13B(2)", "The tap is at 3 o'clock, below the upper quadrant")
    notice = walk(client, auth, draft_one(client, auth)["id"], "delivered")
    delivered = MAILED_ON + timedelta(days=2)
    expected = deadline_for("CORRECTION", delivered, ARCADIA, legal_calendar=LegalCalendar(), frozen=SEASON)
    plain = deadline_for("CORRECTION", delivered, ARCADIA, legal_calendar=LegalCalendar())
    assert notice["deadline"] == max(expected.date.isoformat(), notice["deadline_printed"])
    assert any("§ 315-13A(3)" in step for step in notice["deadline_steps"])
    assert notice["deadline"] > plain.date.isoformat()  # the 30 days reach into the season: it is longer


def test_a_notice_needing_no_street_opening_counts_every_day(client, auth, parcel):
    add_violation(parcel, "BACKFLOW-VALVE", "§ 315-12D", "No backflow valve is recorded")
    notice = walk(client, auth, draft_one(client, auth)["id"], "delivered")
    assert not any("§ 315-13A(3)" in step for step in notice["deadline_steps"])
