"""A small parcel map drawn straight onto the letter's canvas (no tile server).

Geometries are lon/lat (EPSG:4326). Over a few hundred feet an equirectangular
projection about the parcel's centre is exact to well under a pixel, so the map
needs no projection library.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from reportlab.pdfgen.canvas import Canvas
from shapely.geometry import MultiLineString, MultiPoint, MultiPolygon, Point, Polygon
from shapely.geometry.base import BaseGeometry

from server.notices.letters.documents import MapFeature

M_PER_DEG_LAT = 110_540.0
M_PER_DEG_LON_EQUATOR = 111_320.0
FT_PER_M = 3.280_84
SCALE_BAR_FT = (10, 20, 25, 50, 100, 200, 250, 500, 1000)

#: kind -> (stroke RGB, fill RGB or None, line width, dash)
STYLES: dict[str, tuple[tuple[float, float, float], tuple[float, float, float] | None, float, tuple]] = {
    "street": ((0.86, 0.86, 0.84), None, 7.0, ()),
    "subject": ((0.80, 0.10, 0.10), (1.0, 0.93, 0.90), 1.6, ()),
    "parcel": ((0.55, 0.55, 0.55), None, 0.5, ()),
    "building": ((0.35, 0.35, 0.35), (0.82, 0.82, 0.82), 0.6, ()),
    "main": ((0.10, 0.35, 0.75), None, 1.8, ()),
    "lateral": ((0.10, 0.55, 0.30), None, 1.0, (2, 1.5)),
    "manhole": ((0.10, 0.35, 0.75), (1, 1, 1), 0.8, ()),
    "finding": ((0.80, 0.10, 0.10), (0.80, 0.10, 0.10), 0.8, ()),
}
DEFAULT_STYLE = ((0.6, 0.6, 0.6), None, 0.5, ())


class _Projector:
    """lon/lat -> page points, fitted to a frame with the same scale on both axes."""

    def __init__(self, bounds: tuple[float, float, float, float], x: float, y: float, w: float, h: float):
        minx, miny, maxx, maxy = bounds
        self.lon0, self.lat0 = (minx + maxx) / 2, (miny + maxy) / 2
        self.kx = M_PER_DEG_LON_EQUATOR * math.cos(math.radians(self.lat0))
        width_m = max((maxx - minx) * self.kx, 1.0)
        height_m = max((maxy - miny) * M_PER_DEG_LAT, 1.0)
        self.pt_per_m = min(w / width_m, h / height_m)
        self.cx, self.cy = x + w / 2, y + h / 2

    def __call__(self, lon: float, lat: float) -> tuple[float, float]:
        return (
            self.cx + (lon - self.lon0) * self.kx * self.pt_per_m,
            self.cy + (lat - self.lat0) * M_PER_DEG_LAT * self.pt_per_m,
        )


def _parts(geom: BaseGeometry) -> Iterable[BaseGeometry]:
    if isinstance(geom, (MultiPolygon, MultiLineString, MultiPoint)) or geom.geom_type == "GeometryCollection":
        for g in geom.geoms:
            yield from _parts(g)
    else:
        yield geom


def _draw_geometry(c: Canvas, geom: BaseGeometry, proj: _Projector, style) -> None:
    stroke, fill, width, dash = style
    c.setStrokeColorRGB(*stroke)
    c.setLineWidth(width)
    c.setDash(*dash) if dash else c.setDash()
    if fill:
        c.setFillColorRGB(*fill)
    for part in _parts(geom):
        if isinstance(part, Point):
            x, y = proj(part.x, part.y)
            c.circle(x, y, 2.2, stroke=1, fill=1 if fill else 0)
            continue
        rings = [part.exterior, *part.interiors] if isinstance(part, Polygon) else [part]
        path = c.beginPath()
        for ring in rings:
            pts = [proj(x, y) for x, y in ring.coords]
            path.moveTo(*pts[0])
            for p in pts[1:]:
                path.lineTo(*p)
            if isinstance(part, Polygon):
                path.close()
        closed = isinstance(part, Polygon)
        c.drawPath(path, stroke=1, fill=1 if (fill and closed) else 0, fillMode=0)
    c.setDash()


LABEL_FONT = ("Helvetica", 6.5)


def draw_line_label(c: Canvas, geom: BaseGeometry, text: str, proj: _Projector,
                    frame: tuple[float, float, float, float]) -> bool:
    """Write ``text`` along the longest straight piece of a line, upright, where it fits.

    It fits when the piece, as drawn inside ``frame`` (x, y, w, h), is longer than the text
    with a little room either side; otherwise nothing is written and False is returned.
    """
    x0, y0, w, h = frame
    best = None
    for part in _parts(geom):
        coords = list(getattr(part, "coords", []))
        for (ax, ay), (bx, by) in zip(coords, coords[1:], strict=False):
            (px, py), (qx, qy) = proj(ax, ay), proj(bx, by)
            # Only the part of the piece inside the frame can carry the label.
            px, qx = min(max(px, x0), x0 + w), min(max(qx, x0), x0 + w)
            py, qy = min(max(py, y0), y0 + h), min(max(qy, y0), y0 + h)
            length = math.hypot(qx - px, qy - py)
            if best is None or length > best[0]:
                best = (length, px, py, qx, qy)
    width = c.stringWidth(text, *LABEL_FONT)
    if best is None or best[0] < width + 8:
        return False
    _, px, py, qx, qy = best
    angle = math.degrees(math.atan2(qy - py, qx - px))
    if angle > 90 or angle < -90:  # keep the text upright
        angle += 180
    c.saveState()
    c.translate((px + qx) / 2, (py + qy) / 2)
    c.rotate(angle)
    c.setFont(*LABEL_FONT)
    c.setFillColorRGB(0.2, 0.2, 0.2)
    c.drawCentredString(0, -2.2, text)
    c.restoreState()
    return True


def _scale_bar(c: Canvas, proj: _Projector, x: float, y: float, max_pt: float) -> None:
    pt_per_ft = proj.pt_per_m / FT_PER_M
    feet = max((f for f in SCALE_BAR_FT if f * pt_per_ft <= max_pt), default=SCALE_BAR_FT[0])
    length = feet * pt_per_ft
    c.setStrokeColorRGB(0, 0, 0)
    c.setFillColorRGB(0, 0, 0)
    c.setLineWidth(0.8)
    c.line(x, y, x + length, y)
    c.line(x, y - 2, x, y + 2)
    c.line(x + length, y - 2, x + length, y + 2)
    c.setFont("Helvetica", 6)
    c.drawString(x + length + 3, y - 2, f"{feet} ft")


def _north_arrow(c: Canvas, x: float, y: float) -> None:
    c.setFillColorRGB(0, 0, 0)
    path = c.beginPath()
    path.moveTo(x, y + 10)
    path.lineTo(x - 3.5, y)
    path.lineTo(x + 3.5, y)
    path.close()
    c.drawPath(path, stroke=0, fill=1)
    c.setFont("Helvetica-Bold", 6)
    c.drawCentredString(x, y - 7, "N")


def draw_parcel_map(
    c: Canvas,
    parcel: BaseGeometry,
    nearby: Iterable[MapFeature],
    x: float, y: float, w: float, h: float,
    margin: float = 0.35,
) -> None:
    """Draw the parcel (outlined in red) and nearby features in the frame (x, y, w, h).

    Args:
        margin: share of the parcel's size shown around it on each side.
    """
    minx, miny, maxx, maxy = parcel.bounds
    dx, dy = (maxx - minx) * margin or 1e-4, (maxy - miny) * margin or 1e-4
    view = (minx - dx, miny - dy, maxx + dx, maxy + dy)
    proj = _Projector(view, x + 2, y + 2, w - 4, h - 4)
    c.saveState()
    c.setFillColorRGB(0.98, 0.98, 0.96)
    c.setStrokeColorRGB(0.4, 0.4, 0.4)
    c.setLineWidth(0.5)
    c.rect(x, y, w, h, stroke=1, fill=1)
    clip = c.beginPath()
    clip.rect(x, y, w, h)
    c.clipPath(clip, stroke=0, fill=0)
    view_box = Polygon.from_bounds(*view)
    order = {"street": -1, "parcel": 0, "subject": 1, "building": 2, "main": 3, "lateral": 4, "manhole": 5,
             "finding": 6}
    features = [MapFeature(parcel, "subject"), *nearby]
    shown = [f for f in features if f.kind == "subject" or f.geometry.intersects(view_box)]
    for f in sorted(shown, key=lambda f: order.get(f.kind, 0)):
        _draw_geometry(c, f.geometry, proj, STYLES.get(f.kind, DEFAULT_STYLE))
    # Names last, over everything, so the owner can find the street their letter names.
    for f in shown:
        if f.label:
            draw_line_label(c, f.geometry, f.label, proj, (x, y, w, h))
    c.restoreState()
    _scale_bar(c, proj, x + 5, y + 6, w / 3)
    _north_arrow(c, x + w - 9, y + h - 14)

