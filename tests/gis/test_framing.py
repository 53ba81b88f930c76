"""The dense core of a city's parcels and the ones far from it (issue 34)."""

from __future__ import annotations

import numpy as np

from gis import framing as pure

STRAY_LONLAT = (-90.25, 44.25)  # about 100 km east of Arcadia


def _grid(n: int = 300) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(34)
    return -91.50 + rng.random(n) * 0.02, 44.25 + rng.random(n) * 0.01


def test_the_dense_core_leaves_out_one_far_point():
    lon, lat = _grid()
    core = pure.dense_core(np.append(lon, STRAY_LONLAT[0]), np.append(lat, STRAY_LONLAT[1]))
    assert core[2] < -91.47  # not stretched 100 km east
    assert core[0] < -91.49 and core[3] > 44.255


def test_strays_are_the_far_points_only():
    lon, lat = _grid()
    lon, lat = np.append(lon, STRAY_LONLAT[0]), np.append(lat, STRAY_LONLAT[1])
    assert pure.strays(lon, lat).tolist() == [len(lon) - 1]
    assert pure.strays(*_grid()).tolist() == []  # the edge of a compact city is no stray
