"""Street centrelines of the demo city, named and numbered as its addresses are.

Each east-west street is cut at every cross street; a piece carries the direction and
name its lots' addresses use (``W Jackson St``) and, on each side, the house numbers of
the lots along it. Pieces run away from the centre street, so numbers grow along the
line, as a county's centrelines are drawn. North-south streets carry names only: no
demo lot is addressed on them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import names
from .layout import LOTS_PER_ROW, PITCH_X, PITCH_Y, STREET_HALF, Grid, Lots
from .owners import house_numbers


@dataclass(frozen=True)
class Street:
    name: str
    coords: tuple[tuple[float, float], tuple[float, float]]  # local metres
    left: tuple[int, int] | None
    right: tuple[int, int] | None


def ns_street(i: int, centre: int) -> str:
    """``Center St`` on the grid's centre line, ``2nd Ave E`` two streets east of it."""
    if i == centre:
        return "Center St"
    return f"{names.ordinal(abs(i - centre))} Ave {'E' if i > centre else 'W'}"


def lay_out_streets(grid: Grid, lots: Lots) -> list[Street]:
    """Every street piece along a block's frontage, then the north-south streets."""
    number, prefix = house_numbers(grid, lots.block_i, lots.k, lots.side)
    first_k = lots.k == 0
    pieces: dict[tuple[int, int], dict] = {}
    for p in np.flatnonzero(first_k).tolist():
        key = (int(lots.street_j[p]), int(lots.block_i[p]))
        west = float(lots.x0[p]) - STREET_HALF  # the lot row's first lot starts a half street past the corner
        piece = pieces.setdefault(key, {"x0": west, "dir": str(prefix[p]), "sides": {}})
        piece["sides"][int(lots.side[p])] = p
    out: list[Street] = []
    for (j, _i), piece in sorted(pieces.items()):
        y = j * PITCH_Y
        west, east = piece["x0"], piece["x0"] + PITCH_X
        outward_east = piece["dir"] == "E"
        ranges: dict[int, tuple[int, int]] = {}
        for side, p in piece["sides"].items():
            row = np.arange(p, min(p + LOTS_PER_ROW, grid.parcels))
            nums = number[row]
            ranges[side] = (int(nums.min()), int(nums.max()))
        # Walking east, the north side (0) is on the left; walking west, on the right.
        north, south = ranges.get(0), ranges.get(1)
        coords = ((west, y), (east, y)) if outward_east else ((east, y), (west, y))
        left, right = (north, south) if outward_east else (south, north)
        out.append(Street(f"{piece['dir']} {names.ew_street(j)}", coords, left, right))
    centre = grid.nbx // 2
    for i in range(grid.nbx + 1):
        out.append(Street(ns_street(i, centre), ((i * PITCH_X, 0.0), (i * PITCH_X, grid.nby * PITCH_Y)), None, None))
    return out
