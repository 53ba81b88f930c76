"""Pressure sewers, § 315-14D: SDR 11 HDPE, 7 ft cover, flushing every 1,000 ft."""

from __future__ import annotations

import pytest

from gis.rules import Manhole, Network, SewerMain

PRESSURE = ["PRESSURE-SEWER"]


def force_main(site, length_ft=900.0, **fields):
    defaults = dict(id=1, geometry=site.line((0, 0), (length_ft, 0)), material="HDPE",
                    diameter_in=2.0, kind="pressure", sdr=11, cover_ft=7.5)
    return SewerMain(**{**defaults, **fields})


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        (dict(), []),
        (dict(material="PVC"), ["material"]),
        (dict(sdr=17), ["material"]),
        (dict(material=None, sdr=None), []),  # not recorded: a data gap
        (dict(cover_ft=6.5), ["cover"]),
        (dict(cover_ft=7.0), []),
        (dict(cover_ft=None), []),
        (dict(kind="gravity", material="PVC", cover_ft=3.0), []),
    ],
)
def test_pressure_main_pipe(wtm, fields, expected):
    found = wtm.run(Network(mains=[force_main(wtm, **fields)]), only=PRESSURE)
    assert [f.aspect for f in found] == expected


@pytest.mark.parametrize(("length_ft", "expected"), [(999.0, 0), (1001.0, 1)])
def test_dead_ends_count_as_flushing_points(site, length_ft, expected):
    found = site.run(Network(mains=[force_main(site, length_ft)]), only=PRESSURE)
    assert len(found) == expected


def test_flushing_connection_splits_a_long_main(wtm):
    main = force_main(wtm, 1800.0)
    flush = Manhole(id=7, geometry=wtm.pt(900.0, 1.0), kind="flushing")
    assert wtm.run(Network(mains=[main], manholes=[flush]), only=PRESSURE) == []


def test_ordinary_manhole_is_not_a_flushing_connection(wtm):
    main = force_main(wtm, 1800.0)
    hole = Manhole(id=7, geometry=wtm.pt(900.0, 0.0), kind="manhole")
    (found,) = wtm.run(Network(mains=[main], manholes=[hole]), only=PRESSURE)
    assert found.measured == pytest.approx(1800.0, abs=0.01)
    assert "1,800 ft" in found.message and "§ 315-14D" in found.message


def test_flushing_gap_is_keyed_by_its_bounding_connection(wtm):
    main = force_main(wtm, 1500.0)
    flush = Manhole(id=7, geometry=wtm.pt(200.0), kind="flushing")
    (found,) = wtm.run(Network(mains=[main], manholes=[flush]), only=PRESSURE)
    assert found.subjects == (("main", 1), ("manhole", 7))
    assert found.measured == pytest.approx(1300.0, abs=0.01)


def test_connected_end_is_not_a_dead_end(wtm):
    # 1,200 ft of pressure main whose far end joins a gravity main: one dead end only.
    main = force_main(wtm, 1200.0)
    outfall = SewerMain(id=2, geometry=wtm.line((1200, 0), (1200, -300)), kind="gravity")
    assert wtm.run(Network(mains=[main, outfall]), only=PRESSURE) == []


def test_flushing_spacing_runs_across_records_joined_end_to_end(wtm):
    first = force_main(wtm, 700.0)
    second = force_main(wtm, id=2, geometry=wtm.line((700, 0), (1400, 0)))
    (found,) = wtm.run(Network(mains=[first, second]), only=PRESSURE)
    assert found.subjects == (("main", 1), ("main", 2))
    assert found.measured == pytest.approx(1400.0, abs=0.01)


def test_flushing_connection_where_two_records_join(wtm):
    first = force_main(wtm, 700.0)
    second = force_main(wtm, id=2, geometry=wtm.line((700, 0), (1400, 0)))
    flush = Manhole(id=7, geometry=wtm.pt(700.0, 0.5), kind="flushing")
    assert wtm.run(Network(mains=[first, second], manholes=[flush]), only=PRESSURE) == []
