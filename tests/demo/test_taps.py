"""Taps and building sewers measured in EPSG:3071, as § 315-13B(2) measures them."""

from __future__ import annotations

from collections import defaultdict
from itertools import pairwise

import numpy as np
import pytest
import shapely

INCH = 0.0254
FT = 0.3048


def tap_positions(city, projected) -> dict[int, list[tuple[float, int]]]:
    """Per main id: (distance of each tap from the main's start in m, tap id), sorted."""
    main_row = {row["id"]: i for i, row in enumerate(city.mains)}
    rows = [main_row[t["main_id"]] for t in city.taps]
    along = shapely.line_locate_point(projected["mains"][rows], projected["taps"])
    out: dict[int, list[tuple[float, int]]] = defaultdict(list)
    for tap, d in zip(city.taps, along.tolist(), strict=True):
        out[tap["main_id"]].append((d, tap["id"]))
    return {k: sorted(v) for k, v in out.items()}


def deliberate(city, rule: str) -> set[int]:
    return {i for r, layer, i in city.deliberate if r == rule and layer == "tap"}


def test_every_tap_lies_on_its_main(demo_city_plan, projected):
    main_row = {row["id"]: i for i, row in enumerate(demo_city_plan.mains)}
    mains = projected["mains"][[main_row[t["main_id"]] for t in demo_city_plan.taps]]
    assert shapely.distance(mains, projected["taps"]).max() < 0.001


def test_lateral_starts_exactly_at_its_tap(demo_city_plan):
    lateral = {row["id"]: row["geometry"] for row in demo_city_plan.laterals}
    assert all(lateral[t["lateral_id"]].coords[0] == t["geometry"].coords[0] for t in demo_city_plan.taps)


def test_taps_are_only_on_gravity_mains(demo_city_plan):
    kind = {m["id"]: m["kind"] for m in demo_city_plan.mains}
    assert {kind[t["main_id"]] for t in demo_city_plan.taps} == {"gravity"}


def test_clean_taps_are_at_least_36in_from_the_next_tap(demo_city_plan, projected):
    close = deliberate(demo_city_plan, "TAP-SPACING-24IN")
    gaps = [
        b[0] - a[0]
        for taps in tap_positions(demo_city_plan, projected).values()
        for a, b in pairwise(taps)
        if not {a[1], b[1]} & close
    ]
    assert min(gaps) >= 36 * INCH


def test_clean_taps_are_at_least_6in_from_a_joint(demo_city_plan, projected):
    near_joint = deliberate(demo_city_plan, "TAP-JOINT-6IN")
    seg = {m["id"]: m["segment_length_ft"] * FT for m in demo_city_plan.mains}
    clearances = [
        min(d % seg[main], seg[main] - d % seg[main])
        for main, taps in tap_positions(demo_city_plan, projected).items()
        for d, tap in taps
        if tap not in near_joint
    ]
    assert min(clearances) >= 6 * INCH


def test_deliberately_close_taps_have_a_neighbour_within_24in(demo_city_plan, projected):
    close = set()
    for taps in tap_positions(demo_city_plan, projected).values():
        for a, b in pairwise(taps):
            if b[0] - a[0] < 24 * INCH:
                close |= {a[1], b[1]}
    assert close == deliberate(demo_city_plan, "TAP-SPACING-24IN")


def test_deliberately_near_joint_taps_are_within_6in_of_a_joint(demo_city_plan, projected):
    seg = {m["id"]: m["segment_length_ft"] * FT for m in demo_city_plan.mains}
    near = {
        tap
        for main, taps in tap_positions(demo_city_plan, projected).items()
        for d, tap in taps
        if min(d % seg[main], seg[main] - d % seg[main]) < 6 * INCH
    }
    assert near == deliberate(demo_city_plan, "TAP-JOINT-6IN")


@pytest.mark.parametrize("size", [200], indirect=True)
def test_tap_lies_within_its_parcels_frontage(demo_city_plan, projected):
    parcel_row = {row["id"]: i for i, row in enumerate(demo_city_plan.parcels)}
    lateral_parcel = {row["id"]: row["parcel_id"] for row in demo_city_plan.laterals}
    parcels = projected["parcels"][[parcel_row[lateral_parcel[t["lateral_id"]]] for t in demo_city_plan.taps]]
    x = shapely.get_x(projected["taps"])
    bounds = shapely.bounds(parcels)
    assert np.all((bounds[:, 0] < x) & (x < bounds[:, 2]))
