"""Attributes of the demo city's sewer mains and manholes (numpy arrays, local metres)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .layout import PITCH_X, Grid, Network

FT = 0.3048
# Two force mains come in along the grid's west edge from lift stations out of town.
PRESSURE_MAINS = (
    # (street j: "bottom" or "top", length west of the grid in m, cover ft, install year)
    ("bottom", 150.0, 8.5, 2004),
    ("top", 120.0, 6.0, 2016),  # deliberately shallow: PRESSURE-SEWER wants >= 7 ft
)


@dataclass(frozen=True)
class Mains:
    """One row per main; gravity mains first, then the pressure mains."""

    start: np.ndarray  # node index, upstream end
    end: np.ndarray
    material: np.ndarray  # str
    diameter_in: np.ndarray
    segment_length_ft: np.ndarray
    kind: np.ndarray  # str
    sdr: list  # int or None
    cover_ft: np.ndarray
    install_year: np.ndarray
    n_gravity: int
    shallow_pressure: int  # row of the pressure main laid with too little cover

    @property
    def segment_length_m(self) -> np.ndarray:
        return self.segment_length_ft * FT


@dataclass(frozen=True)
class Nodes:
    """Manholes at intersections, then flushing connections at force-main ends."""

    x: np.ndarray
    y: np.ndarray
    kind: np.ndarray
    rim_elev_ft: np.ndarray


def build_nodes_and_mains(
    grid: Grid, net: Network, rng: np.random.Generator, force_pvc: np.ndarray
) -> tuple[Nodes, Mains]:
    """Attribute the gravity network and append the two pressure mains.

    Args:
        force_pvc: indices of gravity mains that must be PVC (they carry the
            deliberate tap breaks, whose placement assumes 13 ft joints).
    """
    n_g = len(net.main_from)
    vcp = rng.random(n_g) < 0.15
    vcp[force_pvc] = False
    material = np.where(vcp, "VCP", "PVC").astype(object)
    seg_ft = np.where(vcp, rng.choice([4.0, 6.0], n_g), 13.0)
    x_start = net.node_x[net.main_from]
    y_start = net.node_y[net.main_from]
    column = np.rint(x_start / PITCH_X).astype(int)
    diameter = np.full(n_g, 8.0)
    diameter[~net.main_is_ew & (column % 4 == 0)] = 10.0
    diameter[net.main_is_ew & (y_start == 0.0)] = 12.0  # trunk along the lowest street
    year = np.where(vcp, rng.integers(1948, 1973, n_g), rng.integers(1978, 2023, n_g))
    cover = np.round(rng.uniform(7.0, 12.0, n_g), 1)

    fx, fy, start, end = [], [], [], []
    n_nodes = len(net.node_x)
    for idx, (edge, length, _, _) in enumerate(PRESSURE_MAINS):
        j = 0 if edge == "bottom" else grid.nby
        fx.append(-length)
        fy.append(j * 100.0)
        start.append(n_nodes + idx)
        end.append(net.node_index[(0, j)])
    node_x = np.concatenate([net.node_x, fx])
    node_y = np.concatenate([net.node_y, fy])
    kind = np.array(["manhole"] * n_nodes + ["flushing"] * len(fx), dtype=object)
    # Ground falls to the east and to the south, so mains flow that way.
    rim = 740.0 - 0.004 * node_x + 0.002 * node_y + rng.uniform(-0.05, 0.05, len(node_x))

    n_p = len(PRESSURE_MAINS)
    mains = Mains(
        start=np.concatenate([net.main_from, start]),
        end=np.concatenate([net.main_to, end]),
        material=np.concatenate([material, np.array(["HDPE"] * n_p, dtype=object)]),
        diameter_in=np.concatenate([diameter, np.full(n_p, 4.0)]),
        segment_length_ft=np.concatenate([seg_ft, np.full(n_p, 50.0)]),
        kind=np.array(["gravity"] * n_g + ["pressure"] * n_p, dtype=object),
        sdr=[None if v else 35 for v in vcp] + [11] * n_p,
        cover_ft=np.concatenate([cover, [p[2] for p in PRESSURE_MAINS]]),
        install_year=np.concatenate([year, [p[3] for p in PRESSURE_MAINS]]),
        n_gravity=n_g,
        shallow_pressure=n_g + 1,
    )
    nodes = Nodes(x=node_x, y=node_y, kind=kind, rim_elev_ft=np.round(rim, 2))
    return nodes, mains
