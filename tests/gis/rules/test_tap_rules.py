"""§ 315-13B(2): tap spacing, joints, quadrant and method, with known answers."""

from __future__ import annotations

import math
from datetime import date

import pytest

from gis.rules import Network, SewerMain
from tests.support.gis_sites import replace, straight_main, tap_at

SPACING = ["TAP-SPACING-24IN"]
JOINT = ["TAP-JOINT-6IN"]


@pytest.mark.parametrize(("gap_in", "expected"), [(23.9, 1), (24.1, 0), (12.0, 1), (36.0, 0)])
def test_tap_spacing_threshold(site, gap_in, expected):
    taps = [tap_at(site, 1, 30.0), tap_at(site, 2, 30.0 + gap_in)]
    found = site.run(Network(mains=[straight_main(site)], taps=taps), only=SPACING)
    assert len(found) == expected


def test_tap_spacing_measures_inches_in_the_projected_crs(site):
    taps = [tap_at(site, 1, 30.0), tap_at(site, 2, 53.9)]
    (found,) = site.run(Network(mains=[straight_main(site)], taps=taps), only=SPACING)
    assert found.measured == pytest.approx(23.9, abs=0.01)
    assert (found.limit, found.unit) == (24.0, "in")


def test_tap_spacing_message_cites_section_and_inches(wtm):
    taps = [tap_at(wtm, 12, 30.0), tap_at(wtm, 17, 46.1)]
    (found,) = wtm.run(Network(mains=[straight_main(wtm)], taps=taps), only=SPACING)
    assert "§ 315-13B(2)" in found.message
    assert "16.1 in" in found.message
    assert "≥ 24 in" in found.message


def test_tap_spacing_subjects_are_both_taps(wtm):
    taps = [tap_at(wtm, 17, 30.0), tap_at(wtm, 12, 40.0)]
    (found,) = wtm.run(Network(mains=[straight_main(wtm)], taps=taps), only=SPACING)
    assert found.subjects == (("tap", 12), ("tap", 17))


def test_tap_spacing_reports_every_close_pair_in_a_cluster(wtm):
    taps = [tap_at(wtm, i, 30.0 + 10.0 * i) for i in (1, 2, 3)]
    found = wtm.run(Network(mains=[straight_main(wtm)], taps=taps), only=SPACING)
    assert [f.subjects for f in found] == [
        (("tap", 1), ("tap", 2)), (("tap", 1), ("tap", 3)), (("tap", 2), ("tap", 3))
    ]


def _bent_main(site):
    """10 ft east, then 10 ft north: the corner is at (10 ft, 0)."""
    return SewerMain(id=1, geometry=site.line((0, 0), (10, 0), (10, 10)), material="PVC",
                     diameter_in=8.0, segment_length_ft=100.0)


def test_tap_spacing_follows_a_bend_where_the_straight_line_is_shorter(site):
    # 13 in either side of the corner: 26 in along the pipe, 18.4 in straight across.
    taps = [tap_at(site, 1, 120.0 - 13.0), tap_at(site, 2, 120.0, y_in=13.0)]
    assert math.hypot(13, 13) < 24
    assert site.run(Network(mains=[_bent_main(site)], taps=taps), only=SPACING) == []


def test_tap_spacing_around_a_bend_reports_the_along_main_distance(site):
    # 11.5 in either side of the corner: 23 in along the pipe (16.3 in straight).
    taps = [tap_at(site, 1, 120.0 - 11.5), tap_at(site, 2, 120.0, y_in=11.5)]
    (found,) = site.run(Network(mains=[_bent_main(site)], taps=taps), only=SPACING)
    assert found.measured == pytest.approx(23.0, abs=0.01)


def test_taps_on_different_mains_at_a_junction_are_not_compared(site):
    east = straight_main(site)
    north = SewerMain(id=2, geometry=site.line((0, 0), (0, 100)), material="PVC")
    taps = [tap_at(site, 1, 10.0, main_id=1), tap_at(site, 2, 0.0, main_id=2, y_in=10.0)]
    assert site.run(Network(mains=[east, north], taps=taps), only=SPACING) == []


def test_tap_spacing_evidence_runs_along_the_main_between_the_taps(wtm):
    taps = [tap_at(wtm, 1, 30.0), tap_at(wtm, 2, 50.0)]
    (found,) = wtm.run(Network(mains=[straight_main(wtm)], taps=taps), only=SPACING)
    assert found.evidence.geom_type == "LineString"
    assert found.evidence.coords[0] == pytest.approx(tuple(taps[0].geometry.coords[0]), abs=1e-9)


# ------------------------------------------------------------------ joints
@pytest.mark.parametrize(("offset_in", "expected"), [(5.9, 1), (-5.9, 1), (6.1, 0), (-6.1, 0)])
def test_tap_near_recorded_joint(site, offset_in, expected):
    main = straight_main(site, joint_points=site.points((50, 0), (70, 0)))
    tap = tap_at(site, 1, 50 * 12 + offset_in)
    assert len(site.run(Network(mains=[main], taps=[tap]), only=JOINT)) == expected


@pytest.mark.parametrize(("offset_in", "expected"), [(5.9, 1), (-5.9, 1), (6.1, 0), (-6.1, 0)])
def test_tap_near_segment_length_joint(site, offset_in, expected):
    main = straight_main(site, segment_length_ft=20.0)  # joints at 20, 40, 60, 80 ft
    tap = tap_at(site, 1, 40 * 12 + offset_in)
    assert len(site.run(Network(mains=[main], taps=[tap]), only=JOINT)) == expected


