"""Shape of the demo city: determinism, counts, columns, valid geometry, placement."""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import shapely
from shapely.strtree import STRtree

from server.demo.city import LAYERS, generate_city, iter_layers

COLUMNS = {
    "service_areas": {"id", "name", "geometry"},
    "streets": {"id", "name", "left_from", "left_to", "right_from", "right_to", "geometry"},
    "manholes": {"id", "facility_id", "kind", "rim_elev_ft", "geometry"},
    "mains": {
        "id", "facility_id", "material", "diameter_in", "segment_length_ft", "kind", "sdr",
        "cover_ft", "install_year", "from_manhole_id", "to_manhole_id", "geometry",
    },
    "parcels": {
        "id", "parcel_number", "owner_name", "owner_name_2", "mailing_street", "mailing_city",
        "mailing_state", "mailing_zip", "site_address", "user_class", "has_building",
        "in_service_area", "has_septic", "septic_approved", "geometry",
    },
    "laterals": {
        "id", "parcel_id", "material", "sdr", "diameter_in", "installed_on", "backflow_valve",
        "status", "is_new_or_replacement", "geometry",
    },
    "taps": {
        "id", "main_id", "lateral_id", "method", "fitting_material", "clock_position",
        "installed_on", "permit_number", "geometry",
    },
    "tracer_wires": {
        "id", "lateral_id", "gauge_awg", "in_conduit", "reaches_surface_at_wall", "geometry",
    },
    "findings": {
        "id", "parcel_id", "source", "connected_to_sanitary", "observed_on", "observed_by",
        "method", "notes", "geometry",
    },
}
GEOM_TYPE = {
    "streets": "LineString",
    "service_areas": "MultiPolygon", "manholes": "Point", "mains": "LineString",
    "parcels": "MultiPolygon", "laterals": "LineString", "taps": "Point",
    "tracer_wires": "LineString", "findings": "Point",
}
FOREIGN_KEYS = [
    ("mains", "from_manhole_id", "manholes"),
    ("mains", "to_manhole_id", "manholes"),
    ("laterals", "parcel_id", "parcels"),
    ("taps", "main_id", "mains"),
    ("taps", "lateral_id", "laterals"),
    ("tracer_wires", "lateral_id", "laterals"),
    ("findings", "parcel_id", "parcels"),
]


def frozen(rows):
    """Rows as comparable tuples, geometry as WKB (exact coordinates)."""
    return [
        tuple(sorted((k, shapely.to_wkb(v) if k == "geometry" else v) for k, v in row.items()))
        for row in rows
    ]


@pytest.mark.parametrize("layer", LAYERS)
def test_same_arguments_give_the_same_city(layer):
    first, second = generate_city(300, seed=7), generate_city(300, seed=7)
    assert frozen(getattr(first, layer)) == frozen(getattr(second, layer))


def test_same_arguments_give_the_same_deliberate_breaks():
    assert generate_city(300, seed=7).deliberate == generate_city(300, seed=7).deliberate


def test_another_seed_gives_another_city():
    assert frozen(generate_city(300, seed=7).laterals) != frozen(generate_city(300, seed=8).laterals)


@pytest.mark.parametrize("parcels", [200, 437, 1200, 2001])
def test_parcel_count_is_the_requested_one(parcels):
    assert len(generate_city(parcels).parcels) == parcels


def test_too_small_a_city_is_refused():
    with pytest.raises(ValueError, match="at least 200"):
        generate_city(199)


def test_streamed_batches_equal_the_whole_city():
    city = generate_city(400)
    streamed: dict[str, list] = {layer: [] for layer in LAYERS}
    for layer, rows in iter_layers(400, batch_size=37):
        assert len(rows) <= 37
        streamed[layer].extend(rows)
    assert all(frozen(streamed[layer]) == frozen(getattr(city, layer)) for layer in LAYERS)


def test_streamed_layers_come_parents_first():
    order = [layer for layer, _ in iter_layers(200, batch_size=10_000)]
    assert order == list(LAYERS)


@pytest.mark.parametrize("layer", LAYERS)
def test_rows_have_exactly_the_table_columns(demo_city_plan, layer):
    assert all(set(row) == COLUMNS[layer] for row in getattr(demo_city_plan, layer))


@pytest.mark.parametrize("layer", LAYERS)
def test_ids_are_one_based_and_consecutive(demo_city_plan, layer):
    ids = [row["id"] for row in getattr(demo_city_plan, layer)]
    assert ids == list(range(1, len(ids) + 1))


@pytest.mark.parametrize("layer", LAYERS)
def test_geometry_is_valid(demo_city_plan, layer):
    geoms = np.array([row["geometry"] for row in getattr(demo_city_plan, layer)])
    assert shapely.is_valid(geoms).all()


@pytest.mark.parametrize("layer", LAYERS)
def test_geometry_has_the_layer_type(demo_city_plan, layer):
    assert {row["geometry"].geom_type for row in getattr(demo_city_plan, layer)} == {GEOM_TYPE[layer]}


@pytest.mark.parametrize("child,column,parent", FOREIGN_KEYS)
def test_foreign_keys_resolve(demo_city_plan, child, column, parent):
    parent_ids = {row["id"] for row in getattr(demo_city_plan, parent)}
    assert {row[column] for row in getattr(demo_city_plan, child)} <= parent_ids


def test_every_lateral_has_exactly_one_tap(demo_city_plan):
    assert sorted(t["lateral_id"] for t in demo_city_plan.taps) == [lat["id"] for lat in demo_city_plan.laterals]


