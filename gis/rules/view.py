"""A network prepared for measuring: projected arrays, indexes and spatial trees.

Rules share one :class:`NetworkView` per run, so each layer is projected once
(vectorised, shapely 2) and each STRtree is built once, lazily, by the first rule
that needs it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cached_property
from typing import cast

import numpy as np
import shapely

from gis.arrays import BoolArray, FloatArray, GeometryArray, IdArray, IntArray
from gis.crs import Measurer
from gis.rules.network import Feature, FeatureId, Network


def _ids(features: Iterable[Feature]) -> IdArray:
    """The features' ids (an object array, like the geometries beside it)."""
    return np.array([f.id for f in features], dtype=object)


def _index(ids: Iterable[FeatureId]) -> dict[FeatureId, int]:
    return {ident: i for i, ident in enumerate(ids)}


def _geoms(features: Sequence[object], attr: str = "geometry") -> GeometryArray:
    out = np.empty(len(features), dtype=object)
    out[:] = [getattr(f, attr) for f in features]
    return out


class NetworkView:
    """Projected, indexed arrays over a :class:`Network`.

    Args:
        network: The features.
        measurer: Projects into the measurement CRS and converts units.
    """

    def __init__(self, network: Network, measurer: Measurer):
        self.network = network
        self.measurer = measurer

    # ---------------------------------------------------------------- mains
    @cached_property
    def main_index(self) -> dict[FeatureId, int]:
        return _index(m.id for m in self.network.mains)

    @cached_property
    def mains_xy(self) -> GeometryArray:
        """Mains projected into the measurement CRS."""
        return self.measurer.project(_geoms(self.network.mains))

    @cached_property
    def main_lengths(self) -> FloatArray:
        return cast(FloatArray, shapely.length(self.mains_xy))

    @cached_property
    def main_tree(self) -> shapely.STRtree:
        return shapely.STRtree(self.mains_xy)

    # ---------------------------------------------------------------- taps
    @cached_property
    def tap_ids(self) -> IdArray:
        return _ids(self.network.taps)

    @cached_property
    def taps_xy(self) -> GeometryArray:
        return self.measurer.project(_geoms(self.network.taps))

    @cached_property
    def tap_main(self) -> IntArray:
        """Index into mains of each tap's main; -1 where the main is not in the network."""
        index = self.main_index
        return np.array([index.get(t.main_id, -1) for t in self.network.taps], dtype=np.int64)

    @cached_property
    def tap_position(self) -> FloatArray:
        """Distance of each tap along its main from the upstream end (CRS units; NaN if no main)."""
        pos = np.full(len(self.network.taps), np.nan)
        ok = self.tap_main >= 0
        if ok.any():
            pos[ok] = shapely.line_locate_point(self.mains_xy[self.tap_main[ok]], self.taps_xy[ok])
        return pos

    @cached_property
    def tap_parcel(self) -> list[FeatureId | None]:
        """Parcel id of each tap's lateral, where known."""
        parcel_of: dict[FeatureId | None, FeatureId | None] = {
            lat.id: lat.parcel_id for lat in self.network.laterals
        }
        return [parcel_of.get(t.lateral_id) for t in self.network.taps]

    # ---------------------------------------------------------------- laterals
    @cached_property
    def lateral_index(self) -> dict[FeatureId, int]:
        return _index(lat.id for lat in self.network.laterals)

    @cached_property
    def laterals_xy(self) -> GeometryArray:
        return self.measurer.project(_geoms(self.network.laterals))

    @cached_property
    def lateral_lengths(self) -> FloatArray:
        return cast(FloatArray, shapely.length(self.laterals_xy))

    @cached_property
    def lateral_starts(self) -> GeometryArray:
        """Tap end of each projected lateral."""
        return cast(GeometryArray, shapely.get_point(self.laterals_xy, 0))

    @cached_property
    def lateral_ends(self) -> GeometryArray:
        """Building end of each projected lateral."""
        return cast(GeometryArray, shapely.get_point(self.laterals_xy, -1))

    # ---------------------------------------------------------------- parcels
    @cached_property
    def parcel_ids(self) -> IdArray:
        return _ids(self.network.parcels)

    @cached_property
    def parcels_xy(self) -> GeometryArray:
        return self.measurer.project(_geoms(self.network.parcels))

    @cached_property
    def parcel_tree(self) -> shapely.STRtree:
        return shapely.STRtree(self.parcels_xy)

    @cached_property
    def parcel_in_service_area(self) -> BoolArray:
        """Flagged in the service area, or a point on its surface lies in a service area."""
        inside = np.array([p.in_service_area for p in self.network.parcels], dtype=bool)
        if self.network.service_areas and len(inside):
            areas = self.measurer.project(_geoms(self.network.service_areas))
            points = shapely.point_on_surface(self.parcels_xy)
            hits, _ = shapely.STRtree(areas).query(points, predicate="within")
            inside[hits] = True
        return inside

    # ---------------------------------------------------------------- manholes, wires
    @cached_property
    def manholes_xy(self) -> GeometryArray:
        return self.measurer.project(_geoms(self.network.manholes))

    @cached_property
    def tracer_wires_xy(self) -> GeometryArray:
        return self.measurer.project(_geoms(self.network.tracer_wires))
