"""Rules on pressure sewer mains: § 315-14D."""

from __future__ import annotations

import numpy as np
import shapely
from shapely.ops import substring

from gis.rules.registry import fmt_number, rule, violation
from gis.rules.view import NetworkView


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
def pressure_sewer(view: NetworkView, params, measurer):
    """§ 315-14D: material and SDR, cover, and flushing-connection spacing along each main.

    Unknown material, SDR or cover is a data gap (no violation).
    """
    mains = view.network.mains
    pressure = [i for i, m in enumerate(mains) if m.kind == "pressure"]
    for i in pressure:
        yield from _pipe(params, mains[i])
    if pressure:
        yield from _flushing(view, params, measurer, np.asarray(pressure, dtype=np.int64))


def _pipe(params, main):
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


def _flushing(view: NetworkView, params, measurer, pressure):
    """Gaps between consecutive flushing points (flushing manholes, dead ends) on a main."""
    tol = measurer.from_feet(float(params["flushing_tolerance_ft"]))
    limit_ft = float(params["max_flushing_spacing_ft"])
    limit = measurer.from_feet(limit_ft)
    flushing = np.array([m.kind == "flushing" for m in view.network.manholes], dtype=bool)
    points_of: dict[int, list] = {int(i): [] for i in pressure}
    if flushing.any():
        holes = np.flatnonzero(flushing)
        hole_at, main_at = shapely.STRtree(view.mains_xy[pressure]).query(
            view.manholes_xy[holes], predicate="dwithin", distance=tol
        )
        positions = shapely.line_locate_point(
            view.mains_xy[pressure[main_at]], view.manholes_xy[holes[hole_at]]
        )
        for h, m, pos in zip(hole_at.tolist(), main_at.tolist(), positions.tolist(), strict=True):
            points_of[int(pressure[m])].append((pos, ("manhole", view.network.manholes[holes[h]].id)))
    ends = np.concatenate([shapely.get_point(view.mains_xy[pressure], k) for k in (0, -1)])
    end_main = np.concatenate([pressure, pressure])
    end_at, touching = view.main_tree.query(ends, predicate="dwithin", distance=tol)
    connected = np.zeros(len(ends), dtype=bool)
    connected[end_at[touching != end_main[end_at]]] = True
    for n in np.flatnonzero(~connected):
        main = int(end_main[n])
        pos = 0.0 if n < len(pressure) else float(view.main_lengths[main])
        points_of[main].append((pos, None))
    for main, points in sorted(points_of.items()):
        points.sort(key=lambda p: p[0])
        for (a, subj_a), (b, subj_b) in zip(points, points[1:], strict=False):
            if b - a <= limit:
                continue
            feet = float(measurer.to_feet(b - a))
            m = view.network.mains[main]
            yield violation(
                params,
                ("main", m.id),
                *(s for s in (subj_a, subj_b) if s),
                evidence=measurer.unproject(substring(view.mains_xy[main], a, b)),
                measured=feet,
                limit=limit_ft,
                unit="ft",
                aspect="flushing",
                message=(
                    f"pressure main {m.id} runs {feet:,.0f} ft between flushing connections; "
                    f"{params['section']} requires them no more than {fmt_number(limit_ft)} ft apart"
                ),
            )
