"""GeoJSON (RFC 7946) geometry in and out: strict parsing with reasons a person can act on.

Pure functions over shapely; the server turns ``GeometryError`` into a 422.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Sequence
from typing import Any

import shapely
from shapely.geometry import MultiPolygon, Polygon, shape
from shapely.geometry.base import BaseGeometry
from shapely.validation import explain_validity

from gis.arrays import GeometryArray

GEOMETRY_TYPES = (
    "Point",
    "MultiPoint",
    "LineString",
    "MultiLineString",
    "Polygon",
    "MultiPolygon",
)


class GeometryError(ValueError):
    """A geometry that cannot be stored; ``reason`` is a stable code, str() the message."""

    def __init__(self, reason: str, message: str):
        super().__init__(message)
        self.reason = reason


#: How deep each type's coordinates nest (RFC 7946 §3.1), and what a person should send.
_NESTING: dict[str, tuple[int, str]] = {
    "Point": (1, "a position [lon, lat]"),
    "MultiPoint": (2, "an array of positions"),
    "LineString": (2, "an array of positions"),
    "MultiLineString": (3, "an array of lines, each an array of positions"),
    "Polygon": (3, "an array of rings, each an array of positions"),
    "MultiPolygon": (4, "an array of polygons, each an array of rings of positions"),
}


def _nested_as(coords: object, depth: int) -> bool:
    """Whether ``coords`` is arrays nested exactly ``depth`` deep (a position is depth 1)."""
    if not isinstance(coords, (list, tuple)):
        return False
    if depth == 1:
        return not any(isinstance(item, (list, tuple)) for item in coords)
    return all(_nested_as(item, depth - 1) for item in coords)


def _check_nesting(gtype: str, coords: object) -> None:
    """Refuse coordinates nested for another type: shapely would fail on them with a TypeError."""
    depth, expected = _NESTING[gtype]
    if not _nested_as(coords, depth):
        raise GeometryError("malformed", f"{gtype} coordinates must be {expected}")


def _positions(coords: object) -> Iterator[Sequence[object]]:
    """Every position in a nested coordinates array (depth depends on the type)."""
    if isinstance(coords, (list, tuple)) and coords and isinstance(coords[0], (int, float)):
        yield coords
        return
    if not isinstance(coords, (list, tuple)):
        raise GeometryError("malformed", "coordinates must be nested arrays of numbers")
    for item in coords:
        yield from _positions(item)


def _check_positions(coords: object) -> None:
    looks_projected = False
    count = 0
    for pos in _positions(coords):
        count += 1
        if len(pos) < 2 or len(pos) > 3:
            raise GeometryError("malformed", f"a position has {len(pos)} numbers; expected 2 (lon, lat)")
        numbers: list[float] = []
        for value in pos:
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise GeometryError("malformed", f"coordinate {value!r} is not a number")
            if not math.isfinite(value):
                raise GeometryError("not_finite", "coordinates must be finite numbers (no NaN or infinity)")
            numbers.append(value)
        lon, lat = numbers[0], numbers[1]
        if abs(lon) > 1000 or abs(lat) > 1000:
            looks_projected = True
        elif not (-180 <= lon <= 180 and -90 <= lat <= 90):
            raise GeometryError(
                "out_of_range",
                f"position ({lon}, {lat}) is outside longitude -180..180 / latitude -90..90",
            )
    if looks_projected:
        raise GeometryError(
            "projected_coordinates",
            "coordinates look projected (metres or feet), not longitude/latitude: "
            "send WGS 84 lon/lat as RFC 7946 requires",
        )
    if count == 0:
        raise GeometryError("empty", "geometry has no coordinates")


def _check_rings_closed(gtype: str, coords: Any) -> None:
    """``coords`` is decoded JSON that :func:`_check_positions` found to be nested arrays."""
    polygons = [coords] if gtype == "Polygon" else coords if gtype == "MultiPolygon" else []
    for polygon in polygons:
        for ring in polygon:
            if len(ring) < 4:
                raise GeometryError("unclosed_ring", "a polygon ring needs at least 4 positions")
            if list(ring[0][:2]) != list(ring[-1][:2]):
                raise GeometryError(
                    "unclosed_ring", "a polygon ring is not closed: its first and last positions differ"
                )


def parse_geometry(obj: object, allowed: Sequence[str]) -> BaseGeometry:
    """Parse a GeoJSON geometry object into a valid 2-D shapely geometry.

    Args:
        obj: the decoded ``geometry`` member.
        allowed: GeoJSON types this layer accepts, e.g. ``("Polygon", "MultiPolygon")``.

    Raises:
        GeometryError: with a reason code: malformed, wrong_type, not_finite,
            out_of_range, projected_coordinates, unclosed_ring, invalid, empty.
    """
    if not isinstance(obj, dict) or "type" not in obj:
        raise GeometryError("malformed", "geometry must be a GeoJSON object with a type")
    gtype = obj["type"]
    if gtype not in GEOMETRY_TYPES:
        raise GeometryError("malformed", f"unknown geometry type {gtype!r}")
    if gtype not in allowed:
        raise GeometryError(
            "wrong_type", f"this layer takes {' or '.join(allowed)} geometry, not {gtype}"
        )
    coords = obj.get("coordinates")
    if coords is None:
        raise GeometryError("malformed", "geometry has no coordinates member")
    _check_nesting(gtype, coords)
    _check_positions(coords)
    _check_rings_closed(gtype, coords)
    try:
        geom = shape(obj)
    except (ValueError, TypeError, IndexError, shapely.errors.GEOSException) as exc:
        raise GeometryError("malformed", f"geometry cannot be read: {exc}") from None
    if geom.is_empty:
        raise GeometryError("empty", "geometry is empty")
    geom = shapely.force_2d(geom)
    if not geom.is_valid:
        raise GeometryError("invalid", f"geometry is not valid: {explain_validity(geom)}")
    if gtype in ("LineString", "MultiLineString") and geom.length == 0:
        raise GeometryError("invalid", "line has zero length")
    return geom


def normalise(geom: BaseGeometry, stored_type: str) -> BaseGeometry:
    """Shape a parsed geometry for storage: polygons promoted to multi, rings CCW."""
    if stored_type == "MULTIPOLYGON" and isinstance(geom, Polygon):
        geom = MultiPolygon([geom])
    if isinstance(geom, (Polygon, MultiPolygon)):
        # RFC 7946 §3.1.6: exterior rings counter-clockwise, holes clockwise.
        geom = shapely.orient_polygons(geom, exterior_cw=False)
    return geom


def to_geojson_texts(geoms: Sequence[BaseGeometry] | GeometryArray) -> list[str]:
    """GeoJSON text of many shapely geometries at once (vectorised in GEOS)."""
    return list(shapely.to_geojson(geoms))


def to_geojson_dict(geom: BaseGeometry) -> dict[str, Any]:
    decoded: dict[str, Any] = json.loads(shapely.to_geojson(geom))
    return decoded
