"""Building sewers: exclusive sewer, tracer wire, SDR 26 PVC and backflow valves."""

from __future__ import annotations

from datetime import date

import pytest

from gis.rules import Lateral, Network, Parcel, TracerWire

NEW = date(2015, 6, 1)
OLD = date(1990, 6, 1)


def lateral(site, lateral_id=1, parcel_id=1, x=10.0, **fields):
    """A lateral from the main (y = 0) north 40 ft to a building on the parcel at ``x``."""
    defaults = dict(id=lateral_id, parcel_id=parcel_id, geometry=site.line((x, 0), (x, 40)),
                    material="PVC", sdr=26, diameter_in=4.0, installed_on=NEW,
                    backflow_valve=True, status="active")
    return Lateral(**{**defaults, **fields})


def parcel(site, parcel_id, x0, x1, **fields):
    """A parcel north of the street, from ``x0`` to ``x1`` ft east."""
    defaults = dict(id=parcel_id, parcel_number=f"206-00{parcel_id}",
                    geometry=site.box(x0, 20, x1, 80), has_building=True)
    return Parcel(**{**defaults, **fields})


def wire(site, lateral_id=1, x=10.0, y_end=40.0, **fields):
    defaults = dict(id=100 + lateral_id, lateral_id=lateral_id,
                    geometry=site.line((x + 0.3, 0), (x + 0.3, y_end)), gauge_awg=14,
                    in_conduit=True, reaches_surface_at_wall=None)
    return TracerWire(**{**defaults, **fields})


# ------------------------------------------------------------------ EXCLUSIVE-SEWER
EXCLUSIVE = ["EXCLUSIVE-SEWER"]


@pytest.mark.parametrize(("owner", "expected"), [(1, []), (2, ["building-end"])])
def test_building_end_on_another_parcel(wtm, owner, expected):
    parcels = [parcel(wtm, 1, 0, 50), parcel(wtm, 2, 50, 100)]
    laterals = [lateral(wtm, parcel_id=owner, x=10.0)]
    found = wtm.run(Network(parcels=parcels, laterals=laterals), only=EXCLUSIVE)
    assert [f.aspect for f in found] == expected


def test_laterals_merging_off_the_main(wtm):
    # Lateral 2 runs from its own tap diagonally into lateral 1 at (10, 30).
    laterals = [lateral(wtm, 1, x=10.0), lateral(wtm, 2, parcel_id=2, x=30.0,
                geometry=wtm.line((30, 0), (10, 30)))]
    (found,) = wtm.run(Network(laterals=laterals), only=EXCLUSIVE)
    assert (found.aspect, found.subjects) == ("merge", (("lateral", 1), ("lateral", 2)))
    assert "§ 315-12A" in found.message


def test_laterals_sharing_one_tap_do_not_merge(wtm):
    laterals = [lateral(wtm, 1, geometry=wtm.line((10, 0), (0, 40))),
                lateral(wtm, 2, parcel_id=2, geometry=wtm.line((10, 0), (20, 40)))]
    assert wtm.run(Network(laterals=laterals), only=EXCLUSIVE) == []


def test_laterals_sharing_a_tap_then_running_together_merge(wtm):
    laterals = [lateral(wtm, 1, geometry=wtm.line((10, 0), (10, 40))),
                lateral(wtm, 2, parcel_id=2, geometry=wtm.line((10, 0), (10.2, 30), (30, 40)))]
    assert [f.aspect for f in wtm.run(Network(laterals=laterals), only=EXCLUSIVE)] == ["merge"]


@pytest.mark.parametrize(("gap_ft", "expected"), [(0.4, 1), (0.6, 0)])
def test_merge_tolerance(wtm, gap_ft, expected):
    laterals = [lateral(wtm, 1, x=10.0), lateral(wtm, 2, parcel_id=2, x=10.0 + gap_ft)]
    assert len(wtm.run(Network(laterals=laterals), only=EXCLUSIVE)) == expected


def test_abandoned_laterals_are_not_compared(wtm):
    laterals = [lateral(wtm, 1, x=10.0), lateral(wtm, 2, parcel_id=2, x=10.1, status="abandoned")]
    assert wtm.run(Network(laterals=laterals), only=EXCLUSIVE) == []


# ------------------------------------------------------------------ TRACER-WIRE
TRACER = ["TRACER-WIRE"]


def test_tracer_wire_present_and_reaching_the_wall(site):
    network = Network(laterals=[lateral(site)], tracer_wires=[wire(site)])
    assert site.run(network, only=TRACER) == []


