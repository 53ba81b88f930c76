"""The pure checks of a CCTV report: the NASSCO codes' data file, one observation's ranges,
and what a video file is by its bytes."""

from __future__ import annotations

from decimal import Decimal

import pytest

from server.portal import lacp, video
from tests.support.cctv import mp4_bytes, webm_bytes


def test_the_codes_file_holds_each_family():
    families = {c.family for c in lacp.codes().values()}
    assert families == set(lacp.FAMILIES)
    assert {"FL", "FC", "FM", "B", "H", "D", "RFB", "RBL", "RMJ", "DAE", "OBR", "TB", "TF"} <= set(lacp.codes())


def test_a_good_observation_is_read_to_its_types():
    o = lacp.check({"code": " fm ", "distance_ft": "23.5", "clock": "12", "grade": "4", "seconds": "61.5"})
    assert o == lacp.Observation("FM", Decimal("23.5"), 12, 4, Decimal("61.5"), None)


@pytest.mark.parametrize(("raw", "field"), [
    ({"code": "XYZ"}, "code"),
    ({"distance_ft": "NaN"}, "distance_ft"),
    ({"distance_ft": "1e9"}, "distance_ft"),
    ({"clock": "١٢"}, "clock"),
    ({"grade": "0"}, "grade"),
    ({"seconds": "-1"}, "seconds"),
    ({"remark": "x" * 501}, "remark"),
])
def test_a_value_out_of_its_range_names_its_field(raw, field):
    good = {"code": "FM", "distance_ft": "23.5", "clock": "12", "grade": "4"}
    with pytest.raises(lacp.BadObservation) as refused:
        lacp.check({**good, **raw})
    assert refused.value.field == field


@pytest.mark.parametrize(("data", "kind"), [(mp4_bytes(), video.MP4), (mp4_bytes(b"qt  "), video.QUICKTIME),
                                            (webm_bytes(), video.WEBM)])
def test_a_video_is_known_by_its_bytes(tmp_path, data, kind):
    path = tmp_path / "any.name"
    path.write_bytes(data)
    assert video.media_type(path) == kind


@pytest.mark.parametrize("data", [
    b"",                                                     # empty
    b"\x89PNG\r\n\x1a\n" + bytes(100),                       # a photo
    mp4_bytes()[:-1],                                        # a box cut short
    mp4_bytes()[:32] + b"\x00\x00\x00\x08junk",              # a box of no known kind
    b"\x00\x00\x00\x18ftypisom" + bytes(16),                 # no movie header
    b"\x1a\x45\xdf\xa3\x88\x42\x82\x88matroska" + bytes(50),  # Matroska, not WebM
])
def test_anything_else_is_not_a_video(tmp_path, data):
    path = tmp_path / "lateral.mp4"
    path.write_bytes(data)
    with pytest.raises(video.NotAVideo):
        video.media_type(path)
