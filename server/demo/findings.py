"""Clear-water findings from the inspectors' survey (§ 315-13D, Art. I 1976)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import numpy as np

from . import names

SOURCES = np.array(
    ["roof_downspout", "foundation_drain", "sump_pump", "yard_drain", "other"], dtype=object
)
SOURCE_P = (0.4, 0.2, 0.25, 0.1, 0.05)
METHODS = np.array(["visual", "dye", "smoke"], dtype=object)
SHARE = 0.05
N_CONNECTED = 4  # findings that are connected: the deliberate CLEAR-WATER breaks
SURVEY_START = dt.date(2025, 5, 1).toordinal()
SURVEY_DAYS = 540

NOTES = {
    ("roof_downspout", "yes"): "Downspout piped below grade into the building sewer cleanout.",
    ("roof_downspout", "no"): "Downspout discharges to splash block on lawn.",
    ("roof_downspout", "unknown"): "Downspout enters ground; destination not traced.",
    ("foundation_drain", "yes"): "Dye from drain tile seen in the sanitary cleanout.",
    ("foundation_drain", "no"): "Drain tile runs to a daylight outlet at the back lot line.",
    ("foundation_drain", "unknown"): "Basement drain tile present; outlet not found.",
    ("sump_pump", "yes"): "Sump pump discharge hose into laundry tub.",
    ("sump_pump", "no"): "Sump pump discharges outdoors, 10 ft from the foundation.",
    ("sump_pump", "unknown"): "Sump pit present; pump was dry at inspection.",
    ("yard_drain", "yes"): "Smoke rose from the yard drain grate during the main test.",
    ("yard_drain", "no"): "Yard drain connects to the street storm inlet.",
    ("yard_drain", "unknown"): "Yard drain grate found; pipe not traced.",
    ("other", "yes"): "Window-well drain tied into the floor drain.",
    ("other", "no"): "Air-conditioner condensate runs to the lawn.",
    ("other", "unknown"): "Unlabelled pipe through the foundation wall.",
}


@dataclass(frozen=True)
class Findings:
    parcel: np.ndarray
    xy: np.ndarray  # (n, 2) local metres, inside the parcel
    source: np.ndarray
    connected: list[str]
    observed_on: np.ndarray  # ordinals
    observed_by: np.ndarray
    method: np.ndarray
    notes: list[str]
    deliberate: list[int]  # rows that are connected


def build_findings(
    candidates: np.ndarray,
    wall_xy: np.ndarray,
    inward: np.ndarray,
    rng: np.random.Generator,
) -> Findings:
    """Findings on about 5 % of the served parcels; a fixed few are connected.

    Args:
        candidates: parcel indices that have a lateral and no other deliberate break.
        wall_xy: the building wall point of each candidate (local metres).
        inward: +1/-1 per candidate, the direction from the street into the lot.
    """
    n = max(N_CONNECTED + 2, round(SHARE * len(candidates)))
    rows = np.sort(rng.choice(len(candidates), n, replace=False))
    source = rng.choice(SOURCES, n, p=SOURCE_P)
    connected = rng.choice(np.array(["no", "unknown"], dtype=object), n, p=[0.75, 0.25])
    yes = np.sort(rng.choice(n, N_CONNECTED, replace=False))
    connected[yes] = "yes"
    # Beside the building, a few metres back from the wall point.
    dx = rng.uniform(-4.0, 4.0, n)
    dy = inward[rows] * rng.uniform(3.0, 12.0, n)
    xy = wall_xy[rows] + np.column_stack([dx, dy])
    return Findings(
        parcel=candidates[rows],
        xy=xy,
        source=source,
        connected=connected.tolist(),
        observed_on=SURVEY_START + rng.integers(0, SURVEY_DAYS, n),
        observed_by=rng.choice(np.array(names.INSPECTORS, dtype=object), n),
        method=rng.choice(METHODS, n, p=[0.6, 0.25, 0.15]),
        notes=[NOTES[(s, c)] for s, c in zip(source, connected.tolist(), strict=True)],
        deliberate=[int(r) for r in yes],
    )
