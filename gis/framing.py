"""Where a map of a city should look: its dense core, and the parcels far from it.

A city's extent is at the mercy of one stray feature (a parcel keyed in 100 km away);
the extent of the 2nd–98th percentiles of its parcels' centroids is not. Pure numpy
over lon/lat arrays; distances are equirectangular metres about the core's centre,
exact enough at a city's scale.
"""

from __future__ import annotations

import math

import numpy as np

LOW, HIGH = 2.0, 98.0  # percentiles of the centroids that bound the dense core
#: A parcel is stray when its centroid lies farther than this from the core's box, or
#: farther than the core's own diagonal when that is longer.
STRAY_MIN_M = 2_000.0
M_PER_DEG_LAT = 110_540.0
M_PER_DEG_LON_EQUATOR = 111_320.0

Box = tuple[float, float, float, float]


def dense_core(lon: np.ndarray, lat: np.ndarray) -> Box | None:
    """The box of the 2nd–98th percentiles of the centroids; None without any."""
    if len(lon) == 0:
        return None
    x0, x1 = np.percentile(lon, [LOW, HIGH])
    y0, y1 = np.percentile(lat, [LOW, HIGH])
    return float(x0), float(y0), float(x1), float(y1)


def _metres(box: Box) -> tuple[float, float]:
    kx = M_PER_DEG_LON_EQUATOR * math.cos(math.radians((box[1] + box[3]) / 2))
    return kx, M_PER_DEG_LAT


def distance_from_box_m(box: Box, lon: np.ndarray, lat: np.ndarray) -> np.ndarray:
    """Metres from each point to the box (0 inside it)."""
    kx, ky = _metres(box)
    dx = np.maximum(0.0, np.maximum(box[0] - lon, lon - box[2])) * kx
    dy = np.maximum(0.0, np.maximum(box[1] - lat, lat - box[3])) * ky
    return np.hypot(dx, dy)


def strays(lon: np.ndarray, lat: np.ndarray) -> np.ndarray:
    """Indices of the centroids far from the dense core of all of them."""
    core = dense_core(lon, lat)
    if core is None or len(lon) < 3:
        return np.array([], dtype=int)
    kx, ky = _metres(core)
    diagonal = math.hypot((core[2] - core[0]) * kx, (core[3] - core[1]) * ky)
    far = distance_from_box_m(core, lon, lat) > max(STRAY_MIN_M, diagonal)
    return np.flatnonzero(far)


def padded(box: Box, share: float = 0.05) -> Box:
    """The box grown by ``share`` of its size on each side (a tiny box by a few metres)."""
    dx = max((box[2] - box[0]) * share, 0.0003)
    dy = max((box[3] - box[1]) * share, 0.0003)
    return box[0] - dx, box[1] - dy, box[2] + dx, box[3] + dy
