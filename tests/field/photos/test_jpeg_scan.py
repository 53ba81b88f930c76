"""The marker scan that finds a JPEG's end, at the edges of its reads."""

from __future__ import annotations

import io

import pytest

from server.field.photos import jpeg


def _entropy(length: int, marker_at: int, marker: bytes = b"\xff\xd9") -> bytes:
    """Entropy-coded-looking bytes: stuffed 0xFF 0x00 pairs, a marker at ``marker_at``."""
    body = bytearray(b"\x12\xff\x00" * (length // 3 + 1))[:length]
    if body[-1] == 0xFF:
        body[-1] = 0x12
    body[marker_at:marker_at + 2] = marker
    return bytes(body)


@pytest.mark.parametrize("offset", [0, 1, 2, jpeg._READ - 2, jpeg._READ - 1, jpeg._READ, jpeg._READ + 1,
                                    2 * jpeg._READ - 1, 2 * jpeg._READ + 5])
def test_the_marker_is_found_wherever_the_reads_split_it(offset):
    data = _entropy(2 * jpeg._READ + 64, offset)
    start = 7  # the scan begins mid-file, where the scan header ended
    stream = io.BytesIO(b"\x00" * start + data)
    stream.seek(start)
    assert jpeg._next_marker(stream) == start + data.index(b"\xff\xd9")


def test_stuffing_and_restart_markers_do_not_end_the_scan():
    data = b"\x01\xff\x00\x02\xff\xd0\x03\xff\xd7\x04"  # stuffed byte, RST0, RST7
    assert jpeg._next_marker(io.BytesIO(data)) is None
    assert jpeg._next_marker(io.BytesIO(data + b"\xff\xd9")) == len(data)


def _photo(tmp_path, trailer: bytes = b""):
    from PIL import Image

    path = tmp_path / "p.jpg"
    Image.new("RGB", (64, 48), (200, 30, 30)).save(path, "JPEG", quality=90)
    path.write_bytes(path.read_bytes() + trailer)
    return path


def test_a_photo_ending_in_eoi_is_whole_without_reading_its_scan(tmp_path, monkeypatch):
    def unread(f):
        raise AssertionError("the entropy-coded data was scanned")

    monkeypatch.setattr(jpeg, "_next_marker", unread)
    assert jpeg.jpeg_is_complete(_photo(tmp_path))


def test_a_photo_with_a_trailer_is_walked_to_its_eoi(tmp_path, monkeypatch):
    scanned = []
    real = jpeg._next_marker
    monkeypatch.setattr(jpeg, "_next_marker", lambda f: scanned.append(1) or real(f))
    path = _photo(tmp_path, trailer=b"VENDOR-TRAILER\x00\x01")
    assert jpeg.jpeg_is_complete(path) and scanned
    data = path.read_bytes()
    cut = tmp_path / "cut.jpg"
    for end in (len(data) // 3, len(data) // 2, len(data) - 20):  # inside the scan, or at its EOI
        cut.write_bytes(data[:end])
        assert not jpeg.jpeg_is_complete(cut)
