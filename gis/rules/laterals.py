"""Rules on building sewers (laterals): § 315-12A, § 315-12D, § 315-13C(3)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from datetime import date

import numpy as np
import shapely

from gis.arrays import BoolArray, FloatArray, IntArray
from gis.crs import Measurer
from gis.rules.network import FeatureId, Lateral
from gis.rules.registry import Params, RuleViolation, fmt_length, fmt_number, rule, violation
from gis.rules.view import NetworkView

# A lateral's id -> indexes of its tracer wires in view.network.tracer_wires.
WiresOf = dict[FeatureId, list[int]]


def _as_date(value: object) -> date:
    return value if isinstance(value, date) else date.fromisoformat(str(value))


def _status_mask(view: NetworkView, statuses: Iterable[str]) -> BoolArray:
    wanted = set(statuses)
    return np.array([lat.status in wanted for lat in view.network.laterals], dtype=bool)


@rule(
    "EXCLUSIVE-SEWER",
    "§ 315-12A",
    "A building sewer serves one property only: it ends on its own parcel and does not "
    "join another building sewer except at one shared tap on the main.",
    merge_tolerance_ft=0.5,
    shared_tap_radius_ft=3.0,
    statuses=["active", "proposed"],
)
def exclusive_sewer(view: NetworkView, params: Params, measurer: Measurer) -> Iterator[RuleViolation]:
    """§ 315-12A: building end on the lateral's own parcel; no merging with another lateral."""
    live = np.flatnonzero(_status_mask(view, params["statuses"]))
    yield from _ends_off_parcel(view, params, live)
    yield from _merging(view, params, measurer, live)


def _ends_off_parcel(view: NetworkView, params: Params, live: IntArray) -> Iterator[RuleViolation]:
    laterals = view.network.laterals
    owned = live[[laterals[i].parcel_id is not None for i in live]]
    if not len(owned) or not len(view.network.parcels):
        return
    hit_lat, hit_parcel = view.parcel_tree.query(view.lateral_ends[owned], predicate="within")
    parcel_at = {ident: i for i, ident in enumerate(view.parcel_ids)}
    own = np.array([parcel_at.get(laterals[i].parcel_id, -1) for i in owned], dtype=np.int64)
    at_home = np.zeros(len(owned), dtype=bool)
    at_home[hit_lat[own[hit_lat] == hit_parcel]] = True
    away = ~at_home[hit_lat]
    first_other: dict[int, FeatureId] = {}
    for li, pi in zip(hit_lat[away].tolist(), hit_parcel[away].tolist(), strict=True):
        ident = view.parcel_ids[pi]
        if li not in first_other or str(ident) < str(first_other[li]):
            first_other[li] = ident
    for li, other in sorted(first_other.items()):
        lat = laterals[owned[li]]
        yield violation(
            params,
            ("lateral", lat.id),
            ("parcel", lat.parcel_id),
            ("parcel", other),
            parcel_id=lat.parcel_id,
            evidence=shapely.get_point(lat.geometry, -1),
            unit="",
            aspect="building-end",
            message=(
                f"lateral {lat.id} of parcel {lat.parcel_id} ends at a building on parcel "
                f"{other}; {params['section']} requires a building sewer exclusive to its parcel"
            ),
        )


def _merging(view: NetworkView, params: Params, measurer: Measurer, live: IntArray) -> Iterator[RuleViolation]:
    if len(live) < 2:
        return
    laterals = view.network.laterals
    tol = measurer.from_feet(float(params["merge_tolerance_ft"]))
    radius = measurer.from_feet(float(params["shared_tap_radius_ft"]))
    geoms = view.laterals_xy[live]
    left, right = shapely.STRtree(geoms).query(geoms, predicate="dwithin", distance=tol)
    keep = left < right
    for a, b in zip(left[keep].tolist(), right[keep].tolist(), strict=True):
        ia, ib = live[a], live[b]
        ga, gb = view.laterals_xy[ia], view.laterals_xy[ib]
        start_a, start_b = view.lateral_starts[ia], view.lateral_starts[ib]
        if shapely.distance(start_a, start_b) <= tol:
            # One shared tap: closeness near it is the shared connection, not a merge.
            around = shapely.buffer(start_a, radius)
            ga, gb = ga.difference(around), gb.difference(around)
            if ga.is_empty or gb.is_empty or shapely.distance(ga, gb) > tol:
                continue
        gap_ft = float(measurer.to_feet(shapely.distance(ga, gb)))
        la, lb = laterals[ia], laterals[ib]
        yield violation(
            params,
            ("lateral", min(la.id, lb.id, key=str)),
            ("lateral", max(la.id, lb.id, key=str)),
            parcel_id=la.parcel_id,
            evidence=measurer.unproject(shapely.shortest_line(ga, gb)),
            measured=gap_ft,
            limit=float(params["merge_tolerance_ft"]),
            unit="ft",
            aspect="merge",
            message=(
                f"laterals {la.id} and {lb.id} come within {gap_ft:.1f} ft of each other "
                f"away from a shared tap; {params['section']} requires each building sewer "
                f"to serve one property only"
            ),
        )


