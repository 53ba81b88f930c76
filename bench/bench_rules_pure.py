"""Benchmark: the pure rules engine over a synthetic city of ~160,000 parcels.

A deterministic street grid near Arcadia, WI, drawn in EPSG:3071: east-west streets,
one gravity main per 240 m block, 15 m lots on both sides, one tap and one lateral per
lot, tracer wire on most post-2009 PVC laterals, and a few pressure mains. Random
defects (seeded) give every rule something to find.

    .venv/bin/python bench/bench_rules_pure.py [--rows 50] [--blocks 100]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from datetime import date
from pathlib import Path

import numpy as np
import shapely
from pyproj import Transformer

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from gis.rulebook import load_rulebook  # noqa: E402
from gis.rules import (  # noqa: E402
    Lateral,
    Manhole,
    Network,
    Parcel,
    ServiceArea,
    SewerMain,
    Tap,
    TracerWire,
    registered_rules,
    run_rules,
)

BLOCK_M, LOT_M, DEPTH_M, ROW_M = 240.0, 15.0, 35.0, 80.0
LOTS = int(BLOCK_M // LOT_M)
TO_LONLAT = Transformer.from_crs("EPSG:3071", "EPSG:4326", always_xy=True)
ORIGIN = Transformer.from_crs("EPSG:4326", "EPSG:3071", always_xy=True).transform(-91.55, 44.2)


def lonlat(xy: np.ndarray) -> np.ndarray:
    x, y = TO_LONLAT.transform(xy[..., 0] + ORIGIN[0], xy[..., 1] + ORIGIN[1])
    return np.stack([x, y], axis=-1)


def build(rows: int, blocks: int, seed: int = 20260101) -> Network:
    rng = np.random.default_rng(seed)
    r, c = np.divmod(np.arange(rows * blocks), blocks)
    x0, y = c * BLOCK_M, r * ROW_M
    # A slight kink mid-block so mains are not all straight.
    main_xy = np.stack([np.stack([x0, y], -1), np.stack([x0 + BLOCK_M / 2, y + 0.5], -1),
                        np.stack([x0 + BLOCK_M, y], -1)], axis=1)
    main_geoms = shapely.linestrings(lonlat(main_xy))
    mains = [SewerMain(id=int(i), geometry=g, material="PVC", diameter_in=8.0,
                       segment_length_ft=13.0, kind="gravity", install_year=1975)
             for i, g in enumerate(main_geoms)]

    # Lots: for each main, LOTS on the north side and LOTS on the south side.
    m = np.repeat(np.arange(len(mains)), 2 * LOTS)
    side = np.tile(np.repeat([1.0, -1.0], LOTS), len(mains))
    k = np.tile(np.arange(LOTS), 2 * len(mains))
    lx0 = x0[m] + k * LOT_M
    near, far = y[m] + 5 * side, y[m] + DEPTH_M * side
    corners = np.stack([np.stack([lx0, near], -1), np.stack([lx0 + LOT_M, near], -1),
                        np.stack([lx0 + LOT_M, far], -1), np.stack([lx0, far], -1),
                        np.stack([lx0, near], -1)], axis=1)
    lot_geoms = shapely.polygons(lonlat(corners))
    n = len(m)
    has_building = rng.random(n) > 0.03
    has_septic = rng.random(n) < 0.005
    parcels = [Parcel(id=int(i), parcel_number=f"206-{i:06d}", geometry=g,
                      has_building=bool(b), in_service_area=False, has_septic=bool(s))
               for i, (g, b, s) in enumerate(zip(lot_geoms, has_building, has_septic, strict=True))]

    # Taps on the main (north lots at 7.5 m into the lot, south lots at 10.5 m).
    tx = lx0 + np.where(side > 0, 7.5, 10.5)
    tx -= np.where((side < 0) & (rng.random(n) < 0.004), 2.8, 0.0)  # 0.2 m from the north tap
    along = tx - x0[m]
    ty = y[m] + np.where(along < BLOCK_M / 2, along, BLOCK_M - along) / (BLOCK_M / 2) * 0.5
    tap_geoms = shapely.points(lonlat(np.stack([tx, ty], -1)))
    stray = np.where(rng.random(n) < 0.002, LOT_M, 0.0)  # building end on the next lot
    lateral_xy = np.stack([np.stack([tx, ty], -1), np.stack([tx + stray, y[m] + 25 * side], -1)],
                          axis=1)
    lateral_geoms = shapely.linestrings(lonlat(lateral_xy))
    wire_xy = lateral_xy + np.array([0.1, 0.0])
    wire_geoms = shapely.linestrings(lonlat(wire_xy))
    connected = rng.random(n) > 0.02
    years = rng.integers(1950, 2026, n)
    clocks = np.where(rng.random(n) < 0.02, 3.0, 12.0)
    methods = np.where(rng.random(n) < 0.01, "wye", "saddle")
    valve = rng.random(n) > 0.2
    wired = rng.random(n) > 0.1
    taps, laterals, wires = [], [], []
    for i in np.flatnonzero(connected).tolist():
        year = int(years[i])
        pvc = year >= 1990
        taps.append(Tap(id=i, main_id=int(m[i]), lateral_id=i, geometry=tap_geoms[i],
                        method=str(methods[i]), fitting_material="VCP" if methods[i] == "wye"
                        else None, clock_position=float(clocks[i]),
                        installed_on=date(year, 6, 1)))
        laterals.append(Lateral(id=i, parcel_id=i, geometry=lateral_geoms[i],
                                material="PVC" if pvc else "VCP", sdr=26 if pvc else None,
                                diameter_in=4.0, installed_on=date(year, 6, 1),
                                backflow_valve=bool(valve[i]), status="active"))
        if pvc and year >= 2009 and wired[i]:
            wires.append(TracerWire(id=i, lateral_id=i, geometry=wire_geoms[i], gauge_awg=14,
                                    in_conduit=True, reaches_surface_at_wall=None))

    # Pressure mains north of the grid, flushing manholes every 250 m with gaps.
    manholes = []
    top = rows * ROW_M + 100
    for p in range(20):
        pid = len(mains)
        py = top + p * 50
        line = shapely.linestrings(lonlat(np.array([[0.0, py], [1500.0, py]])))
        mains.append(SewerMain(id=pid, geometry=line, material="HDPE", diameter_in=3.0,
                               kind="pressure", sdr=11 if p % 5 else 17,
                               cover_ft=7.5 if p % 7 else 6.0))
        for f in range(1, 6):
            if (p + f) % 4:
                pt = shapely.points(lonlat(np.array([f * 250.0, py])))
                manholes.append(Manhole(id=len(manholes), geometry=pt, kind="flushing"))
    area = shapely.polygons(lonlat(np.array(
        [[-500.0, -500.0], [blocks * BLOCK_M + 500, -500.0],
         [blocks * BLOCK_M + 500, top + 2000], [-500.0, top + 2000], [-500.0, -500.0]])))
    return Network(parcels=parcels, mains=mains, manholes=manholes, laterals=laterals,
                   taps=taps, tracer_wires=wires,
                   service_areas=[ServiceArea(id=1, geometry=area)])


def neighbourhood(network: Network, tap: Tap, index) -> Network:
    """What the server would load on saving ``tap``: its main and that main's features."""
    taps = index["taps_by_main"][tap.main_id]
    lateral_ids = {t.lateral_id for t in taps}
    laterals = [index["laterals"][i] for i in lateral_ids if i in index["laterals"]]
    return Network(
        mains=[index["mains"][tap.main_id]], taps=taps, laterals=laterals,
        parcels=[index["parcels"][lat.parcel_id] for lat in laterals],
        tracer_wires=[index["wires"][i] for i in lateral_ids if i in index["wires"]],
        service_areas=network.service_areas,
    )


