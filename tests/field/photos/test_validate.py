"""validate_photo: the accept/reject outcome for every real photo, and synthetic traps."""

from __future__ import annotations

import struct
import zlib

import pytest
from PIL import Image

from server.field.photos import PhotoRejected, validate_photo

REJECTED = {"et__QuickTime.heic": "truncated"}


@pytest.mark.realdata
def test_real_photo_outcome(photo_row, photo_path):
    expected = REJECTED.get(photo_row["file"])
    if expected is None:
        validate_photo(photo_path)
    else:
        with pytest.raises(PhotoRejected) as info:
            validate_photo(photo_path)
        assert info.value.code == expected


def _png_declaring(width: int, height: int) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)  # 8-bit greyscale
    idat = zlib.compress(b"\x00" * 64)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")


def _code(path, **kwargs) -> str:
    with pytest.raises(PhotoRejected) as info:
        validate_photo(path, **kwargs)
    return info.value.code


def test_text_file_is_not_an_image(tmp_path):
    path = tmp_path / "notes.jpg"
    path.write_text("manhole 12 inspected, no defects\n")
    assert _code(path) == "not_an_image"


@pytest.mark.parametrize("side", [12_000, 40_000], ids=["over-our-limit", "over-pillow-limit"])
def test_tiny_png_declaring_huge_dimensions_is_a_bomb(tmp_path, side):
    path = tmp_path / "bomb.png"
    path.write_bytes(_png_declaring(side, side))
    assert path.stat().st_size < 1000
    assert _code(path) == "decompression_bomb"


def test_pixel_limit_is_a_parameter(tmp_path):
    path = tmp_path / "small.png"
    Image.new("RGB", (100, 100)).save(path)
    assert _code(path, max_pixels=9_999) == "decompression_bomb"


def test_over_size_limit_is_too_large(tmp_path):
    path = tmp_path / "photo.jpg"
    Image.new("RGB", (64, 64), "grey").save(path)
    assert _code(path, max_bytes=path.stat().st_size - 1) == "too_large"


def test_truncated_jpeg(tmp_path):
    path = tmp_path / "cut.jpg"
    Image.effect_noise((256, 256), 64).convert("RGB").save(path, quality=95)
    path.write_bytes(path.read_bytes()[:4000])
    assert _code(path) == "truncated"


def test_gif_is_unsupported_format(tmp_path):
    path = tmp_path / "anim.gif"
    Image.new("P", (16, 16)).save(path)
    assert _code(path) == "unsupported_format"


def test_rejection_carries_a_safe_message(tmp_path):
    path = tmp_path / "empty.jpg"
    path.write_bytes(b"")
    with pytest.raises(PhotoRejected) as info:
        validate_photo(path)
    assert info.value.message
    assert str(tmp_path) not in info.value.message


@pytest.mark.realdata
def test_real_jpeg_cut_short_is_truncated(photo_row, photo_path, tmp_path):
    # JPEGs are checked by their marker structure, not decoded: every real JPEG
    # cut at a third, half and nine tenths of its length must still be refused.
    if photo_row["format"] != "JPEG" or photo_row["file"] in REJECTED:
        pytest.skip("not a whole JPEG")
    data = photo_path.read_bytes()
    for cut in (len(data) // 3, len(data) // 2, len(data) * 9 // 10):
        path = tmp_path / f"cut{cut}.jpg"
        path.write_bytes(data[:cut])
        assert _code(path) == "truncated", cut


def test_progressive_jpeg_cut_short_is_truncated(tmp_path):
    path = tmp_path / "progressive.jpg"
    Image.effect_noise((256, 256), 64).convert("RGB").save(path, quality=90, progressive=True)
    validate_photo(path)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) * 2 // 3])
    assert _code(path) == "truncated"


def test_jpeg_with_data_after_eoi_is_accepted(tmp_path):
    path = tmp_path / "trailer.jpg"
    Image.effect_noise((64, 64), 64).convert("RGB").save(path, quality=90)
    path.write_bytes(path.read_bytes() + b"vendor trailer \xff\x00\xff")
    assert validate_photo(path) is None  # accepted: PhotoRejected would be raised


def test_the_default_limit_is_50_megapixels(tmp_path):
    """What a tablet camera makes (12-48 MP) passes; a 10,000 × 10,000 px image does not."""
    fits, over = tmp_path / "fits.png", tmp_path / "over.png"
    fits.write_bytes(_png_declaring(8_000, 6_000))  # 48 MP: passes the header check
    over.write_bytes(_png_declaring(10_000, 10_000))

    assert _code(over) == "decompression_bomb"
    assert _code(fits) == "truncated"  # its 64 bytes of pixels are cut short, not too many
