"""Made-up letters for previews, the docs and the benchmark (fictional owners).

Parcels are small rectangles in Arcadia, WI (about 44.25 N, 91.50 W); photos are
generated images, since real inspection photos carry owners' property.
"""

from __future__ import annotations

from datetime import date, timedelta
from pathlib import Path

from PIL import Image, ImageDraw
from shapely.geometry import LineString, Point, box

from gis.rulebook import Rulebook
from server.notices.article_numbers import build_article_number
from server.notices.calendar import deadline_for
from server.notices.kinds import KINDS, notice_kind
from server.notices.letters.documents import (
    NOTICE_KINDS,
    Addressee,
    DeadlineText,
    Finding,
    MapFeature,
    Municipality,
    NoticeLetter,
)

LON0, LAT0 = -91.5010, 44.2480
LOT_DEG_X, LOT_DEG_Y = 0.00040, 0.00030  # about 105 x 110 ft

def sample_photos(folder: Path, n: int = 2) -> list[Path]:
    """Write ``n`` generated 1200 x 900 JPEG "photos" into ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(n):
        path = folder / f"photo_{i + 1}.jpg"
        if not path.exists():
            im = Image.new("RGB", (1200, 900), (120 + 40 * i, 110, 95))
            d = ImageDraw.Draw(im)
            for k in range(0, 900, 60):
                d.line([(0, k), (1200, k + 200)], fill=(90, 80 + 20 * i, 70), width=14)
            d.ellipse([450, 300, 750, 600], outline=(240, 240, 240), width=18)
            im.save(path, "JPEG", quality=85)
        paths.append(path)
    return paths


def sample_letter(
    i: int = 0,
    kind: str | None = None,
    photos: tuple[Path, ...] = (),
    *,
    rulebook: Rulebook,
    mailed: date = date(2026, 9, 21),
) -> NoticeLetter:
    """The i-th made-up letter; kinds rotate through :data:`NOTICE_KINDS`."""
    kind = kind or NOTICE_KINDS[i % len(NOTICE_KINDS)]
    col, row = i % 40, (i // 40) % 40
    x0, y0 = LON0 + col * LOT_DEG_X * 1.1, LAT0 + row * LOT_DEG_Y * 1.3
    parcel = box(x0, y0, x0 + LOT_DEG_X, y0 + LOT_DEG_Y)
    house = box(x0 + LOT_DEG_X * 0.25, y0 + LOT_DEG_Y * 0.35, x0 + LOT_DEG_X * 0.7, y0 + LOT_DEG_Y * 0.75)
    street_y = y0 - LOT_DEG_Y * 0.15
    nearby = (
        MapFeature(box(x0 - LOT_DEG_X * 1.1, y0, x0 - LOT_DEG_X * 0.1, y0 + LOT_DEG_Y), "parcel"),
        MapFeature(box(x0 + LOT_DEG_X * 1.1, y0, x0 + LOT_DEG_X * 2.1, y0 + LOT_DEG_Y), "parcel"),
        MapFeature(house, "building"),
        MapFeature(LineString([(x0 - LOT_DEG_X, street_y), (x0 + 2 * LOT_DEG_X, street_y)]), "main"),
        MapFeature(LineString([(x0 + LOT_DEG_X * 0.45, y0 + LOT_DEG_Y * 0.35),
                               (x0 + LOT_DEG_X * 0.45, street_y)]), "lateral"),
        MapFeature(Point(x0 + LOT_DEG_X * 1.05, street_y), "manhole"),
    )
    served = date.fromordinal(mailed.toordinal() + 3)
    visited = mailed - timedelta(days=19)
    basis = f"an inspection of the property on {visited:%B} {visited.day}, {visited.year} by Sam Sample"
    deadline = deadline_for(notice_kind(kind).deadline_rule, served, rulebook)
    number = 100 + 2 * i
    return NoticeLetter(
        municipality=Municipality.from_rulebook(rulebook),
        kind=kind,
        addressee=Addressee(
            names=(f"JORDAN Q SAMPLE {i}", "ALEX R SAMPLE") if i % 3 == 0 else (f"PAT L EXAMPLE {i}",),
            street_lines=(f"{number} N SAMPLE ST",),
            city="ARCADIA", state="WI", zip_code="54612-1328",
        ),
        parcel_number=f"201-00{i % 10}-{1000 + i:05d}",
        site_address=f"{number} N Sample St, Arcadia",
        findings=tuple(Finding(text, section, basis) for text, section in KINDS[kind].sample),
        deadline=DeadlineText.of(deadline),
        article_number=build_article_number(i + 1, rulebook.section("mail")),
        mailed=mailed,
        parcel_geometry=parcel,
        nearby=nearby,
        photos=tuple(photos),
    )
