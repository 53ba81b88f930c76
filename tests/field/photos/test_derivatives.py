"""make_derivatives: upright, bounded JPEGs from every accepted real photo."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from server.field.photos import DISPLAY_MAX_PX, THUMBNAIL_MAX_PX, inspect_photo, make_derivatives
from tests.support.photos import ROWS, photo

pytestmark = pytest.mark.realdata

REJECTED = {"et__QuickTime.heic"}


def _open(data: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    image.load()
    return image


@pytest.mark.parametrize("name", [row["file"] for row in ROWS if row["file"] not in REJECTED])
def test_derivatives_are_bounded_upright_jpegs(name):
    photo_path = photo(name)
    info = inspect_photo(photo_path)
    display_bytes, thumb_bytes = make_derivatives(photo_path)
    display, thumb = _open(display_bytes), _open(thumb_bytes)
    assert (display.format, thumb.format) == ("JPEG", "JPEG")
    assert max(display.size) == min(DISPLAY_MAX_PX, max(info.width, info.height))
    assert max(thumb.size) == min(THUMBNAIL_MAX_PX, max(info.width, info.height))
    # Upright: same aspect as the oriented size.
    assert (display.width >= display.height) == (info.width >= info.height)


def test_derivatives_carry_no_exif():
    display, _ = make_derivatives(photo("et__GoPro.jpg"))
    assert not _open(display).getexif()


@pytest.mark.parametrize(
    "name", ["es__jpg_orientation_portrait_6.jpg", "ep__Xiaomi_Mi_9T_KeyError.jpg"]
)
def test_orientation_6_display_is_portrait(name):
    display, _ = make_derivatives(photo(name))
    width, height = _open(display).size
    assert height > width


def test_orientation_is_applied_to_pixels(tmp_path):
    # Stored as a 40×20 image, left half black, tagged "rotate 90° CW to view".
    raw = Image.new("RGB", (40, 20), "white")
    raw.paste((0, 0, 0), (0, 0, 20, 20))
    exif = Image.Exif()
    exif[0x0112] = 6
    path = tmp_path / "o6.jpg"
    raw.save(path, exif=exif, quality=95)
    display = _open(make_derivatives(path)[0])
    assert display.size == (20, 40)
    assert display.getpixel((10, 5))[0] < 60  # the black half is now on top
    assert display.getpixel((10, 35))[0] > 200


def test_transparent_png_gets_a_white_background(tmp_path):
    path = tmp_path / "clear.png"
    Image.new("RGBA", (10, 10), (0, 0, 0, 0)).save(path)
    display = _open(make_derivatives(path)[0])
    assert display.getpixel((5, 5))[0] > 240
