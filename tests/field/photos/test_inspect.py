"""inspect_photo against what the inventory records for every real photo."""

from __future__ import annotations

import math

import pytest

from server.field.photos import inspect_photo
from tests.support.photos import ROWS, photo

pytestmark = pytest.mark.realdata


def _expected_size(row: dict) -> tuple[int, int]:
    # The inventory records stored pixels; PhotoInfo reports them upright.
    width, height = int(row["width"]), int(row["height"])
    if row["orientation"] in {"5", "6", "7", "8"}:
        return height, width
    return width, height


def test_format_is_read_from_content(photo_row, photo_path):
    assert inspect_photo(photo_path).format == photo_row["format"]


def test_size_is_upright(photo_row, photo_path):
    info = inspect_photo(photo_path)
    assert (info.width, info.height) == _expected_size(photo_row)


def test_orientation(photo_row, photo_path):
    expected = int(photo_row["orientation"]) if photo_row["orientation"] else None
    assert inspect_photo(photo_path).orientation == expected


def test_gps_position(photo_row, photo_path):
    info = inspect_photo(photo_path)
    if photo_row["has_gps"] != "True":
        assert (info.lat, info.lon, info.alt) == (None, None, None)
        assert not info.has_gps
        return
    assert info.lat == pytest.approx(float(photo_row["lat"]), abs=1e-4)
    assert info.lon == pytest.approx(float(photo_row["lon"]), abs=1e-4)


def test_altitude(photo_row, photo_path):
    info = inspect_photo(photo_path)
    if photo_row["has_gps"] == "True" and photo_row["alt_m"]:
        assert info.alt == pytest.approx(float(photo_row["alt_m"]), abs=0.01)
    else:
        assert info.alt is None


def test_no_nan_anywhere(photo_path):
    info = inspect_photo(photo_path)
    for value in (info.lat, info.lon, info.alt):
        assert value is None or math.isfinite(value)


def test_make_and_model(photo_row, photo_path):
    info = inspect_photo(photo_path)
    assert info.make == (photo_row["make"] or None)
    assert info.model == (photo_row["model"] or None)


@pytest.mark.parametrize("name", [row["file"] for row in ROWS if row["exif_datetime"]])
def test_capture_time_read_when_exif_has_a_date(name):
    # The inventory lists IFD0 DateTime; captured_at prefers DateTimeOriginal.
    assert inspect_photo(photo(name)).captured_at is not None


def test_ricoh_longitude_sign_comes_from_ref():
    info = inspect_photo(photo("et__Ricoh2.jpg"))
    assert info.lon < 0
    assert info.lon == pytest.approx(-0.5075028, abs=1e-6)


def test_gopro_altitude_below_sea_level():
    assert inspect_photo(photo("et__GoPro.jpg")).alt == pytest.approx(-3.983)


def test_infiray_nan_rationals_give_no_gps_and_a_warning():
    info = inspect_photo(photo("et__InfiRay.jpg"))
    assert not info.has_gps
    assert any("GPS" in w for w in info.warnings)


def test_kodak_decimal_minutes_in_southern_hemisphere():
    info = inspect_photo(photo("es__jpg_Kodak_CX7530.jpg"))
    assert info.lat == pytest.approx(-0.3713, abs=1e-4)


def test_heic_named_jpg_is_heif():
    assert inspect_photo(photo("ep__heic_hdlr_box.jpg")).format == "HEIF"


def test_capture_time_prefers_date_time_original():
    # DSCN0010: DateTimeOriginal 2008-10-22 16:28:39; DateTime (edit) 2008-11-01.
    info = inspect_photo(photo("es__jpg_gps_DSCN0010.jpg"))
    assert info.captured_at.isoformat() == "2008-10-22T16:28:39"
