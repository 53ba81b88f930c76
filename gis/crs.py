"""Measuring in a projected CRS: the ordinance states distances in inches and feet.

Geometry arrives in EPSG:4326 (lon/lat). Distances measured in degrees are
meaningless, so every rule projects first, into the rulebook's measurement CRS, and
converts that CRS's own axis unit (metre, US survey foot, international foot: read
from pyproj, never assumed) into inches or feet.
"""

from __future__ import annotations

import threading
from typing import overload

import numpy as np
import numpy.typing as npt
import shapely
from pyproj import CRS, Transformer
from shapely.geometry.base import BaseGeometry

from gis.arrays import FloatArray, GeometryArray

METRES_PER_INCH = 0.0254
METRES_PER_FOOT = 0.3048
GEOGRAPHIC = "EPSG:4326"


class MeasurementCRSError(ValueError):
    """The configured measurement CRS is not a projected CRS with a length unit."""


_local = threading.local()

# Forward (lon/lat to CRS), inverse, metres per CRS unit, the unit's name.
_Transformers = tuple[Transformer, Transformer, float, str]


def _transformers(crs: str) -> _Transformers:
    """Cached per thread: a pyproj Transformer must not be shared between threads."""
    cache: dict[str, _Transformers] = _local.__dict__.setdefault("transformers", {})
    if crs not in cache:
        cache[crs] = _build_transformers(crs)
    return cache[crs]


def _build_transformers(crs: str) -> _Transformers:
    target = CRS.from_user_input(crs)
    if not target.is_projected:
        raise MeasurementCRSError(f"{crs} is not projected; distances need a projected CRS")
    axis = target.axis_info[0]
    if not axis.unit_conversion_factor:
        raise MeasurementCRSError(f"{crs} has no linear axis unit")
    forward = Transformer.from_crs(GEOGRAPHIC, target, always_xy=True)
    inverse = Transformer.from_crs(target, GEOGRAPHIC, always_xy=True)
    return forward, inverse, float(axis.unit_conversion_factor), axis.unit_name


class Measurer:
    """Projects lon/lat geometry into one projected CRS and converts its lengths.

    Args:
        crs: Anything pyproj accepts, e.g. ``"EPSG:3071"``.

    Attributes:
        crs: The CRS string given.
        metres_per_unit: Length of one CRS unit in metres (0.3048006096 for ftUS).
        unit_name: The axis unit as pyproj names it.
    """

    def __init__(self, crs: str):
        self.crs = str(crs)
        self._forward, self._inverse, self.metres_per_unit, self.unit_name = _transformers(
            self.crs
        )

    def __repr__(self) -> str:
        return f"Measurer({self.crs!r}, unit={self.unit_name!r})"

    # ------------------------------------------------------------- projection
    def project_xy(self, xy: npt.ArrayLike) -> FloatArray:
        """Project an ``(n, 2)`` array of lon/lat into CRS units."""
        xy = np.asarray(xy, dtype=float).reshape(-1, 2)
        x, y = self._forward.transform(xy[:, 0], xy[:, 1])
        return np.column_stack([x, y])

    def unproject_xy(self, xy: npt.ArrayLike) -> FloatArray:
        """Inverse of :meth:`project_xy`."""
        xy = np.asarray(xy, dtype=float).reshape(-1, 2)
        x, y = self._inverse.transform(xy[:, 0], xy[:, 1])
        return np.column_stack([x, y])

    @overload
    def project(self, geoms: GeometryArray) -> GeometryArray: ...
    @overload
    def project(self, geoms: BaseGeometry) -> BaseGeometry: ...
    def project(self, geoms: GeometryArray | BaseGeometry) -> GeometryArray | BaseGeometry:
        """Project one shapely geometry or an array of them (vectorised; None stays None)."""
        return shapely.transform(geoms, self.project_xy)

    @overload
    def unproject(self, geoms: GeometryArray) -> GeometryArray: ...
    @overload
    def unproject(self, geoms: BaseGeometry) -> BaseGeometry: ...
    def unproject(self, geoms: GeometryArray | BaseGeometry) -> GeometryArray | BaseGeometry:
        """Back to EPSG:4326 lon/lat: evidence is reported in the input's CRS."""
        return shapely.transform(geoms, self.unproject_xy)

    # ------------------------------------------------------------- units
    # A scalar comes back as a numpy float64 (a float), an array as an array.
    @overload
    def to_inches(self, length: float) -> float: ...
    @overload
    def to_inches(self, length: npt.NDArray[np.floating] | list[float]) -> FloatArray: ...
    def to_inches(self, length: npt.ArrayLike) -> float | FloatArray:
        """CRS length (scalar or array) in inches."""
        return np.asarray(length, dtype=float) * (self.metres_per_unit / METRES_PER_INCH)

    @overload
    def to_feet(self, length: float) -> float: ...
    @overload
    def to_feet(self, length: npt.NDArray[np.floating] | list[float]) -> FloatArray: ...
    def to_feet(self, length: npt.ArrayLike) -> float | FloatArray:
        """CRS length (scalar or array) in feet."""
        return np.asarray(length, dtype=float) * (self.metres_per_unit / METRES_PER_FOOT)

    def from_inches(self, inches: float) -> float:
        """Inches as a CRS length."""
        return float(inches) * METRES_PER_INCH / self.metres_per_unit

    def from_feet(self, feet: float) -> float:
        """Feet as a CRS length."""
        return float(feet) * METRES_PER_FOOT / self.metres_per_unit
