"""Street grid of the demo city, in local metres.

The origin is the south-west street intersection of the sewered grid; x runs east and
y north. A block holds two rows of ten 20 m x 40 m lots between 20 m wide streets;
each lot fronts the east-west street on its short side. Mains run along every street
of the sewered grid, with a manhole at each intersection.

The unsewered blocks sit east of the grid beyond a greenway, far enough from any
main (more than the 150 ft of § 315-11D) that mandatory hookup does not reach them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

LOT_W = 20.0
LOT_D = 40.0
LOTS_PER_ROW = 10
LOTS_PER_BLOCK = 2 * LOTS_PER_ROW
STREET_HALF = 10.0
PITCH_X = LOTS_PER_ROW * LOT_W + 2 * STREET_HALF  # 220 m between north-south streets
PITCH_Y = 2 * LOT_D + 2 * STREET_HALF  # 100 m between east-west streets
GREENWAY = 80.0  # gap between the sewered grid's east street and the unsewered blocks
UNSEWERED_SHARE = 0.05


@dataclass(frozen=True)
class Grid:
    """Block counts of the sewered grid (nbx x nby) and the unsewered strip."""

    parcels: int
    nbx: int
    nby: int
    n_sewered_blocks: int
    n_unsewered_blocks: int
    unsewered_rows: int

    @property
    def width(self) -> float:
        return self.nbx * PITCH_X

    @property
    def height(self) -> float:
        return self.nby * PITCH_Y

    def block_exists(self, i: int, j: int) -> bool:
        return 0 <= i < self.nbx and 0 <= j < self.nby and j * self.nbx + i < self.n_sewered_blocks


def plan_grid(parcels: int) -> Grid:
    """Choose a roughly square sewered grid and an unsewered strip for ``parcels`` lots."""
    n_blocks = math.ceil(parcels / LOTS_PER_BLOCK)
    n_uns = max(1, round(UNSEWERED_SHARE * n_blocks))
    n_sew = n_blocks - n_uns
    nbx = max(1, math.ceil(math.sqrt(n_sew * PITCH_Y / PITCH_X)))
    nby = math.ceil(n_sew / nbx)
    return Grid(parcels, nbx, nby, n_sew, n_uns, min(nby, n_uns))


@dataclass(frozen=True)
class Lots:
    """One row per parcel: rectangle, frontage and grid position (numpy arrays)."""

    x0: np.ndarray
    y0: np.ndarray
    sewered: np.ndarray  # bool
    block_i: np.ndarray  # column of the block; unsewered blocks continue east of the grid
    street_j: np.ndarray  # index of the east-west street the lot fronts
    side: np.ndarray  # 0: lot on the north side of its street, 1: on the south side
    k: np.ndarray  # position in the row, 0 (west) to 9 (east)

    @property
    def front_y(self) -> np.ndarray:
        """The y of the lot line along the street."""
        return np.where(self.side == 0, self.y0, self.y0 + LOT_D)

    @property
    def inward(self) -> np.ndarray:
        """+1 where the lot extends north from its front line, -1 where south."""
        return np.where(self.side == 0, 1.0, -1.0)


def lay_out_lots(grid: Grid) -> Lots:
    """Place every lot; sewered blocks fill row by row, then the unsewered strip."""
    p = np.arange(grid.parcels)
    block, slot = np.divmod(p, LOTS_PER_BLOCK)
    row, k = np.divmod(slot, LOTS_PER_ROW)
    sewered = block < grid.n_sewered_blocks
    j_sew, i_sew = np.divmod(block, grid.nbx)
    u = block - grid.n_sewered_blocks
    iu, ju = np.divmod(u, grid.unsewered_rows)
    i = np.where(sewered, i_sew, grid.nbx + iu)
    j = np.where(sewered, j_sew, ju)
    origin_x = np.where(sewered, i * PITCH_X, grid.width + GREENWAY + iu * PITCH_X)
    x0 = origin_x + STREET_HALF + k * LOT_W
    y0 = j * PITCH_Y + STREET_HALF + row * LOT_D
    return Lots(
        x0=x0.astype(float),
        y0=y0.astype(float),
        sewered=sewered,
        block_i=i,
        street_j=j + row,
        side=row,
        k=k,
    )


@dataclass(frozen=True)
class Network:
    """Gravity mains and manholes of the sewered grid.

    ``main_*`` arrays have one row per gravity main; ``ew_index`` maps
    (street j, column i) of an east-west main to its row. East-west mains flow east,
    north-south mains flow south, so a main's start is always its upstream end.
    """

    node_x: np.ndarray
    node_y: np.ndarray
    main_from: np.ndarray
    main_to: np.ndarray
    main_is_ew: np.ndarray
    ew_index: dict[tuple[int, int], int]
    node_index: dict[tuple[int, int], int]


def lay_out_network(grid: Grid) -> Network:
    """Mains on every street segment that borders at least one sewered block."""
    exists = grid.block_exists
    segments: list[tuple[tuple[int, int], tuple[int, int], bool]] = []
    for j in range(grid.nby + 1):
        for i in range(grid.nbx):
            if exists(i, j) or exists(i, j - 1):
                segments.append(((i, j), (i + 1, j), True))
    for i in range(grid.nbx + 1):
        for j in range(grid.nby):
            if exists(i - 1, j) or exists(i, j):
                segments.append(((i, j + 1), (i, j), False))
    nodes = sorted({n for seg in segments for n in seg[:2]}, key=lambda n: (n[1], n[0]))
    node_index = {n: idx for idx, n in enumerate(nodes)}
    ew_index = {(a[1], a[0]): idx for idx, (a, _, ew) in enumerate(segments) if ew}
    return Network(
        node_x=np.array([n[0] * PITCH_X for n in nodes], dtype=float),
        node_y=np.array([n[1] * PITCH_Y for n in nodes], dtype=float),
        main_from=np.array([node_index[a] for a, _, _ in segments]),
        main_to=np.array([node_index[b] for _, b, _ in segments]),
        main_is_ew=np.array([ew for _, _, ew in segments]),
        ew_index=ew_index,
        node_index=node_index,
    )
