"""The letter's parcel map names the street the owner's address is on, where it fits (issue 34)."""

from __future__ import annotations

import io

from pypdf import PdfReader
from reportlab.pdfgen.canvas import Canvas
from shapely.geometry import LineString, box

from server.notices.letters.documents import MapFeature
from server.notices.letters.parcel_map import draw_parcel_map

# A 20 m x 40 m lot north of its street (about 1.8e-4 degrees of latitude a 20 m).
LOT = box(-91.5012, 44.2531, -91.5010, 44.2535)
STREET = LineString([(-91.5040, 44.25301), (-91.4980, 44.25301)])


def _drawn(nearby, w: float = 180, h: float = 140) -> str:
    out = io.BytesIO()
    c = Canvas(out)
    draw_parcel_map(c, LOT, nearby, 50, 50, w, h)
    c.save()
    return PdfReader(io.BytesIO(out.getvalue())).pages[0].extract_text()


def test_the_street_in_view_is_named():
    assert "W Main St" in _drawn([MapFeature(STREET, "street", "W Main St")])


def test_a_name_that_does_not_fit_is_left_out():
    # A frame too small for the name along the street's piece in view.
    assert "W Main St" not in _drawn([MapFeature(STREET, "street", "W Main St")], w=20, h=60)


def test_a_street_without_a_name_writes_none():
    assert "Main" not in _drawn([MapFeature(STREET, "street")])
