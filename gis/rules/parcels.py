"""Rules on parcels: mandatory hookup (§ 315-11D) and septic systems (§ 315-11C)."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import shapely

from gis.crs import Measurer
from gis.rules.registry import Params, RuleViolation, fmt_number, rule, violation
from gis.rules.view import NetworkView


@rule(
    "HOOKUP-365",
    "§ 315-11D",
    "A parcel with a building, in the service area and adjacent to a sewer main, is "
    "connected by a building sewer of its own.",
    adjacent_within_ft=150.0,
    kinds=["gravity"],
)
def hookup_candidates(view: NetworkView, params: Params, measurer: Measurer) -> Iterator[RuleViolation]:
    """§ 315-11D: candidates for the 365-day hookup notice.

    A parcel with a building, in a service area (flag or geometry), within
    ``adjacent_within_ft`` of a main of the listed kinds, and no active lateral whose
    ``parcel_id`` is it.
    """
    parcels = view.network.parcels
    served = {lat.parcel_id for lat in view.network.laterals if lat.status == "active"}
    candidates = np.array(
        [i for i, p in enumerate(parcels) if p.has_building and p.id not in served],
        dtype=np.int64,
    )
    if not len(candidates):
        return
    candidates = candidates[view.parcel_in_service_area[candidates]]
    kinds = set(params["kinds"])
    mains = np.array([i for i, m in enumerate(view.network.mains) if m.kind in kinds])
    if not len(candidates) or not len(mains):
        return
    limit_ft = float(params["adjacent_within_ft"])
    tree = shapely.STRtree(view.mains_xy[mains])
    (near_parcel, near_main), dist = tree.query_nearest(
        view.parcels_xy[candidates],
        max_distance=measurer.from_feet(limit_ft),
        return_distance=True,
        all_matches=False,
    )
    evidence = measurer.unproject(
        shapely.shortest_line(view.parcels_xy[candidates[near_parcel]], view.mains_xy[mains[near_main]])
    )
    rows = zip(near_parcel.tolist(), near_main.tolist(), dist.tolist(), evidence, strict=True)
    for p, m, d, line in rows:
        parcel, main = parcels[candidates[p]], view.network.mains[mains[m]]
        feet = float(measurer.to_feet(d))
        yield violation(
            params,
            ("parcel", parcel.id),
            parcel_id=parcel.id,
            evidence=line,
            measured=feet,
            limit=limit_ft,
            unit="ft",
            message=(
                f"parcel {parcel.number_or_id} has a building {feet:.0f} ft from {main.kind} "
                f"main {main.id} and no active building sewer; {params['section']} requires "
                f"connection (within {fmt_number(limit_ft)} ft counts as adjacent)"
            ),
        )


@rule(
    "SEPTIC-IN-AREA",
    "§ 315-11C",
    "No septic tank, drain field, cesspool or holding tank inside the sewer service area "
    "unless the Common Council approved it.",
    since="1988-12-31",
)
def septic_in_area(view: NetworkView, params: Params, measurer: Measurer) -> Iterator[RuleViolation]:
    """§ 315-11C: a septic system in the service area without Council approval."""
    parcels = view.network.parcels
    flagged = [i for i, p in enumerate(parcels) if p.has_septic and not p.septic_approved]
    if not flagged:
        return
    inside = view.parcel_in_service_area
    for i in flagged:
        if not inside[i]:
            continue
        parcel = parcels[i]
        yield violation(
            params,
            ("parcel", parcel.id),
            parcel_id=parcel.id,
            evidence=shapely.point_on_surface(parcel.geometry),
            unit="",
            message=(
                f"parcel {parcel.number_or_id} has a septic system inside the sewer service "
                f"area without Council approval; {params['section']} prohibits it since "
                f"{params['since']}"
            ),
        )
