"""Sites drawn in a projected CRS near Arcadia, WI, and small feature builders.

Known answers are drawn in the measurement CRS (offsets in inches or feet from a point
in Arcadia) and transformed to EPSG:4326 for input, as field data arrives; the engine
projects back, so a 23.9 in gap stays 23.9 in to well under 0.01 in.
"""

from __future__ import annotations

import dataclasses

import shapely
from pyproj import Transformer
from shapely.geometry import LineString, MultiPoint, Point, Polygon

from gis.crs import Measurer
from gis.rulebook import Rulebook, load_rulebook
from gis.rules import Network, SewerMain, Tap, run_rules

ARCADIA_LONLAT = (-91.501, 44.253)


class Site:
    """A drawing board in one projected CRS; coordinates are given in inches or feet."""

    def __init__(self, crs: str):
        self.crs = crs
        self.measurer = Measurer(crs)
        to_crs = Transformer.from_crs("EPSG:4326", crs, always_xy=True)
        self.x0, self.y0 = to_crs.transform(*ARCADIA_LONLAT)
        base = load_rulebook("arcadia")
        self.rulebook = Rulebook(
            name=f"arcadia-{crs}",
            path=base.path,
            data={**base.data, "measurement": {"crs": crs}},
        )

    def _xy(self, x_ft: float, y_ft: float):
        per_ft = self.measurer.from_feet(1.0)
        return self.x0 + x_ft * per_ft, self.y0 + y_ft * per_ft

    def _lonlat(self, geom):
        return self.measurer.unproject(geom)

    def pt(self, x_ft: float, y_ft: float = 0.0) -> Point:
        """A point ``x_ft`` east and ``y_ft`` north of the origin, in EPSG:4326."""
        return self._lonlat(Point(self._xy(x_ft, y_ft)))

    def pt_in(self, x_in: float, y_in: float = 0.0) -> Point:
        """Like :meth:`pt`, in inches."""
        return self.pt(x_in / 12.0, y_in / 12.0)

    def line(self, *coords_ft) -> LineString:
        return self._lonlat(LineString([self._xy(x, y) for x, y in coords_ft]))

    def points(self, *coords_ft) -> MultiPoint:
        return self._lonlat(MultiPoint([self._xy(x, y) for x, y in coords_ft]))

    def box(self, x0: float, y0: float, x1: float, y1: float) -> Polygon:
        return self._lonlat(shapely.box(*self._xy(x0, y0), *self._xy(x1, y1)))

    def run(self, network: Network, **kwargs):
        return run_rules(network, self.rulebook, **kwargs)


def straight_main(site: Site, length_ft: float = 100.0, **fields) -> SewerMain:
    """A main running east from the origin."""
    defaults = dict(id=1, geometry=site.line((0, 0), (length_ft, 0)), material="PVC",
                    diameter_in=8.0, segment_length_ft=13.0, kind="gravity")
    return SewerMain(**{**defaults, **fields})


def tap_at(site: Site, tap_id, x_in: float, main_id=1, y_in: float = 0.0, **fields) -> Tap:
    defaults = dict(id=tap_id, main_id=main_id, lateral_id=None, geometry=site.pt_in(x_in, y_in),
                    method="saddle", clock_position=12.0)
    return Tap(**{**defaults, **fields})


def replace(feature, **changes):
    return dataclasses.replace(feature, **changes)
