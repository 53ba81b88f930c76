"""run_rules: ordering, stable keys, subject mode, rulebook overrides."""

from __future__ import annotations

import pytest

from gis.rulebook import Rulebook
from gis.rules import (
    Lateral,
    Network,
    Tap,
    get_rule,
    registered_rules,
    related_subjects,
    run_rules,
)
from tests.support.gis_sites import straight_main, tap_at


@pytest.fixture
def busy(wtm) -> Network:
    """Two mains; taps 1–2 too close on main 1, taps 3–4 too close on main 2, tap 5 alone."""
    east = straight_main(wtm)
    west = straight_main(wtm, id=2, geometry=wtm.line((0, 10), (100, 10)))
    taps = [tap_at(wtm, 1, 30.0, lateral_id=11), tap_at(wtm, 2, 40.0),
            tap_at(wtm, 3, 30.0, main_id=2, y_in=120.0),
            tap_at(wtm, 4, 45.0, main_id=2, y_in=120.0, clock_position=3.0),
            tap_at(wtm, 5, 600.0)]
    laterals = [Lateral(id=11, parcel_id=99, geometry=wtm.line((2.5, 0), (2.5, 40)),
                        backflow_valve=True)]
    return Network(mains=[east, west], taps=taps, laterals=laterals)


@pytest.mark.parametrize("rule", list(registered_rules()), ids=lambda r: r.id)
def test_every_rule_cites_its_section(rule, wtm):
    assert rule.section_for(wtm.rulebook) == rule.default_section
    assert rule.statement and rule.section_for(wtm.rulebook) in rule.check.__doc__


def test_rulebook_supplies_each_rules_section(wtm):
    assert get_rule("BACKFLOW-VALVE").section_for(wtm.rulebook) == "§ 315-12D"


def test_rerun_gives_identical_keys_in_identical_order(wtm, busy):
    first = [v.key for v in wtm.run(busy)]
    again = [v.key for v in wtm.run(busy)]
    assert first and first == again


def test_keys_do_not_depend_on_feature_order(wtm, busy):
    shuffled = Network(mains=busy.mains[::-1], taps=busy.taps[::-1], laterals=busy.laterals)
    assert [v.key for v in wtm.run(shuffled)] == [v.key for v in wtm.run(busy)]


def test_key_names_rule_and_subjects(wtm, busy):
    spacing = wtm.run(busy, only=["TAP-SPACING-24IN"])
    assert [v.key for v in spacing] == ["TAP-SPACING-24IN||tap:1,tap:2",
                                        "TAP-SPACING-24IN||tap:3,tap:4"]


def test_subjects_mode_keeps_only_violations_of_that_feature(wtm, busy):
    found = wtm.run(busy, subjects=[("tap", 4)])
    assert {v.rule_id for v in found} == {"TAP-SPACING-24IN", "TAP-QUADRANT"}
    assert all(("tap", 4) in v.subjects for v in found)


def test_subjects_mode_with_a_clean_feature_finds_nothing(wtm, busy):
    assert wtm.run(busy, subjects=[("tap", 5)]) == []


def test_tap_violation_is_charged_to_its_laterals_parcel(wtm, busy):
    (spacing,) = wtm.run(busy, only=["TAP-SPACING-24IN"], subjects=[("tap", 1)])
    assert spacing.parcel_id == 99


def test_evidence_is_in_lon_lat(wtm, busy):
    bounds = [v.evidence.bounds for v in wtm.run(busy)]
    assert bounds and all(-92 < x0 <= x1 < -91 and 44 < y0 <= y1 < 45 for x0, y0, x1, y1 in bounds)


def test_rulebook_overrides_a_default(wtm, busy):
    data = {**wtm.rulebook.data, "rules": {**wtm.rulebook.data["rules"],
                                           "TAP-SPACING-24IN": {"min_spacing_in": 12.0}}}
    strict = Rulebook(name="strict", path=wtm.rulebook.path, data=data)
    found = run_rules(busy, strict, only=["TAP-SPACING-24IN"])
    assert [v.subjects for v in found] == [(("tap", 1), ("tap", 2))]
    assert found[0].section == "§ 315-13B(2)"  # a default when the rulebook table omits it


def test_unknown_rule_is_an_error(wtm, busy):
    with pytest.raises(KeyError, match="NO-SUCH-RULE"):
        wtm.run(busy, only=["NO-SUCH-RULE"])


def test_empty_network_has_no_violations(wtm):
    assert wtm.run(Network()) == []


def test_tap_on_a_main_missing_from_the_network_is_skipped(wtm):
    taps = [Tap(id=1, main_id=404, lateral_id=None, geometry=wtm.pt(0)),
            Tap(id=2, main_id=404, lateral_id=None, geometry=wtm.pt(0.5))]
    assert wtm.run(Network(taps=taps)) == []


def test_saved_main_brings_in_violations_of_its_taps(wtm, busy):
    subjects = related_subjects(busy, ("main", 2))
    found = wtm.run(busy, subjects=subjects)
    assert {v.key for v in found} == {"TAP-SPACING-24IN||tap:3,tap:4", "TAP-QUADRANT||tap:4"}


def test_saved_parcel_brings_in_its_laterals_and_taps(busy):
    assert related_subjects(busy, ("parcel", 99)) == {("parcel", 99), ("lateral", 11),
                                                      ("tap", 1)}


def test_features_without_geometry_are_skipped(wtm, busy):
    lost = Tap(id=6, main_id=1, lateral_id=None, geometry=None, clock_position=3.0)
    network = Network(mains=busy.mains, taps=[*busy.taps, lost], laterals=busy.laterals)
    assert [v.key for v in wtm.run(network)] == [v.key for v in wtm.run(busy)]
