"""Demo cities shared by the demo tests, built once per size per session."""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import pyproj
import pytest
import shapely

from server.demo.city import LAYERS, DemoCity
from tests.support.demo_city import city_of

SIZES = (200, 1200)
_TO_3071 = pyproj.Transformer.from_crs("EPSG:4326", "EPSG:3071", always_xy=True)


def to_3071(geoms):
    """Shapely geometries (array or single) from lon/lat to EPSG:3071 metres."""

    def project(xy: np.ndarray) -> np.ndarray:
        return np.column_stack(_TO_3071.transform(xy[:, 0], xy[:, 1]))

    return shapely.transform(geoms, project)


@lru_cache(maxsize=4)
def projected_of(parcels: int) -> dict[str, np.ndarray]:
    """Each layer's geometries in EPSG:3071, in row order."""
    city = city_of(parcels)
    return {
        layer: to_3071(np.array([row["geometry"] for row in getattr(city, layer)], dtype=object))
        for layer in LAYERS
    }


@pytest.fixture(params=SIZES, ids=lambda n: f"{n}p")
def size(request) -> int:
    return request.param


@pytest.fixture
def demo_city_plan(size) -> DemoCity:
    """The demo city's plan (not seeded in a database) at each size."""
    return city_of(size)


@pytest.fixture
def projected(size) -> dict[str, np.ndarray]:
    return projected_of(size)