def test_tap_joint_measured_in_inches(site):
    main = straight_main(site, joint_points=site.points((50, 0)))
    (found,) = site.run(Network(mains=[main], taps=[tap_at(site, 1, 600 + 5.9)]), only=JOINT)
    assert found.measured == pytest.approx(5.9, abs=0.01)
    assert "5.9 in" in found.message and "§ 315-13B(2)" in found.message


def test_segment_length_defaults_to_the_rulebook(wtm):
    main = straight_main(wtm, segment_length_ft=None)  # rulebook: 13 ft pipes
    found = wtm.run(Network(mains=[main], taps=[tap_at(wtm, 1, 13 * 12 + 3.0)]), only=JOINT)
    assert [f.measured for f in found] == [pytest.approx(3.0, abs=0.01)]


def test_recorded_joints_replace_nominal_ones(wtm):
    main = straight_main(wtm, segment_length_ft=20.0, joint_points=wtm.points((50, 0)))
    assert wtm.run(Network(mains=[main], taps=[tap_at(wtm, 1, 20 * 12)]), only=JOINT) == []


def test_main_ends_are_not_joints(wtm):
    main = straight_main(wtm, segment_length_ft=20.0)
    assert wtm.run(Network(mains=[main], taps=[tap_at(wtm, 1, 3.0)]), only=JOINT) == []


def test_recorded_joints_of_another_main_are_ignored(wtm):
    east = straight_main(wtm, segment_length_ft=100.0, joint_points=wtm.points((90, 0)))
    west = SewerMain(id=2, geometry=wtm.line((0, 0), (-100, 0)), segment_length_ft=100.0,
                     joint_points=wtm.points((-50, 0)))
    tap = tap_at(wtm, 1, -50 * 12 + 2.0, main_id=2)
    found = wtm.run(Network(mains=[east, west], taps=[tap]), only=JOINT)
    assert [f.subjects for f in found] == [(("tap", 1), ("main", 2))]


# ------------------------------------------------------------------ quadrant
@pytest.mark.parametrize(
    ("clock", "expected"),
    [
        (12.0, 0),
        (10.5, 0),  # 10:30
        (10 + 29 / 60, 1),  # 10:29
        (1.5, 0),  # 1:30
        (1 + 31 / 60, 1),  # 1:31
        (0.25, 0),  # 12:15
        (3.0, 1),
        (6.0, 1),
        (9.0, 1),
        (None, 0),  # not recorded: a data gap, not a breach
    ],
)
def test_tap_quadrant(wtm, clock, expected):
    tap = tap_at(wtm, 1, 30.0, clock_position=clock)
    found = wtm.run(Network(mains=[straight_main(wtm)], taps=[tap]), only=["TAP-QUADRANT"])
    assert len(found) == expected


def test_tap_quadrant_message_names_the_clock_position(wtm):
    tap = tap_at(wtm, 1, 30.0, clock_position=10 + 29 / 60)
    (found,) = wtm.run(Network(mains=[straight_main(wtm)], taps=[tap]), only=["TAP-QUADRANT"])
    assert "10:29 o'clock" in found.message and "10:30 to 1:30" in found.message
    assert found.limit == pytest.approx(10.5)


# ------------------------------------------------------------------ method
@pytest.mark.parametrize(
    ("method", "fitting", "expected"),
    [
        ("saddle", None, []),
        ("core", None, []),
        ("wye", "PVC", []),
        ("tee", "pvc", []),
        ("wye", None, []),  # fitting not recorded: a data gap
        (None, None, []),
        ("wye", "VCP", ["fitting"]),
        ("tee", "DIP", ["fitting"]),
        ("hammer", None, ["method"]),
    ],
)
def test_tap_method(wtm, method, fitting, expected):
    tap = tap_at(wtm, 1, 30.0, method=method, fitting_material=fitting)
    found = wtm.run(Network(mains=[straight_main(wtm)], taps=[tap]), only=["TAP-METHOD"])
    assert [f.aspect for f in found] == expected


def test_tap_method_compares_with_the_tapped_mains_material(wtm):
    clay = replace(straight_main(wtm), material="VCP")
    tap = tap_at(wtm, 1, 30.0, method="wye", fitting_material="VCP")
    assert wtm.run(Network(mains=[clay], taps=[tap]), only=["TAP-METHOD"]) == []


# ---- rules as of their date: § 315-13B(2) took effect 2009-08-13 (the rulebook's `effective`)
OLD, NEW = date(1984, 6, 1), date(2012, 5, 1)


@pytest.mark.parametrize(
    ("first", "second", "predates"),
    [
        (OLD, date(2001, 9, 1), "tap 1 installed 1984-06-01; tap 2 installed 2001-09-01, "
                                "before § 315-13B(2) took effect on 2009-08-13"),
        (OLD, NEW, ""),  # the later tap broke the rule
        (OLD, None, ""),  # an unrecorded date exempts nothing
        (date(2009, 8, 13), date(2009, 8, 13), ""),  # the day it took effect counts
    ],
)
def test_a_spacing_pair_pre_dates_the_rule_only_if_both_taps_do(wtm, first, second, predates):
    taps = [tap_at(wtm, 1, 30.0, installed_on=first), tap_at(wtm, 2, 40.0, installed_on=second)]
    (found,) = wtm.run(Network(mains=[straight_main(wtm)], taps=taps), only=SPACING)
    assert found.predates == predates


def test_a_joint_finding_looks_at_the_tap_not_its_main(wtm):
    main = replace(straight_main(wtm), install_year=1950)
    (found,) = wtm.run(Network(mains=[main], taps=[tap_at(wtm, 1, 13 * 12 + 2.0, installed_on=NEW)]), only=JOINT)
    assert found.predates == ""
