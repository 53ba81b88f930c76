"""Building sewers (laterals), their taps and tracer wires, and the deliberate breaks.

Everything here is numpy arrays in local metres; ``city.py`` turns rows into dicts.
Normal taps sit mid-segment between pipe joints, on opposite sides of the street a
full segment apart, so they keep clear of § 315-13B(2)'s 6 in and 24 in limits; the
deliberate breaks are then placed by exact distances along the main.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

import numpy as np

from .layout import LOT_W, LOTS_PER_BLOCK, LOTS_PER_ROW, Grid, Lots, Network

INCH = 0.0254
CUTOVER_YEAR = 2009  # LATERAL-SDR26 and TRACER-WIRE apply from 2009-01-01
SIDE_OFFSET = 2.5  # m: north-side taps aim west of the lot centre, south-side taps east
LATERAL_MATERIALS = np.array(["PVC", "VCP", "ABS"], dtype=object)
CLOSE_PAIR_IN = 16.0  # deliberate TAP-SPACING-24IN gap
NEAR_JOINT_IN = 3.0  # deliberate TAP-JOINT-6IN distance past a joint

# How many of each deliberate break a city carries, whatever its size.
N_HOOKUP = 3
N_SEPTIC = 2
N_PER_LATERAL_RULE = 2
N_SPACING_PAIRS = 2


@dataclass
class Picks:
    """Parcel indices (0-based) chosen for each deliberate break."""

    spacing_pairs: list[tuple[int, int]] = field(default_factory=list)
    hookup: list[int] = field(default_factory=list)
    septic: list[int] = field(default_factory=list)
    septic_approved: list[int] = field(default_factory=list)  # the legal exception
    by_rule: dict[str, list[int]] = field(default_factory=dict)

    def all(self) -> set[int]:
        out = {p for pair in self.spacing_pairs for p in pair}
        out.update(self.hookup, self.septic, self.septic_approved)
        for v in self.by_rule.values():
            out.update(v)
        return out


LATERAL_RULES = (
    "LATERAL-SDR26", "BACKFLOW-VALVE", "TRACER-WIRE",
    "TAP-QUADRANT", "TAP-METHOD", "TAP-JOINT-6IN",
)


def frontage_main(grid: Grid, lots: Lots, net: Network) -> np.ndarray:
    """Row of the east-west main each sewered lot fronts (-1 for unsewered lots)."""
    table = np.full((grid.nby + 1, grid.nbx), -1)
    for (j, i), idx in net.ew_index.items():
        table[j, i] = idx
    out = np.full(len(lots.x0), -1)
    s = lots.sewered
    out[s] = table[lots.street_j[s], lots.block_i[s]]
    return out


def pick_deliberate(grid: Grid, lots: Lots, rng: np.random.Generator) -> Picks:
    """Choose distinct sewered parcels to carry each deliberate break."""
    picks = Picks()
    n_sew_lots = min(grid.n_sewered_blocks * LOTS_PER_BLOCK, grid.parcels)
    # A close pair needs lot k north of a street and lot k south of it, same main.
    p = np.arange(n_sew_lots)
    block = p // LOTS_PER_BLOCK
    across = (block - grid.nbx) * LOTS_PER_BLOCK + LOTS_PER_ROW + lots.k[p]
    ok = (lots.side[p] == 0) & (block >= grid.nbx)
    firsts = rng.permutation(p[ok])[:N_SPACING_PAIRS]
    picks.spacing_pairs = [(int(a), int(across[a])) for a in firsts]
    pool = rng.permutation(np.setdiff1d(p, list(picks.all())))
    cursor = 0

    def take(n: int) -> list[int]:
        nonlocal cursor
        out = [int(v) for v in pool[cursor : cursor + n]]
        cursor += n
        return out

    picks.hookup = take(N_HOOKUP)
    picks.septic = take(N_SEPTIC)
    picks.septic_approved = take(1)
    for rule in LATERAL_RULES:
        picks.by_rule[rule] = take(N_PER_LATERAL_RULE)
    return picks


def _ordinal_dates(rng: np.random.Generator, years: np.ndarray) -> np.ndarray:
    """A working-season day (mid-April to mid-November) in each year, as ordinals.

    Taps are never dated in frozen-ground months, so TAP-FROZEN stays clean.
    """
    jan1 = np.array([dt.date(int(y), 1, 1).toordinal() for y in range(1940, 2031)])
    return jan1[years - 1940] + rng.integers(105, 320, len(years))


@dataclass(frozen=True)
class Services:
    """One row per lateral; the tap and tracer wire rows derive from it."""

    parcel: np.ndarray
    main: np.ndarray
    coords: np.ndarray  # (n, 3, 2): tap, property line, building wall
    along: np.ndarray  # tap distance from the main's start, m
    installed: np.ndarray  # date ordinals
    material: np.ndarray
    sdr: list
    diameter_in: np.ndarray
    backflow: list
    tap_method: np.ndarray
    tap_fitting: np.ndarray
    tap_clock: np.ndarray
    permit_year: np.ndarray
    permit_seq: np.ndarray  # the permit's number within its year, from 1
    tracer: np.ndarray  # lateral rows that have a tracer wire
    lateral_of_parcel: RowOf

    def permit(self, i: int) -> str:
        """``TP-2011-014``: the tap permit's year and its sequence within that year."""
        return f"TP-{int(self.permit_year[i])}-{int(self.permit_seq[i]):03d}"