def test_parcel_rings_are_counter_clockwise(demo_city_plan):
    rings = [poly.exterior for row in demo_city_plan.parcels for poly in row["geometry"].geoms]
    assert all(shapely.is_ccw(rings))


def test_service_area_ring_is_counter_clockwise(demo_city_plan):
    assert shapely.is_ccw(demo_city_plan.service_areas[0]["geometry"].geoms[0].exterior)


def test_parcels_do_not_overlap(projected):
    parcels = projected["parcels"]
    left, right = STRtree(parcels).query(parcels, predicate="intersects")
    pairs = left < right
    shared = shapely.area(shapely.intersection(parcels[left[pairs]], parcels[right[pairs]]))
    assert shared.max(initial=0.0) < 1e-6  # square metres: neighbours only share edges


def test_in_service_area_matches_the_service_area_geometry(demo_city_plan):
    area = demo_city_plan.service_areas[0]["geometry"]
    inside = shapely.contains(area, np.array([row["geometry"] for row in demo_city_plan.parcels]))
    assert inside.tolist() == [row["in_service_area"] for row in demo_city_plan.parcels]


def test_most_but_not_all_parcels_are_sewered(demo_city_plan):
    share = np.mean([row["in_service_area"] for row in demo_city_plan.parcels])
    assert 0.8 < share < 1.0


def test_city_is_centred_near_arcadia(demo_city_plan):
    centre = demo_city_plan.service_areas[0]["geometry"].centroid
    assert abs(centre.x - -91.501) < 0.01 and abs(centre.y - 44.253) < 0.01


def test_every_coordinate_is_lon_lat_near_arcadia(demo_city_plan):
    coords = np.concatenate([
        shapely.get_coordinates(np.array([r["geometry"] for r in getattr(demo_city_plan, layer)]))
        for layer in LAYERS
    ])
    assert np.abs(coords - [-91.501, 44.253]).max() < 0.2


def test_mains_run_from_manhole_to_manhole(demo_city_plan):
    point = {m["id"]: m["geometry"] for m in demo_city_plan.manholes}
    ends = [
        (row["geometry"].coords[0], point[row["from_manhole_id"]].coords[0],
         row["geometry"].coords[-1], point[row["to_manhole_id"]].coords[0])
        for row in demo_city_plan.mains
    ]
    assert all(a == b and c == d for a, b, c, d in ends)


def test_gravity_mains_start_upstream(demo_city_plan):
    rim = {m["id"]: m["rim_elev_ft"] for m in demo_city_plan.manholes}
    gravity = [m for m in demo_city_plan.mains if m["kind"] == "gravity"]
    assert all(rim[m["from_manhole_id"]] > rim[m["to_manhole_id"]] for m in gravity)


def test_tracer_wire_follows_its_lateral_within_a_foot(demo_city_plan, projected):
    lateral = {row["id"]: i for i, row in enumerate(demo_city_plan.laterals)}
    rows = [lateral[w["lateral_id"]] for w in demo_city_plan.tracer_wires]
    distance = shapely.hausdorff_distance(projected["tracer_wires"], projected["laterals"][rows])
    assert distance.max() < 0.3


def test_findings_lie_inside_their_parcel(demo_city_plan):
    parcel = {row["id"]: row["geometry"] for row in demo_city_plan.parcels}
    assert all(parcel[f["parcel_id"]].contains(f["geometry"]) for f in demo_city_plan.findings)


def test_lateral_ends_inside_its_parcel(demo_city_plan):
    parcel = {row["id"]: row["geometry"] for row in demo_city_plan.parcels}
    ends = [(parcel[lat["parcel_id"]], shapely.Point(lat["geometry"].coords[-1])) for lat in demo_city_plan.laterals]
    assert all(p.contains(end) for p, end in ends)


def test_unmailable_parcels_have_no_mailing_street(demo_city_plan):
    by_id = {row["id"]: row for row in demo_city_plan.parcels}
    assert demo_city_plan.unmailable and all(by_id[p]["mailing_street"] is None for p in demo_city_plan.unmailable)


def test_only_the_unmailable_parcels_lack_a_mailing_street(demo_city_plan):
    missing = [row["id"] for row in demo_city_plan.parcels if row["mailing_street"] is None]
    assert missing == demo_city_plan.unmailable


def test_tap_dates_avoid_frozen_ground_months(demo_city_plan):
    assert {t["installed_on"].month for t in demo_city_plan.taps} <= set(range(4, 12))



DIGEST_SCRIPT = """
import hashlib, shapely
from server.demo.city import LAYERS, generate_city
city = generate_city(300, seed=7)
h = hashlib.sha256(repr(city.deliberate).encode())
for layer in LAYERS:
    for row in getattr(city, layer):
        for key in sorted(row):
            v = row[key]
            h.update(shapely.to_wkb(v) if key == "geometry" else repr(v).encode())
print(h.hexdigest())
"""


def test_city_does_not_depend_on_the_process_hash_seed():
    root = Path(__file__).resolve().parents[2]

    def digest(hash_seed: str) -> str:
        env = {**os.environ, "PYTHONHASHSEED": hash_seed, "PYTHONPATH": str(root)}
        run = subprocess.run(
            [sys.executable, "-c", DIGEST_SCRIPT], env=env, cwd=root,
            capture_output=True, text=True, check=True,
        )
        return run.stdout.strip()

    assert digest("1") == digest("2")


@pytest.mark.parametrize("layer", LAYERS)
def test_values_are_plain_python_types_a_database_driver_accepts(demo_city_plan, layer):
    plain = (str, int, float, bool, type(None), dt.date)
    kinds = {type(v) for row in getattr(demo_city_plan, layer) for k, v in row.items() if k != "geometry"}
    assert kinds <= set(plain)
