"""Rules on taps, the lateral connections to a main: § 315-13B(2).

Distances between taps and joints are measured **along the main** (linear referencing
in the projected CRS), so a main that bends between two taps is measured as the pipe
runs, and taps on different mains are never compared.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TypeVar

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry
from shapely.ops import substring

from gis.arrays import FloatArray, IntArray
from gis.crs import Measurer
from gis.rules.registry import Params, RuleViolation, fmt_length, fmt_number, rule, violation
from gis.rules.view import NetworkView

T = TypeVar("T")


def _along_main(view: NetworkView, main: int, start: float, end: float) -> BaseGeometry:
    """The stretch of a main between two positions, back in EPSG:4326."""
    lo, hi = sorted((float(start), float(end)))
    return view.measurer.unproject(substring(view.mains_xy[main], lo, hi))


def _first_known(*values: T | None) -> T | None:
    return next((v for v in values if v is not None), None)


@rule(
    "TAP-SPACING-24IN",
    "§ 315-13B(2)",
    "A main is not tapped within 24 inches of another lateral connection on the same main.",
    min_spacing_in=24.0,
)
def tap_spacing(view: NetworkView, params: Params, measurer: Measurer) -> Iterator[RuleViolation]:
    """§ 315-13B(2): no two taps on one main closer than ``min_spacing_in`` along the main."""
    limit_in = float(params["min_spacing_in"])
    limit = measurer.from_inches(limit_in)
    taps = view.network.taps
    valid = np.flatnonzero(view.tap_main >= 0)
    main, pos = view.tap_main[valid], view.tap_position[valid]
    order = valid[np.lexsort((pos, main))]
    main, pos = view.tap_main[order], view.tap_position[order]
    # Sorted along each main: a pair k apart can only be close if a pair k-1 apart is.
    for k in range(1, len(order)):
        gap = pos[k:] - pos[:-k]
        close = (main[k:] == main[:-k]) & (gap < limit)
        if not close.any():
            break
        for i in np.flatnonzero(close):
            a, b = taps[order[i]], taps[order[i + k]]
            first, second = sorted((a, b), key=lambda t: (str(type(t.id)), t.id))
            inches = float(measurer.to_inches(gap[i]))
            yield violation(
                params,
                ("tap", first.id),
                ("tap", second.id),
                parcel_id=_first_known(view.tap_parcel[order[i]], view.tap_parcel[order[i + k]]),
                evidence=_along_main(view, main[i], pos[i], pos[i + k]),
                measured=inches,
                limit=limit_in,
                unit="in",
                message=(
                    f"tap {first.id} is {fmt_length(inches, limit_in)} in along main "
                    f"{a.main_id} from the connection of tap {second.id}; {params['section']} "
                    f"requires ≥ {fmt_number(limit_in)} in"
                ),
            )


def _recorded_joints(view: NetworkView) -> tuple[IntArray, FloatArray]:
    """Positions of recorded joints along their mains, as (main index, position) arrays."""
    mains: list[int] = []
    points: list[BaseGeometry] = []
    for i, main in enumerate(view.network.mains):
        if main.joint_points is not None and not main.joint_points.is_empty:
            parts = shapely.get_parts(main.joint_points)
            mains.extend([i] * len(parts))
            points.extend(parts)
    if not mains:
        return np.empty(0, dtype=np.int64), np.empty(0)
    main_at = np.asarray(mains, dtype=np.int64)
    pts = view.measurer.project(np.asarray(points, dtype=object))
    return main_at, shapely.line_locate_point(view.mains_xy[main_at], pts)


def _nearest_recorded(view: NetworkView, tap_main: IntArray, tap_pos: FloatArray) -> FloatArray:
    """Nearest recorded joint position for each tap (NaN where its main records none)."""
    j_main, j_pos = _recorded_joints(view)
    nearest = np.full(len(tap_main), np.nan)
    if not len(j_main):
        return nearest
    # One sorted axis for all mains: offset each main by more than any main's length.
    stride = float(view.main_lengths.max()) * 2 + 1.0
    keys = j_main * stride + j_pos
    order = np.argsort(keys)
    keys, j_main, j_pos = keys[order], j_main[order], j_pos[order]
    t_keys = tap_main * stride + tap_pos
    right = np.searchsorted(keys, t_keys)
    for side in (np.clip(right - 1, 0, len(keys) - 1), np.clip(right, 0, len(keys) - 1)):
        same = j_main[side] == tap_main
        dist = np.where(same, np.abs(j_pos[side] - tap_pos), np.inf)
        better = same & ~(np.abs(nearest - tap_pos) <= dist)
        nearest[better] = j_pos[side][better]
    return nearest


def _nearest_nominal(view: NetworkView, tap_main: IntArray, tap_pos: FloatArray, default_ft: float) -> FloatArray:
    """Nearest joint at every pipe-segment length from the main's upstream end."""
    seg_ft = np.array(
        [m.segment_length_ft or default_ft for m in view.network.mains], dtype=float
    )[tap_main]
    seg = seg_ft * view.measurer.from_feet(1.0)
    length = view.main_lengths[tap_main]
    # Joints at k * seg for 1 <= k and k * seg < length; the ends are manholes, not joints.
    last_k = np.ceil(length / seg) - 1
    k = np.clip(np.rint(tap_pos / seg), 1, np.maximum(last_k, 1))
    return np.where(last_k >= 1, k * seg, np.nan)