class RowOf:
    """Row of each served parcel in the services arrays (``parcel`` is sorted).

    A lookup by binary search instead of a dict: a dict of a million parcels costs
    about 100 MB, and only the few deliberate parcels are ever looked up.
    """

    def __init__(self, parcel: np.ndarray):
        self.parcel = parcel

    def __getitem__(self, p: int) -> int:
        r = int(np.searchsorted(self.parcel, p))
        if r >= len(self.parcel) or self.parcel[r] != p:
            raise KeyError(p)
        return r


def build_services(
    lots: Lots,
    net: Network,
    main_of_lot: np.ndarray,
    main_year: np.ndarray,
    main_material: np.ndarray,
    seg_m: np.ndarray,
    has_building: np.ndarray,
    big: np.ndarray,
    picks: Picks,
    rng: np.random.Generator,
) -> Services:
    """Lay a lateral from the frontage main to the wall of every served building."""
    served = lots.sewered & has_building
    served[picks.hookup] = False
    parcel = np.flatnonzero(served)
    n = len(parcel)
    row_of = RowOf(parcel)
    main = main_of_lot[parcel]
    along = _place_taps(lots, net, parcel, main, seg_m[main], picks, row_of)
    coords = _route_laterals(lots, net, parcel, main, along, rng)

    # Most building sewers went in within a few years of their main; some were
    # replaced later, under the 2009 rules.
    year = np.minimum(main_year[main] + rng.integers(0, 6, n), 2025)
    replaced = rng.random(n) < 0.12
    year[replaced] = rng.integers(np.maximum(year[replaced], CUTOVER_YEAR), 2026)
    for p in picks.by_rule["LATERAL-SDR26"] + picks.by_rule["TRACER-WIRE"]:
        year[row_of[p]] = rng.integers(CUTOVER_YEAR, 2026)
    # The deliberate tap breaks are taps made after § 315-13B(2) took effect (Aug 2009):
    # an older tap pre-dates the rule and is no violation of it.
    tap_picks = [p for pair in picks.spacing_pairs for p in pair]
    tap_picks += [p for rule in ("TAP-QUADRANT", "TAP-METHOD", "TAP-JOINT-6IN") for p in picks.by_rule[rule]]
    for p in tap_picks:
        year[row_of[p]] = max(int(year[row_of[p]]), CUTOVER_YEAR + 1)
    installed = _ordinal_dates(rng, year)
    new = year >= CUTOVER_YEAR
    material = LATERAL_MATERIALS[np.where(new, 0, np.where(year < 1978, 1, 2))]
    sdr: list = [26 if m == "PVC" else 35 if m == "ABS" else None for m in material]
    for p in picks.by_rule["LATERAL-SDR26"]:
        sdr[row_of[p]] = 35
    backflow: list = [True] * n
    for value, p in zip((False, None), picks.by_rule["BACKFLOW-VALVE"], strict=True):
        backflow[row_of[p]] = value

    method = rng.choice(np.array(["wye", "saddle", "core"], dtype=object), n, p=[0.8, 0.15, 0.05])
    fitting = main_material[main].copy()
    for p in picks.by_rule["TAP-METHOD"]:
        method[row_of[p]] = "wye"
        fitting[row_of[p]] = "ABS"  # no main is ABS, so this never matches it
    clock = rng.choice([11.0, 11.5, 12.0, 12.0, 12.0, 1.0], n)
    for value, p in zip((9.0, 3.0), picks.by_rule["TAP-QUADRANT"], strict=True):
        clock[row_of[p]] = value

    no_wire = {row_of[p] for p in picks.by_rule["TRACER-WIRE"]}
    tracer = np.setdiff1d(np.flatnonzero(new), sorted(no_wire)).astype(int)
    return Services(
        parcel=parcel,
        main=main,
        coords=coords,
        along=along,
        installed=installed,
        material=material,
        sdr=sdr,
        diameter_in=np.where(big[parcel], 6.0, 4.0),
        backflow=backflow,
        tap_method=method,
        tap_fitting=fitting,
        tap_clock=clock,
        permit_year=year,
        permit_seq=_permit_sequence(year),
        tracer=tracer,
        lateral_of_parcel=row_of,
    )


