"""The planted rule breaks: each rule's plain reading finds exactly the listed rows.

These reference checks are deliberately naive restatements of RULES.md; the real rules
engine lives in ``gis/`` and is tested against this city elsewhere.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter

import numpy as np
import pytest
import shapely
from shapely.strtree import STRtree

from server.demo.city import generate_city

CUTOVER = dt.date(2009, 1, 1)
HOOKUP_REACH_M = 150 * 0.3048


def off_crown(clock: float) -> bool:
    """Outside 10:30-1:30 o'clock, the upper quadrant."""
    h = clock % 12
    return min(h, 12 - h) > 1.5


def quadrant(city, projected):
    return {("tap", t["id"]) for t in city.taps if off_crown(t["clock_position"])}


def method(city, projected):
    material = {m["id"]: m["material"] for m in city.mains}
    return {
        ("tap", t["id"])
        for t in city.taps
        if t["method"] in ("wye", "tee") and t["fitting_material"] != material[t["main_id"]]
    }


def sdr26(city, projected):
    return {
        ("lateral", lat["id"])
        for lat in city.laterals
        if lat["is_new_or_replacement"] and (lat["material"], lat["sdr"]) != ("PVC", 26)
    }


def backflow(city, projected):
    return {("lateral", lat["id"]) for lat in city.laterals if lat["backflow_valve"] is not True}


def tracer(city, projected):
    wired = {w["lateral_id"] for w in city.tracer_wires}
    return {
        ("lateral", lat["id"])
        for lat in city.laterals
        if lat["installed_on"] >= CUTOVER and lat["material"] == "PVC" and lat["id"] not in wired
    }


def hookup(city, projected):
    """Any parcel with a building, no lateral, and a main within 150 ft."""
    served = {lat["parcel_id"] for lat in city.laterals}
    tree = STRtree(projected["mains"])
    near = tree.query(projected["parcels"], predicate="dwithin", distance=HOOKUP_REACH_M)
    near_parcels = set((near[0] + 1).tolist())
    return {
        ("parcel", p["id"])
        for p in city.parcels
        if p["has_building"] and p["id"] not in served and p["id"] in near_parcels
    }


def septic(city, projected):
    return {
        ("parcel", p["id"])
        for p in city.parcels
        if p["in_service_area"] and p["has_septic"] and not p["septic_approved"]
    }


def pressure(city, projected):
    return {
        ("main", m["id"])
        for m in city.mains
        if m["kind"] == "pressure"
        and (m["cover_ft"] < 7.0 or (m["material"], m["sdr"]) != ("HDPE", 11))
    }


def clear_water(city, projected):
    return {("finding", f["id"]) for f in city.findings if f["connected_to_sanitary"] == "yes"}


CHECKS = {
    "TAP-QUADRANT": quadrant,
    "TAP-METHOD": method,
    "LATERAL-SDR26": sdr26,
    "BACKFLOW-VALVE": backflow,
    "TRACER-WIRE": tracer,
    "HOOKUP-365": hookup,
    "SEPTIC-IN-AREA": septic,
    "PRESSURE-SEWER": pressure,
    "CLEAR-WATER": clear_water,
}
ALL_RULES = set(CHECKS) | {"TAP-SPACING-24IN", "TAP-JOINT-6IN"}


@pytest.mark.parametrize("rule", sorted(CHECKS))
def test_rule_finds_exactly_the_planted_breaks(demo_city_plan, projected, rule):
    planted = {(layer, i) for r, layer, i in demo_city_plan.deliberate if r == rule}
    assert CHECKS[rule](demo_city_plan, projected) == planted


def test_every_kind_of_break_is_planted(demo_city_plan):
    assert {rule for rule, _, _ in demo_city_plan.deliberate} == ALL_RULES


def test_no_row_is_listed_twice(demo_city_plan):
    keys = [(layer, i) for _, layer, i in demo_city_plan.deliberate]
    assert len(keys) == len(set(keys))


@pytest.mark.parametrize("layer", ["parcel", "main", "lateral", "tap", "finding"])
def test_planted_ids_exist(demo_city_plan, layer):
    ids = {row["id"] for row in getattr(demo_city_plan, f"{layer}s")}
    assert {i for _, lay, i in demo_city_plan.deliberate if lay == layer} <= ids


@pytest.mark.parametrize("parcels", [200, 5000])
def test_break_counts_do_not_grow_with_the_city(parcels):
    counts = Counter(rule for rule, _, _ in generate_city(parcels).deliberate)
    assert counts == Counter(rule for rule, _, _ in generate_city(1200).deliberate)


def test_one_pressure_main_is_sound(demo_city_plan):
    sound = [m for m in demo_city_plan.mains if m["kind"] == "pressure" and m["cover_ft"] >= 7.0]
    assert len(sound) == 1


def test_a_council_approved_septic_sits_inside_the_area(demo_city_plan):
    assert any(p["in_service_area"] and p["has_septic"] and p["septic_approved"] for p in demo_city_plan.parcels)


def test_hookup_candidates_are_inside_the_service_area(demo_city_plan):
    by_id = {p["id"]: p for p in demo_city_plan.parcels}
    hooks = [i for rule, _, i in demo_city_plan.deliberate if rule == "HOOKUP-365"]
    assert all(by_id[i]["in_service_area"] for i in hooks)


def test_unsewered_buildings_are_beyond_hookup_reach(demo_city_plan, projected):
    outside = np.array([not p["in_service_area"] for p in demo_city_plan.parcels])
    distance = shapely.distance(
        projected["parcels"][outside][:, None], projected["mains"][None, :]
    ).min(axis=1)
    assert distance.min() > HOOKUP_REACH_M
