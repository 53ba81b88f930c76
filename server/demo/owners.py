"""Owners, mailing addresses and site addresses of the demo parcels."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import names
from .layout import LOTS_PER_ROW, Grid, Lots

USER_CLASSES = np.array(["residential", "commercial", "industrial", "public_authority"], dtype=object)
USER_CLASS_P = (0.88, 0.08, 0.02, 0.02)
N_UNMAILABLE = 4


@dataclass(frozen=True)
class Owners:
    """One row per parcel."""

    user_class: np.ndarray
    site_address: list[str]
    owner_name: list[str]
    owner_name_2: list[str | None]
    mailing: list[tuple[str | None, str | None, str | None, str | None]]
    unmailable: list[int]


def site_addresses(grid: Grid, lots: Lots) -> list[str]:
    """``"412 E Main St"``: even numbers north of the street, odd south, 100 a block."""
    centre = grid.nbx // 2
    east = lots.block_i >= centre
    blk = np.where(east, lots.block_i - centre + 1, centre - lots.block_i)
    kk = np.where(east, lots.k, LOTS_PER_ROW - 1 - lots.k)
    number = 100 * blk + 2 * kk + 2 - lots.side
    prefix = np.where(east, "E", "W")
    streets = [names.ew_street(j) for j in range(int(lots.street_j.max()) + 1)]
    return [
        f"{n} {d} {streets[j]}"
        for n, d, j in zip(number.tolist(), prefix.tolist(), lots.street_j.tolist(), strict=True)
    ]


def _person(rng_row: tuple[int, int]) -> str:
    first, last = rng_row
    return f"{names.FIRST_NAMES[first]} {names.LAST_NAMES[last]}"


def build_owners(
    grid: Grid, lots: Lots, rng: np.random.Generator, exclude: set[int]
) -> Owners:
    """Who owns each parcel and where their mail goes.

    Most owners live on the parcel (Arcadia WI 54612); some elsewhere in Wisconsin or
    out of state; ``N_UNMAILABLE`` have no usable mailing address at all, so notice
    code has something to hold. Parcels in ``exclude`` are never made unmailable.
    """
    n = grid.parcels
    user_class = rng.choice(USER_CLASSES, n, p=USER_CLASS_P)
    site = site_addresses(grid, lots)
    first = rng.integers(0, len(names.FIRST_NAMES), (n, 2)).tolist()
    last = rng.integers(0, len(names.LAST_NAMES), n).tolist()
    joint = (rng.random(n) < 0.35).tolist()
    biz = rng.integers(0, 1 << 16, n).tolist()
    where = rng.choice(3, n, p=[0.85, 0.09, 0.06]).tolist()
    zip4 = rng.integers(1000, 10000, n).tolist()
    house = rng.integers(100, 9900, n).tolist()
    owner, owner2, mailing = [], [], []
    for p in range(n):
        cls = user_class[p]
        b = biz[p]
        if cls == "residential":
            owner.append(_person((first[p][0], last[p])))
            owner2.append(_person((first[p][1], last[p])) if joint[p] else None)
        elif cls == "public_authority":
            owner.append(names.PUBLIC_OWNERS[b % len(names.PUBLIC_OWNERS)])
            owner2.append(None)
        else:
            kinds = names.COMMERCIAL_KINDS if cls == "commercial" else names.INDUSTRIAL_KINDS
            word = names.BUSINESS_WORDS[b % len(names.BUSINESS_WORDS)]
            owner.append(f"{word} {kinds[(b >> 5) % len(kinds)]}")
            owner2.append(None)
        if where[p] == 0 or cls == "public_authority":
            mailing.append((site[p], "Arcadia", "WI", f"54612-{zip4[p]:04d}"))
        else:
            towns = names.WI_TOWNS if where[p] == 1 else names.OUT_OF_STATE
            city, state, zip5 = towns[b % len(towns)]
            street = names.OTHER_STREETS[(b >> 4) % len(names.OTHER_STREETS)]
            mailing.append((f"{house[p]} {street}", city, state, f"{zip5}-{zip4[p]:04d}"))
    candidates = np.setdiff1d(np.flatnonzero(user_class == "residential"), list(exclude))
    unmailable = sorted(int(p) for p in rng.choice(candidates, N_UNMAILABLE, replace=False))
    for p in unmailable:
        mailing[p] = (None, None, None, None)
    return Owners(user_class, site, owner, owner2, mailing, unmailable)
