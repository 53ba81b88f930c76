"""The display image and thumbnail made from an accepted photo."""

from __future__ import annotations

import io
import tempfile
from os import PathLike
from pathlib import Path

from PIL import Image, ImageOps

from server.field.photos.inspect import open_image
from server.field.photos.isolated import DEFAULT_MEMORY_LIMIT_MIB, decode_route, run_child

DISPLAY_MAX_PX = 2048
THUMBNAIL_MAX_PX = 256
JPEG_QUALITY = 85
# Modes resized with LANCZOS as they are; others (palette, 16-bit) become RGB first.
_RESIZABLE_MODES = frozenset({"L", "LA", "RGB", "RGBA", "CMYK"})


def _to_jpeg(image: Image.Image) -> bytes:
    out = io.BytesIO()
    # No exif= argument: derivatives carry no metadata (the position stays in
    # the database, not in every copy handed out).
    image.save(out, "JPEG", quality=JPEG_QUALITY, optimize=True)
    return out.getvalue()


def _as_rgb(image: Image.Image) -> Image.Image:
    if image.mode in ("RGB", "L"):
        return image
    if image.mode in ("RGBA", "LA", "PA") or "transparency" in image.info:
        rgba = image.convert("RGBA")
        background = Image.new("RGB", rgba.size, "white")
        background.paste(rgba, mask=rgba.getchannel("A"))
        return background
    return image.convert("RGB")


def _draft_request(size: tuple[int, int]) -> tuple[int, int]:
    """The display size with the photo's own aspect, for ``Image.draft``.

    ``draft`` picks the smallest DCT scale (1/2, 1/4, 1/8) that keeps *both* sides at
    least as large as requested; asking for a 2048 × 2048 box would keep a 5184 × 3888
    photo at full scale (3888 < 2 × 2048). Asking for 2048 × 1536 lets it decode at 1/2
    (2592 × 1944): a quarter of the pixels in memory, and the longest side still
    reaches 2048.
    """
    width, height = size
    longest = max(width, height)
    if longest <= DISPLAY_MAX_PX:
        return width, height
    return (max(1, -(-width * DISPLAY_MAX_PX // longest)), max(1, -(-height * DISPLAY_MAX_PX // longest)))


def make_derivatives(path: str | PathLike, *,
                     memory_limit_mib: int = DEFAULT_MEMORY_LIMIT_MIB) -> tuple[bytes, bytes]:
    """Make the display JPEG (≤ 2048 px longest side) and thumbnail JPEG (≤ 256 px).

    EXIF orientation is applied, so the pixels stand the right way up without
    metadata. JPEGs are decoded with ``draft`` at the smallest DCT scale that
    still covers the display size, to keep memory low on big photos; other formats
    above :data:`~server.field.photos.isolated.IN_PROCESS_MAX_PIXELS` are decoded in a child
    process limited to ``memory_limit_mib`` of address space (:mod:`server.field.photos.isolated`),
    so the caller's memory does not follow the pixel count. Call :func:`validate_photo`
    first; this function assumes a decodable image.

    Returns:
        ``(display_jpeg_bytes, thumbnail_jpeg_bytes)``.

    Raises:
        PhotoDecodeFailed: the child ran out of memory, crashed or overran its time.
    """
    with open_image(path) as image:
        route = decode_route(image.format, image.size)
    if route != "child":
        return derive_here(path)
    with tempfile.TemporaryDirectory(prefix="lateral-derive-") as out:
        run_child("derive", path, out, memory_limit_mib=memory_limit_mib)
        return (Path(out) / "display.jpg").read_bytes(), (Path(out) / "thumbnail.jpg").read_bytes()


def derive_here(path: str | PathLike) -> tuple[bytes, bytes]:
    """:func:`make_derivatives` in this process, whatever the photo's size."""
    with open_image(path) as image:
        if image.format == "JPEG":
            image.draft("RGB", _draft_request(image.size))
        if image.mode not in _RESIZABLE_MODES:
            image = _as_rgb(image)
        # Shrink first, in place: the full-size pixels are let go before the turn
        # upright and the RGB conversion copy anything (a square box, so the turn
        # after it gives the same size). Pillow reduces by whole factors before it
        # resamples, so the peak is one decode of the photo, bounded by the pixel
        # limit (validate_photo), and a JPEG's is a half or a quarter of it.
        image.thumbnail((DISPLAY_MAX_PX, DISPLAY_MAX_PX), Image.Resampling.LANCZOS)
        upright = ImageOps.exif_transpose(image)
        display = _as_rgb(upright)
        thumbnail = display.copy()
        thumbnail.thumbnail((THUMBNAIL_MAX_PX, THUMBNAIL_MAX_PX), Image.Resampling.LANCZOS)
        return _to_jpeg(display), _to_jpeg(thumbnail)
