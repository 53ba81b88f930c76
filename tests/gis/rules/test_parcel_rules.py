"""Parcels: mandatory hookup candidates (§ 315-11D) and septic systems (§ 315-11C)."""

from __future__ import annotations

import pytest

from gis.rules import Lateral, Network, Parcel, ServiceArea, SewerMain

HOOKUP = ["HOOKUP-365"]
SEPTIC = ["SEPTIC-IN-AREA"]


def house(site, parcel_id=1, setback_ft=20.0, **fields):
    """A parcel with a building whose front line is ``setback_ft`` north of the main."""
    defaults = dict(id=parcel_id, parcel_number="206-00123",
                    geometry=site.box(0, setback_ft, 60, setback_ft + 100), has_building=True,
                    in_service_area=True)
    return Parcel(**{**defaults, **fields})


def gravity_main(site, **fields):
    defaults = dict(id=1, geometry=site.line((-100, 0), (200, 0)), material="PVC", kind="gravity")
    return SewerMain(**{**defaults, **fields})


def service_lateral(site, status="active"):
    return Lateral(id=1, parcel_id=1, geometry=site.line((30, 0), (30, 40)), status=status,
                   backflow_valve=True)


def test_unconnected_parcel_is_a_hookup_candidate(wtm):
    (found,) = wtm.run(Network(parcels=[house(wtm)], mains=[gravity_main(wtm)]), only=HOOKUP)
    assert found.subjects == (("parcel", 1),) and found.parcel_id == 1
    assert found.measured == pytest.approx(20.0, abs=0.01)
    assert "§ 315-11D" in found.message and "206-00123" in found.message


@pytest.mark.parametrize(("setback_ft", "expected"), [(149.0, 1), (151.0, 0)])
def test_hookup_adjacency_distance(wtm, setback_ft, expected):
    network = Network(parcels=[house(wtm, setback_ft=setback_ft)], mains=[gravity_main(wtm)])
    assert len(wtm.run(network, only=HOOKUP)) == expected


@pytest.mark.parametrize(
    "change",
    [
        dict(lateral="active"),
        dict(has_building=False),
        dict(in_service_area=False),
        dict(kind="pressure"),
    ],
    ids=["connected", "no-building", "outside-service-area", "only-a-pressure-main"],
)
def test_not_a_hookup_candidate(wtm, change):
    parcel = house(wtm, **{k: v for k, v in change.items() if k in ("has_building",
                                                                    "in_service_area")})
    main = gravity_main(wtm, kind=change.get("kind", "gravity"))
    laterals = [service_lateral(wtm, change["lateral"])] if "lateral" in change else []
    network = Network(parcels=[parcel], mains=[main], laterals=laterals)
    assert wtm.run(network, only=HOOKUP) == []


def test_abandoned_lateral_does_not_count_as_connected(wtm):
    network = Network(parcels=[house(wtm)], mains=[gravity_main(wtm)],
                      laterals=[service_lateral(wtm, "abandoned")])
    assert len(wtm.run(network, only=HOOKUP)) == 1


@pytest.mark.parametrize(("area_box", "expected"), [((-500, -500, 500, 500), 1),
                                                    ((1000, 1000, 2000, 2000), 0)])
def test_service_area_geometry_counts_without_the_flag(wtm, area_box, expected):
    network = Network(parcels=[house(wtm, in_service_area=False)], mains=[gravity_main(wtm)],
                      service_areas=[ServiceArea(id=1, geometry=wtm.box(*area_box))])
    assert len(wtm.run(network, only=HOOKUP)) == expected


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        (dict(has_septic=True), 1),
        (dict(has_septic=True, septic_approved=True), 0),
        (dict(has_septic=True, in_service_area=False), 0),
        (dict(has_septic=False), 0),
    ],
)
def test_septic_in_service_area(wtm, fields, expected):
    found = wtm.run(Network(parcels=[house(wtm, **fields)]), only=SEPTIC)
    assert len(found) == expected


def test_septic_message_cites_the_section(wtm):
    (found,) = wtm.run(Network(parcels=[house(wtm, has_septic=True)]), only=SEPTIC)
    assert "§ 315-11C" in found.message and found.parcel_id == 1
