"""Each notice kind is declared once (server/notices/kinds.py) and every consumer reads it."""

from __future__ import annotations

import pytest

from gis.rulebook import load_rulebook
from server.notices.kinds import CLEAR_WATER_KINDS, FALLBACK, KINDS, NoticeKind, declare, follow_ups, kind_for_rule


def test_a_kind_is_declared_only_once():
    with pytest.raises(ValueError, match="declared twice"):
        declare(NoticeKind(id="HOOKUP-365", title="", deadline_rule="HOOKUP-365", rule="", action=""))


def test_a_rule_draws_one_kind_only():
    with pytest.raises(ValueError, match="already draws"):
        declare(NoticeKind(id="TEST-KIND", title="", deadline_rule="CORRECTION", rule="", action="",
                           drawn_by=("SURVEY-ACCESS",)))
    assert "TEST-KIND" not in KINDS


@pytest.mark.parametrize(("rule_id", "kind"), [
    ("CLEAR-WATER", "CW-DISCONNECT-60"), ("CW-REMOVE-150", "CW-REMOVE-150"), ("EXCLUSIVE-SEWER", "HOOKUP-365"),
    ("SURVEY-ACCESS", "SURVEY-ACCESS"), ("TAP-SPACING-24IN", FALLBACK), ("SEPTIC-IN-AREA", "HOOKUP-365"),
])
def test_the_rule_a_violation_breaks_picks_its_kind(rule_id, kind):
    assert kind_for_rule(rule_id) == kind


def test_follow_ups_and_clear_water_kinds_come_from_the_declarations():
    assert follow_ups() == {"HOOKUP-365": "HOOKUP-PENALTY"}
    assert CLEAR_WATER_KINDS == ("CW-DISCONNECT-60", "CW-REMOVE-150")


@pytest.mark.parametrize("kind", list(KINDS))
def test_every_kind_has_words_a_sample_and_a_rulebook_deadline(kind):
    k = KINDS[kind]
    assert k.title and k.rule and k.action and k.sample
    assert load_rulebook("arcadia").deadline(k.deadline_rule)["days"] > 0