def _new_work(lateral: Lateral, cutover: date) -> bool:
    if lateral.is_new_or_replacement:
        return True
    return lateral.installed_on is not None and lateral.installed_on >= cutover


@rule(
    "TRACER-WIRE",
    "§ 315-13C(3)",
    "A new or replacement PVC building sewer has tracer wire along it, in a PVC conduit "
    "extended to the surface at the exterior wall of the building served.",
    cutover_date="2009-01-01",
    follow_tolerance_ft=2.0,
    min_follow_share=0.9,
    wall_end_tolerance_ft=3.0,
    statuses=["active"],
)
def tracer_wire(view: NetworkView, params: Params, measurer: Measurer) -> Iterator[RuleViolation]:
    """§ 315-13C(3): wire present, following the lateral, reaching the wall, in conduit.

    Applies to PVC laterals installed on or after ``cutover_date`` or flagged new or
    replacement. Unknown install date and no flag: not checked (data gap).
    """
    cutover = _as_date(params["cutover_date"])
    laterals = view.network.laterals
    statuses = set(params["statuses"])
    due = [
        i
        for i, lat in enumerate(laterals)
        if lat.status in statuses
        and (lat.material or "").strip().upper() == "PVC"
        and _new_work(lat, cutover)
    ]
    wires_of: WiresOf = {}
    for w, wire in enumerate(view.network.tracer_wires):
        wires_of.setdefault(wire.lateral_id, []).append(w)
    with_wire = [i for i in due if laterals[i].id in wires_of]
    for i in due:
        if laterals[i].id not in wires_of:
            lat = laterals[i]
            yield violation(
                params,
                ("lateral", lat.id),
                parcel_id=lat.parcel_id,
                evidence=lat.geometry,
                unit="",
                aspect="missing",
                message=(
                    f"lateral {lat.id} (PVC, new or replacement) has no tracer wire; "
                    f"{params['section']} requires tracer wire"
                ),
            )
    if with_wire:
        yield from _wire_geometry(view, params, measurer, with_wire, wires_of)
        yield from _wire_conduit(view, params, with_wire, wires_of)


def _wire_geometry(
    view: NetworkView, params: Params, measurer: Measurer, due: Sequence[int], wires_of: WiresOf
) -> Iterator[RuleViolation]:
    laterals, wires = view.network.laterals, view.network.tracer_wires
    wire_xy = np.empty(len(due), dtype=object)
    wire_xy[:] = [
        view.tracer_wires_xy[wires_of[laterals[i].id][0]]
        if len(wires_of[laterals[i].id]) == 1
        else shapely.union_all(view.tracer_wires_xy[wires_of[laterals[i].id]])
        for i in due
    ]
    lat_xy = view.laterals_xy[due]
    follow = measurer.from_feet(float(params["follow_tolerance_ft"]))
    near = shapely.buffer(wire_xy, follow, quad_segs=4)
    lengths = view.lateral_lengths[due]
    share = np.where(lengths > 0, shapely.length(shapely.intersection(lat_xy, near)) / lengths, 1)
    min_share = float(params["min_follow_share"])
    wall_ft = measurer.to_feet(_nearest_wire_end(view, due, wires_of))
    wall_tol = float(params["wall_end_tolerance_ft"])
    for n, i in enumerate(due):
        lat = laterals[i]
        if share[n] < min_share:
            yield violation(
                params,
                ("lateral", lat.id),
                parcel_id=lat.parcel_id,
                evidence=lat.geometry.difference(measurer.unproject(near[n])),
                measured=100 * share[n],
                limit=100 * min_share,
                unit="%",
                aspect="follow",
                message=(
                    f"tracer wire follows {100 * share[n]:.0f} % of lateral {lat.id} within "
                    f"{fmt_number(float(params['follow_tolerance_ft']))} ft; "
                    f"{params['section']} requires tracer wire along the building sewer "
                    f"(≥ {100 * min_share:.0f} %)"
                ),
            )
        at_wall = any(wires[w].reaches_surface_at_wall for w in wires_of[lat.id])
        if not at_wall and not wall_ft[n] <= wall_tol:
            yield violation(
                params,
                ("lateral", lat.id),
                parcel_id=lat.parcel_id,
                evidence=measurer.unproject(shapely.shortest_line(
                    view.lateral_ends[i], shapely.boundary(wire_xy[n]))),
                measured=float(wall_ft[n]),
                limit=wall_tol,
                unit="ft",
                aspect="wall-end",
                message=(
                    f"tracer wire of lateral {lat.id} ends {fmt_length(float(wall_ft[n]), wall_tol)} "
                    f"ft from the building end; {params['section']} requires it extended to the "
                    f"surface at the exterior wall (within {fmt_number(wall_tol)} ft)"
                ),
            )


