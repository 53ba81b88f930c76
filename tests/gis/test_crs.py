"""Measurer: projection into the measurement CRS and its unit, read from pyproj."""

from __future__ import annotations

import numpy as np
import pytest
import shapely
from shapely.geometry import LineString, Point

from gis.crs import MeasurementCRSError, Measurer


@pytest.mark.parametrize(
    ("crs", "inches_per_unit"),
    [("EPSG:3071", 39.37007874), ("EPSG:7577", 39.37007874), ("EPSG:8114", 12.0000240),
     ("EPSG:2927", 12.0000240)],
)
def test_axis_unit_comes_from_pyproj(crs, inches_per_unit):
    assert float(Measurer(crs).to_inches(1.0)) == pytest.approx(inches_per_unit, rel=1e-7)


def test_geographic_crs_is_refused():
    with pytest.raises(MeasurementCRSError, match="not projected"):
        Measurer("EPSG:4326")


def test_feet_round_trip():
    measurer = Measurer("EPSG:2927")
    assert float(measurer.to_feet(measurer.from_feet(1000.0))) == pytest.approx(1000.0)


def test_projects_arrays_of_geometry_in_one_call():
    measurer = Measurer("EPSG:3071")
    geoms = np.array([Point(-91.501, 44.253), LineString([(-91.5, 44.25), (-91.49, 44.25)])])
    projected = measurer.project(geoms)
    assert projected.shape == (2,)
    # 0.01° of longitude at 44.25° N is about 797 m.
    assert shapely.length(projected[1]) == pytest.approx(797, abs=2)


def test_unproject_inverts_project():
    measurer = Measurer("EPSG:7577")
    point = Point(-91.501, 44.253)
    back = measurer.unproject(measurer.project(point))
    assert back.distance(point) < 1e-9