def test_missing_tracer_wire(site):
    (found,) = site.run(Network(laterals=[lateral(site)]), only=TRACER)
    assert found.aspect == "missing" and "§ 315-13C(3)" in found.message


@pytest.mark.parametrize(
    "fields",
    [dict(installed_on=OLD), dict(material="VCP", sdr=None), dict(installed_on=None),
     dict(status="abandoned")],
    ids=["before-cutover", "not-pvc", "date-unknown", "abandoned"],
)
def test_tracer_wire_not_required(wtm, fields):
    assert wtm.run(Network(laterals=[lateral(wtm, **fields)]), only=TRACER) == []


def test_tracer_wire_required_for_flagged_replacement_of_unknown_date(wtm):
    lat = lateral(wtm, installed_on=None, is_new_or_replacement=True)
    assert [f.aspect for f in wtm.run(Network(laterals=[lat]), only=TRACER)] == ["missing"]


def test_tracer_wire_that_wanders_off(wtm):
    # Follows the first 10 ft, then turns east: within 2 ft of 12 ft of the 40 ft lateral.
    stray = wire(wtm, geometry=wtm.line((10.3, 0), (10.3, 10), (30, 10)),
                 reaches_surface_at_wall=True)
    found = wtm.run(Network(laterals=[lateral(wtm)], tracer_wires=[stray]), only=TRACER)
    assert [f.aspect for f in found] == ["follow"]
    assert found[0].measured == pytest.approx(30, abs=0.5)


@pytest.mark.parametrize(("y_end", "flag", "expected"), [
    (38.0, None, []),  # 2 ft short: within 3 ft
    (30.0, None, ["wall-end"]),  # 10 ft short
    (30.0, True, []),  # recorded as reaching the surface at the wall
])
def test_tracer_wire_end_at_the_wall(wtm, y_end, flag, expected):
    w = wire(wtm, y_end=y_end, reaches_surface_at_wall=flag)
    network = Network(laterals=[lateral(wtm)], tracer_wires=[w])
    found = [f for f in wtm.run(network, only=TRACER) if f.aspect != "follow"]
    assert [f.aspect for f in found] == expected


def test_tracer_wire_outside_conduit(wtm):
    network = Network(laterals=[lateral(wtm)], tracer_wires=[wire(wtm, in_conduit=False)])
    (found,) = wtm.run(network, only=TRACER)
    assert found.aspect == "conduit"
    assert found.subjects == (("lateral", 1), ("tracer_wire", 101))


# ------------------------------------------------------------------ LATERAL-SDR26
@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        (dict(), 0),
        (dict(sdr=35), 1),
        (dict(material="VCP", sdr=None), 1),
        (dict(material="pvc"), 0),
        (dict(sdr=None), 0),  # SDR unknown: a data gap
        (dict(sdr=35, installed_on=OLD), 0),  # before the cut-over
        (dict(sdr=35, installed_on=OLD, is_new_or_replacement=True), 1),
        (dict(installed_on=date(2009, 1, 1), sdr=35), 1),  # on the cut-over date
    ],
)
def test_lateral_sdr26(wtm, fields, expected):
    found = wtm.run(Network(laterals=[lateral(wtm, **fields)]), only=["LATERAL-SDR26"])
    assert len(found) == expected


def test_lateral_sdr26_message(wtm):
    lat = lateral(wtm, sdr=35)
    (found,) = wtm.run(Network(laterals=[lat]), only=["LATERAL-SDR26"])
    assert "PVC SDR 35" in found.message and "§ 315-13C(3)" in found.message


# ------------------------------------------------------------------ BACKFLOW-VALVE
@pytest.mark.parametrize(
    ("valve", "status", "expected"),
    [(True, "active", 0), (False, "active", 1), (None, "active", 1), (False, "abandoned", 0)],
)
def test_backflow_valve(wtm, valve, status, expected):
    lat = lateral(wtm, backflow_valve=valve, status=status)
    found = wtm.run(Network(laterals=[lat]), only=["BACKFLOW-VALVE"])
    assert len(found) == expected


def test_tracer_wire_in_two_pieces_counts_both(wtm):
    pieces = [wire(wtm, y_end=20.0), wire(wtm, geometry=wtm.line((10.3, 20), (10.3, 39)))]
    pieces[1] = TracerWire(id=202, lateral_id=1, geometry=pieces[1].geometry, in_conduit=True)
    network = Network(laterals=[lateral(wtm)], tracer_wires=pieces)
    assert wtm.run(network, only=TRACER) == []
