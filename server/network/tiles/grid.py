"""Web Mercator tile arithmetic (EPSG:3857, the XYZ scheme with y counted from the north)."""

from __future__ import annotations

import math

import numpy as np

EARTH_RADIUS = 6378137.0
HALF_WORLD = math.pi * EARTH_RADIUS  # metres from the origin to the edge of the square world


def tile_bounds_3857(z: int, x: int, y: int) -> tuple[float, float, float, float]:
    """(minx, miny, maxx, maxy) of a tile in Web Mercator metres."""
    size = 2 * HALF_WORLD / 2**z
    minx = -HALF_WORLD + x * size
    maxy = HALF_WORLD - y * size
    return minx, maxy - size, minx + size, maxy


def tile_bounds_4326(z: int, x: int, y: int) -> tuple[float, float, float, float]:
    """(minLon, minLat, maxLon, maxLat) of a tile: a Mercator tile is a lon/lat rectangle."""
    n = 2**z

    def lat(row: int) -> float:
        return math.degrees(math.atan(math.sinh(math.pi * (1 - 2 * row / n))))

    return x / n * 360 - 180, lat(y + 1), (x + 1) / n * 360 - 180, lat(y)


def to_3857(coords: np.ndarray) -> np.ndarray:
    """lon/lat pairs (N×2, degrees) to Web Mercator metres."""
    lon, lat = coords[:, 0], coords[:, 1]
    mx = np.radians(lon) * EARTH_RADIUS
    my = np.log(np.tan(np.pi / 4 + np.radians(lat) / 2)) * EARTH_RADIUS
    return np.column_stack([mx, my])


def tile_for(lon: float, lat: float, z: int) -> tuple[int, int]:
    """The (x, y) of the tile at zoom ``z`` holding a point."""
    n = 2**z
    x = int((lon + 180) / 360 * n)
    y = int((1 - math.asinh(math.tan(math.radians(lat))) / math.pi) / 2 * n)
    return x, y


def valid(z: int, x: int, y: int) -> bool:
    return 0 <= z <= 24 and 0 <= x < 2**z and 0 <= y < 2**z
