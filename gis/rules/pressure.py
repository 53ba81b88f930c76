"""Rules on pressure sewer mains: § 315-14D."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import shapely
from shapely.ops import substring

from gis.arrays import GeometryArray, IntArray
from gis.crs import Measurer
from gis.rules.network import SewerMain
from gis.rules.registry import Params, RuleViolation, Subject, fmt_number, rule, violation
from gis.rules.view import NetworkView

Member = tuple[int, float, float]
"""A main on a run: its index in the network's mains, where it starts and ends along the run."""

FlushingPoint = tuple[float, Subject | None]
"""A flushing point on a run: its position along the run and the flushing manhole there
(None for a dead end)."""


@rule(
    "PRESSURE-SEWER",
    "§ 315-14D",
    "Pressure mains are SDR 11 HDPE with at least 7 ft of cover and flushing connections "
    "at dead ends and no more than 1,000 ft apart.",
    material="HDPE",
    sdr=11,
    min_cover_ft=7.0,
    max_flushing_spacing_ft=1000.0,
    flushing_tolerance_ft=5.0,
)
def pressure_sewer(view: NetworkView, params: Params, measurer: Measurer) -> Iterator[RuleViolation]:
    """§ 315-14D: material and SDR, cover, and flushing-connection spacing along each main.

    Unknown material, SDR or cover is a data gap (no violation).
    """
    mains = view.network.mains
    pressure = [i for i, m in enumerate(mains) if m.kind == "pressure"]
    for i in pressure:
        yield from _pipe(params, mains[i])
    if pressure:
        yield from _flushing(view, params, measurer, np.asarray(pressure, dtype=np.int64))


def _pipe(params: Params, main: SewerMain) -> Iterator[RuleViolation]:
    material, sdr = str(params["material"]).upper(), float(params["sdr"])
    wrong_material = main.material is not None and main.material.strip().upper() != material
    wrong_sdr = main.sdr is not None and float(main.sdr) != sdr
    if wrong_material or wrong_sdr:
        found = " ".join(
            str(x) for x in (main.material, f"SDR {main.sdr:g}" if main.sdr else None) if x
        )
        yield violation(
            params,
            ("main", main.id),
            evidence=main.geometry,
            measured=main.sdr,
            limit=sdr,
            unit="SDR",
            aspect="material",
            message=(
                f"pressure main {main.id} is {found}; {params['section']} requires "
                f"SDR {sdr:g} {material}"
            ),
        )
    min_cover = float(params["min_cover_ft"])
    if main.cover_ft is not None and float(main.cover_ft) < min_cover:
        yield violation(
            params,
            ("main", main.id),
            evidence=main.geometry,
            measured=main.cover_ft,
            limit=min_cover,
            unit="ft",
            aspect="cover",
            message=(
                f"pressure main {main.id} has {float(main.cover_ft):.1f} ft of cover; "
                f"{params['section']} requires ≥ {fmt_number(min_cover)} ft"
            ),
        )


def _runs(view: NetworkView, pressure: IntArray) -> tuple[GeometryArray, list[list[Member]]]:
    """Pressure mains merged into runs where exactly two records meet end to end.

    Returns the runs (projected lines) and, for each run, the indices of its mains with
    their extent along the run.
    """
    lines = view.mains_xy[pressure]
    runs = shapely.get_parts(shapely.line_merge(shapely.multilinestrings(shapely.get_parts(lines))))
    mids = shapely.line_interpolate_point(lines, 0.5, normalized=True)
    main_at, run_at = shapely.STRtree(runs).query_nearest(mids, all_matches=False)
    lo = shapely.line_locate_point(runs[run_at], shapely.get_point(lines[main_at], 0))
    hi = shapely.line_locate_point(runs[run_at], shapely.get_point(lines[main_at], -1))
    # A multi-part record has no single start and end: let it span its whole run.
    lo = np.where(np.isnan(lo), 0.0, lo)
    hi = np.where(np.isnan(hi), shapely.length(runs[run_at]), hi)
    members: list[list[Member]] = [[] for _ in runs]
    for m, r, a, b in zip(main_at.tolist(), run_at.tolist(), lo.tolist(), hi.tolist(), strict=True):
        members[r].append((int(pressure[m]), min(a, b), max(a, b)))
    return runs, members


def _flushing_points(
    view: NetworkView, runs: GeometryArray, members: list[list[Member]], tol: float
) -> list[list[FlushingPoint]]:
    """Per run: (position, subject) of flushing manholes on it and of its dead ends."""
    points: list[list[FlushingPoint]] = [[] for _ in runs]
    holes = np.flatnonzero([m.kind == "flushing" for m in view.network.manholes])
    if len(holes):
        hole_at, run_at = shapely.STRtree(runs).query(
            view.manholes_xy[holes], predicate="dwithin", distance=tol
        )
        pos = shapely.line_locate_point(runs[run_at], view.manholes_xy[holes[hole_at]])
        for h, r, p in zip(hole_at.tolist(), run_at.tolist(), pos.tolist(), strict=True):
            points[r].append((p, ("manhole", view.network.manholes[holes[h]].id)))
    for r, run in enumerate(runs):
        if run.is_closed:
            continue
        own = {m for m, _, _ in members[r]}
        for end, pos in ((shapely.get_point(run, 0), 0.0), (shapely.get_point(run, -1), run.length)):
            touching = view.main_tree.query(end, predicate="dwithin", distance=tol)
            if own.issuperset(touching.tolist()):
                points[r].append((pos, None))  # a dead end
    return points


def _flushing(view: NetworkView, params: Params, measurer: Measurer, pressure: IntArray) -> Iterator[RuleViolation]:
    """Gaps between consecutive flushing points (flushing manholes, dead ends) along a run.

    A run is a chain of pressure-main records meeting end to end; a gap is charged to
    every record it covers, plus the flushing manholes that bound it.
    """
    tol = measurer.from_feet(float(params["flushing_tolerance_ft"]))
    limit_ft = float(params["max_flushing_spacing_ft"])
    limit = measurer.from_feet(limit_ft)
    mains = view.network.mains
    runs, members = _runs(view, pressure)
    for r, points in enumerate(_flushing_points(view, runs, members, tol)):
        points.sort(key=lambda p: p[0])
        for (a, subj_a), (b, subj_b) in zip(points, points[1:], strict=False):
            if b - a <= limit:
                continue
            covered = sorted((m for m, lo, hi in members[r] if lo < b and hi > a),
                             key=lambda m: str(mains[m].id)) or [m for m, _, _ in members[r]]
            feet = float(measurer.to_feet(b - a))
            names = ", ".join(str(mains[m].id) for m in covered)
            yield violation(
                params,
                ("main", mains[covered[0]].id),
                *(("main", mains[m].id) for m in covered[1:]),
                *(s for s in (subj_a, subj_b) if s),
                evidence=measurer.unproject(substring(runs[r], a, b)),
                measured=feet,
                limit=limit_ft,
                unit="ft",
                aspect="flushing",
                message=(
                    f"pressure main {names} runs {feet:,.0f} ft between flushing connections; "
                    f"{params['section']} requires them no more than {fmt_number(limit_ft)} ft apart"
                ),
            )