@rule(
    "TAP-JOINT-6IN",
    "§ 315-13B(2)",
    "A main is not tapped within 6 inches of a pipe joint.",
    min_joint_distance_in=6.0,
    default_pipe_segment_length_ft=13.0,
)
def tap_joint(view: NetworkView, params: Params, measurer: Measurer) -> Iterator[RuleViolation]:
    """§ 315-13B(2): each tap at least ``min_joint_distance_in`` from the nearest joint.

    Joints are the main's recorded ``joint_points`` when there are any, else one every
    ``segment_length_ft`` (the rulebook default when unset) from the upstream end.
    """
    limit_in = float(params["min_joint_distance_in"])
    taps = np.flatnonzero(view.tap_main >= 0)
    if not len(taps):
        return
    tap_main, tap_pos = view.tap_main[taps], view.tap_position[taps]
    joint = _nearest_recorded(view, tap_main, tap_pos)
    recorded = np.array(
        [m.joint_points is not None and not m.joint_points.is_empty for m in view.network.mains],
        dtype=bool,
    )[tap_main]
    nominal = _nearest_nominal(
        view, tap_main, tap_pos, float(params["default_pipe_segment_length_ft"])
    )
    joint = np.where(recorded, joint, nominal)
    dist = np.abs(joint - tap_pos)
    close = np.flatnonzero(dist < measurer.from_inches(limit_in))
    # A stretch of at most 6 in: the straight line from tap to joint is the evidence.
    mains_xy = view.mains_xy[tap_main[close]]
    evidence = measurer.unproject(shapely.linestrings(np.stack([
        shapely.get_coordinates(shapely.line_interpolate_point(mains_xy, tap_pos[close])),
        shapely.get_coordinates(shapely.line_interpolate_point(mains_xy, joint[close])),
    ], axis=1)))
    for n, i in enumerate(close):
        tap = view.network.taps[taps[i]]
        inches = float(measurer.to_inches(dist[i]))
        source = "recorded joint" if recorded[i] else "nominal joint"
        yield violation(
            params,
            ("tap", tap.id),
            ("main", tap.main_id),
            parcel_id=view.tap_parcel[taps[i]],
            evidence=evidence[n],
            measured=inches,
            limit=limit_in,
            unit="in",
            message=(
                f"tap {tap.id} is {fmt_length(inches, limit_in)} in along main {tap.main_id} "
                f"from a {source}; {params['section']} requires ≥ {fmt_number(limit_in)} in"
            ),
        )