def _nearest_wire_end(view: NetworkView, due: Sequence[int], wires_of: WiresOf) -> FloatArray:
    """Distance from each lateral's building end to the nearest end of any of its wires."""
    laterals = view.network.laterals
    owner = np.array([n for n, i in enumerate(due) for _ in wires_of[laterals[i].id]])
    wire = np.array([w for i in due for w in wires_of[laterals[i].id]])
    building_end = view.lateral_ends[np.asarray(due)[owner]]
    wires = view.tracer_wires_xy[wire]
    gap = np.minimum(
        shapely.distance(building_end, shapely.get_point(wires, 0)),
        shapely.distance(building_end, shapely.get_point(wires, -1)),
    )
    multi = np.isnan(gap)  # a multi-part wire has no single start and end
    if multi.any():
        gap[multi] = shapely.distance(building_end[multi], shapely.boundary(wires[multi]))
    nearest = np.full(len(due), np.inf)
    np.minimum.at(nearest, owner, gap)
    return nearest


def _wire_conduit(
    view: NetworkView, params: Params, due: Sequence[int], wires_of: WiresOf
) -> Iterator[RuleViolation]:
    laterals, wires = view.network.laterals, view.network.tracer_wires
    for i in due:
        lat = laterals[i]
        bare = [wires[w] for w in wires_of[lat.id] if wires[w].in_conduit is False]
        if bare:
            yield violation(
                params,
                ("lateral", lat.id),
                *(("tracer_wire", w.id) for w in bare),
                parcel_id=lat.parcel_id,
                evidence=shapely.union_all([w.geometry for w in bare]),
                unit="",
                aspect="conduit",
                message=(
                    f"tracer wire of lateral {lat.id} is not in a PVC conduit; "
                    f"{params['section']} requires tracer wire within a PVC conduit"
                ),
            )


@rule(
    "LATERAL-SDR26",
    "§ 315-13C(3)",
    "A new or replacement building sewer is ASTM D3034 SDR 26 PVC.",
    material="PVC",
    sdr=26,
    cutover_date="2009-01-01",
    statuses=["active", "proposed"],
)
def lateral_sdr26(view: NetworkView, params: Params, measurer: Measurer) -> Iterator[RuleViolation]:
    """§ 315-13C(3): new or replacement laterals are PVC of the rulebook's SDR.

    Unknown material or SDR is a data gap (no violation); a known wrong one is a breach.
    """
    cutover = _as_date(params["cutover_date"])
    material, sdr = str(params["material"]).upper(), float(params["sdr"])
    statuses = set(params["statuses"])
    for lat in view.network.laterals:
        if lat.status not in statuses or not _new_work(lat, cutover):
            continue
        wrong_material = lat.material is not None and lat.material.strip().upper() != material
        wrong_sdr = lat.sdr is not None and float(lat.sdr) != sdr
        if not (wrong_material or wrong_sdr):
            continue
        found = " ".join(
            str(x) for x in (lat.material, f"SDR {lat.sdr:g}" if lat.sdr else None) if x
        )
        yield violation(
            params,
            ("lateral", lat.id),
            parcel_id=lat.parcel_id,
            evidence=lat.geometry,
            measured=lat.sdr,
            limit=sdr,
            unit="SDR",
            message=(
                f"lateral {lat.id} (new or replacement) is {found}; {params['section']} "
                f"requires ASTM D3034 SDR {sdr:g} {material}"
            ),
        )


@rule(
    "BACKFLOW-VALVE",
    "§ 315-12D",
    "Every sewer service has a backflow prevention valve.",
    statuses=["active"],
)
def backflow_valve(view: NetworkView, params: Params, measurer: Measurer) -> Iterator[RuleViolation]:
    """§ 315-12D: ``backflow_valve`` must be True; unknown counts as not shown."""
    statuses = set(params["statuses"])
    for lat in view.network.laterals:
        if lat.status in statuses and lat.backflow_valve is not True:
            state = "has no" if lat.backflow_valve is False else "has no recorded"
            yield violation(
                params,
                ("lateral", lat.id),
                parcel_id=lat.parcel_id,
                evidence=shapely.get_point(lat.geometry, -1),
                unit="",
                message=(
                    f"lateral {lat.id} {state} backflow prevention valve; "
                    f"{params['section']} requires one on every sewer service"
                ),
            )