def timed(fn, repeat: int):
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return min(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=50)
    parser.add_argument("--blocks", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    rulebook = load_rulebook("arcadia")

    start = time.perf_counter()
    network = build(args.rows, args.blocks)
    print(f"synthesised in {time.perf_counter() - start:.1f} s: {len(network.parcels):,} parcels, "
          f"{len(network.mains):,} mains, {len(network.taps):,} taps, "
          f"{len(network.laterals):,} laterals, {len(network.tracer_wires):,} tracer wires")

    cpu = time.process_time()
    seconds, found = timed(lambda: run_rules(network, rulebook), args.repeat)
    cpu = (time.process_time() - cpu) / args.repeat
    print(f"whole network, all rules: {seconds:.2f} s wall (best of {args.repeat}), "
          f"{cpu:.2f} s CPU (mean), {len(found):,} violations")
    for rule in registered_rules():
        seconds, some = timed(lambda r=rule.id: run_rules(network, rulebook, only=[r]), 1)
        print(f"  {rule.id:<18} {seconds:6.2f} s  {len(some):>7,} violations")

    index = {
        "mains": {mn.id: mn for mn in network.mains},
        "laterals": {lat.id: lat for lat in network.laterals},
        "parcels": {p.id: p for p in network.parcels},
        "wires": {w.lateral_id: w for w in network.tracer_wires},
        "taps_by_main": {},
    }
    for t in network.taps:
        index["taps_by_main"].setdefault(t.main_id, []).append(t)
    sample = network.taps[:: max(1, len(network.taps) // 200)]
    save_times = []
    for tap in sample:
        small = neighbourhood(network, tap, index)
        seconds, _ = timed(lambda s=small, t=tap: run_rules(s, rulebook, subjects=[("tap", t.id)]),
                           1)
        save_times.append(seconds)
    save_times.sort()
    print(f"one tap on save ({len(sample)} saves, ~{2 * LOTS} taps per main): "
          f"median {1000 * statistics.median(save_times):.1f} ms, "
          f"p95 {1000 * save_times[int(0.95 * len(save_times))]:.1f} ms, "
          f"max {1000 * save_times[-1]:.1f} ms")


if __name__ == "__main__":
    main()