def parse_clock(value: str | float) -> float:
    """``"10:30"`` or ``10.5`` → 10.5 hours."""
    if isinstance(value, str):
        hours, _, minutes = value.partition(":")
        return int(hours) + (int(minutes) if minutes else 0) / 60.0
    return float(value)


def fmt_clock(hours: float) -> str:
    """10.5 → ``"10:30"``; 0.25 → ``"12:15"``."""
    total = int(round((hours % 12) * 60)) % 720
    h, m = divmod(total, 60)
    return f"{h or 12}:{m:02d}"


@rule(
    "TAP-QUADRANT",
    "§ 315-13B(2)",
    "A main is tapped on its upper quadrant: between 10:30 and 1:30 o'clock looking downstream.",
    earliest_clock="10:30",
    latest_clock="1:30",
)
def tap_quadrant(view: NetworkView, params: Params, measurer: Measurer) -> Iterator[RuleViolation]:
    """§ 315-13B(2): the clock position lies clockwise from earliest to latest.

    A tap without a recorded clock position is a data gap, not a breach: no violation.
    """
    earliest, latest = parse_clock(params["earliest_clock"]), parse_clock(params["latest_clock"])
    arc = (latest - earliest) % 12
    eps = 1e-6  # hours; clock positions are recorded to the minute at best
    for index, tap in enumerate(view.network.taps):
        if tap.clock_position is None:
            continue
        clock = float(tap.clock_position)
        if (clock - earliest) % 12 <= arc + eps:
            continue
        before = (earliest - clock) % 12
        after = (clock - latest) % 12
        bound = earliest if before < after else latest
        yield violation(
            params,
            ("tap", tap.id),
            parcel_id=view.tap_parcel[index],
            evidence=tap.geometry,
            measured=clock,
            limit=bound,
            unit="o'clock",
            message=(
                f"tap {tap.id} is at {fmt_clock(clock)} o'clock looking downstream; "
                f"{params['section']} requires the upper quadrant, "
                f"{fmt_clock(earliest)} to {fmt_clock(latest)}"
            ),
        )


@rule(
    "TAP-METHOD",
    "§ 315-13B(2)",
    "A connection is a saddle on a cored main or a cut-in wye or tee of the main's material.",
    allowed_methods=["saddle", "core", "wye", "tee"],
    same_material_methods=["wye", "tee"],
)
def tap_method(view: NetworkView, params: Params, measurer: Measurer) -> Iterator[RuleViolation]:
    """§ 315-13B(2): allowed method; a wye or tee of the same material as the main.

    A missing method, fitting material or main material is a data gap: no violation.
    """
    allowed = {m.lower() for m in params["allowed_methods"]}
    same_material = {m.lower() for m in params["same_material_methods"]}
    mains = view.network.mains
    for index, tap in enumerate(view.network.taps):
        if tap.method is None:
            continue
        method = tap.method.lower()
        parcel = view.tap_parcel[index]
        if method not in allowed:
            yield violation(
                params,
                ("tap", tap.id),
                parcel_id=parcel,
                evidence=tap.geometry,
                unit="",
                aspect="method",
                message=(
                    f"tap {tap.id} was made by {tap.method!r}; {params['section']} allows "
                    f"{', '.join(sorted(allowed))}"
                ),
            )
            continue
        main_at = view.tap_main[index]
        if method not in same_material or main_at < 0 or not tap.fitting_material:
            continue
        main_material = mains[main_at].material
        if main_material and tap.fitting_material.strip().lower() != main_material.strip().lower():
            yield violation(
                params,
                ("tap", tap.id),
                ("main", tap.main_id),
                parcel_id=parcel,
                evidence=tap.geometry,
                unit="",
                aspect="fitting",
                message=(
                    f"tap {tap.id} is a {method} of {tap.fitting_material} on a "
                    f"{main_material} main {tap.main_id}; {params['section']} requires a "
                    f"{method} of the same material as the main"
                ),
            )