def _place_taps(
    lots: Lots,
    net: Network,
    parcel: np.ndarray,
    main: np.ndarray,
    seg_len: np.ndarray,
    picks: Picks,
    row_of: RowOf,
) -> np.ndarray:
    """Each tap's distance from its main's start (m), mid-segment unless planted.

    North-side lots aim a little west of the lot centre and south-side lots a little
    east, so the two taps across the street land in different pipe segments.
    """
    origin_x = net.node_x[net.main_from[main]]
    centre = lots.x0[parcel] + LOT_W / 2
    target = centre - origin_x + np.where(lots.side[parcel] == 0, -SIDE_OFFSET, SIDE_OFFSET)
    seg = np.floor(target / seg_len)
    along = (seg + 0.5) * seg_len
    for p in picks.by_rule["TAP-JOINT-6IN"]:
        r = row_of[p]
        along[r] = seg[r] * seg_len[r] + NEAR_JOINT_IN * INCH
    for a, b in picks.spacing_pairs:
        along[row_of[b]] = along[row_of[a]] + CLOSE_PAIR_IN * INCH
    return along


def _route_laterals(
    lots: Lots,
    net: Network,
    parcel: np.ndarray,
    main: np.ndarray,
    along: np.ndarray,
    rng: np.random.Generator,
) -> np.ndarray:
    """(n, 3, 2) vertices: tap on the main, property line, building wall."""
    n = len(parcel)
    front = lots.front_y[parcel]
    tap_x = net.node_x[net.main_from[main]] + along
    tap_y = net.node_y[net.main_from[main]]
    wall_x = lots.x0[parcel] + LOT_W / 2 + rng.uniform(-3.0, 3.0, n)
    wall_y = front + lots.inward[parcel] * rng.uniform(7.0, 12.0, n)
    return np.stack(
        [np.column_stack([tap_x, tap_y]), np.column_stack([tap_x, front]),
         np.column_stack([wall_x, wall_y])],
        axis=1,
    )


def _permit_sequence(year: np.ndarray) -> np.ndarray:
    """Each permit's sequence within its year (1, 2, …), in row order."""
    order = np.argsort(year, kind="stable")
    sorted_year = year[order]
    first = np.searchsorted(sorted_year, sorted_year, side="left")
    seq = np.empty(len(year), dtype=np.int64)
    seq[order] = np.arange(len(year)) - first + 1
    return seq
