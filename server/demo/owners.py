"""Owners, mailing addresses and site addresses of the demo parcels.

The random draws are made once for the whole city as numpy arrays (a few bytes per
parcel); the strings are built on demand for a range of parcels, so a loader that
streams a million parcels never holds a million names.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import names
from .layout import LOTS_PER_ROW, Grid, Lots

USER_CLASSES = np.array(["residential", "commercial", "industrial", "public_authority"], dtype=object)
USER_CLASS_P = (0.88, 0.08, 0.02, 0.02)
N_UNMAILABLE = 4

Mailing = tuple[str | None, str | None, str | None, str | None]


@dataclass(frozen=True)
class Owners:
    """One entry per parcel, as arrays; ``rows(start, stop)`` gives the strings."""

    grid: Grid
    lots: Lots
    user_class: np.ndarray
    first: np.ndarray  # (n, 2) indices into names.FIRST_NAMES
    last: np.ndarray
    joint: np.ndarray  # bool: a second owner
    biz: np.ndarray  # 16-bit draw choosing business words, towns and streets
    where: np.ndarray  # 0: mail to the site, 1: elsewhere in Wisconsin, 2: out of state
    zip4: np.ndarray
    house: np.ndarray
    unmailable: list[int]

    def site_addresses(self, start: int, stop: int) -> list[str]:
        return site_addresses(self.grid, self.lots, start, stop)

    def rows(self, start: int, stop: int) -> tuple[list[str], list[str | None], list[Mailing]]:
        """Owner names, second owners and mailing addresses of parcels ``start:stop``."""
        site = self.site_addresses(start, stop)
        owner: list[str] = []
        owner2: list[str | None] = []
        mailing: list[Mailing] = []
        unmailable = set(self.unmailable)
        first, last = self.first[start:stop].tolist(), self.last[start:stop].tolist()
        joint, biz = self.joint[start:stop].tolist(), self.biz[start:stop].tolist()
        where, zip4 = self.where[start:stop].tolist(), self.zip4[start:stop].tolist()
        house = self.house[start:stop].tolist()
        for off, cls in enumerate(self.user_class[start:stop]):
            b = biz[off]
            if cls == "residential":
                owner.append(_person((first[off][0], last[off])))
                owner2.append(_person((first[off][1], last[off])) if joint[off] else None)
            elif cls == "public_authority":
                owner.append(names.PUBLIC_OWNERS[b % len(names.PUBLIC_OWNERS)])
                owner2.append(None)
            else:
                kinds = names.COMMERCIAL_KINDS if cls == "commercial" else names.INDUSTRIAL_KINDS
                word = names.BUSINESS_WORDS[b % len(names.BUSINESS_WORDS)]
                owner.append(f"{word} {kinds[(b >> 5) % len(kinds)]}")
                owner2.append(None)
            if start + off in unmailable:
                mailing.append((None, None, None, None))
            elif where[off] == 0 or cls == "public_authority":
                mailing.append((site[off], "Arcadia", "WI", f"54612-{zip4[off]:04d}"))
            else:
                towns = names.WI_TOWNS if where[off] == 1 else names.OUT_OF_STATE
                city, state, zip5 = towns[b % len(towns)]
                street = names.OTHER_STREETS[(b >> 4) % len(names.OTHER_STREETS)]
                mailing.append((f"{house[off]} {street}", city, state, f"{zip5}-{zip4[off]:04d}"))
        return owner, owner2, mailing


def house_numbers(grid: Grid, block_i: np.ndarray, k: np.ndarray,
                  side: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """House numbers and their direction (``"E"``/``"W"`` of the grid's centre street).

    Numbers grow away from the centre street, 100 a block; even north of the street,
    odd south. The demo's street centrelines (``streets.py``) take their ranges from here.
    """
    centre = grid.nbx // 2
    east = block_i >= centre
    blk = np.where(east, block_i - centre + 1, centre - block_i)
    kk = np.where(east, k, LOTS_PER_ROW - 1 - k)
    return 100 * blk + 2 * kk + 2 - side, np.where(east, "E", "W")


def site_addresses(grid: Grid, lots: Lots, start: int = 0, stop: int | None = None) -> list[str]:
    """``"412 E Main St"``: even numbers north of the street, odd south, 100 a block."""
    sl = slice(start, stop)
    number, prefix = house_numbers(grid, lots.block_i[sl], lots.k[sl], lots.side[sl])
    street_j = lots.street_j[sl]
    streets = {j: names.ew_street(j) for j in np.unique(street_j).tolist()}
    return [
        f"{n} {d} {streets[j]}"
        for n, d, j in zip(number.tolist(), prefix.tolist(), street_j.tolist(), strict=True)
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
    first = rng.integers(0, len(names.FIRST_NAMES), (n, 2))
    last = rng.integers(0, len(names.LAST_NAMES), n)
    joint = rng.random(n) < 0.35
    biz = rng.integers(0, 1 << 16, n)
    where = rng.choice(3, n, p=[0.85, 0.09, 0.06])
    zip4 = rng.integers(1000, 10000, n)
    house = rng.integers(100, 9900, n)
    candidates = np.setdiff1d(np.flatnonzero(user_class == "residential"), list(exclude))
    unmailable = sorted(int(p) for p in rng.choice(candidates, N_UNMAILABLE, replace=False))
    return Owners(grid, lots, user_class, first, last, joint, biz, where, zip4, house, unmailable)
