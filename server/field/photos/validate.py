"""Whether a photo is fit to keep as evidence, cheaply enough to run inside the upload request."""

from __future__ import annotations

import os
import threading
from os import PathLike

from PIL import Image

from server.field.photos.errors import PhotoDecodeFailed, PhotoRejected
from server.field.photos.inspect import open_image
from server.field.photos.isolated import DEFAULT_MEMORY_LIMIT_MIB, decode_route, run_child
from server.field.photos.jpeg import jpeg_is_complete

DEFAULT_MAX_BYTES = 50 * 1024 * 1024
DEFAULT_MAX_PIXELS = 50_000_000  # a tablet camera makes 12-48 MP
SUPPORTED_FORMATS = frozenset({"JPEG", "HEIF", "TIFF", "PNG", "WEBP"})
_ONE_FULL_DECODE = threading.Lock()


def validate_photo(
    path: str | PathLike,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_pixels: int = DEFAULT_MAX_PIXELS,
    *,
    memory_limit_mib: int = DEFAULT_MEMORY_LIMIT_MIB,
) -> None:
    """Accept the photo or raise why not.

    Checks run cheapest first: file size, then the header (format, declared
    pixels), then completeness. A JPEG (the bulk of field photos) is checked by
    walking its marker structure to EOI (:func:`jpeg_is_complete`, no pixel
    decode: ~5 ms for 4 MB); other formats are decoded in full, the only way
    their libraries report a file cut short: in this process up to
    :data:`~server.field.photos.isolated.IN_PROCESS_MAX_PIXELS`, above it in a child process
    limited to ``memory_limit_mib`` of address space (:mod:`server.field.photos.isolated`).

    Args:
        path: The photo on local disk.
        max_bytes: Largest file accepted.
        max_pixels: Largest width × height accepted; a small file can declare a
            huge image and exhaust memory when decoded.

    Raises:
        PhotoRejected: with code ``too_large``, ``not_an_image``,
            ``unsupported_format``, ``decompression_bomb`` or ``truncated``.
        PhotoDecodeFailed: the child decoding a big photo ran out of memory, crashed or
            overran its time: the photo is neither accepted nor refused.
    """
    size = os.path.getsize(path)
    if size > max_bytes:
        raise PhotoRejected("too_large", f"the photo is {size} bytes; the limit is {max_bytes}")
    with open_image(path) as image:
        if image.format not in SUPPORTED_FORMATS:
            raise PhotoRejected("unsupported_format", f"{image.format} photos are not accepted")
        width, height = image.size
        if width * height > max_pixels:
            raise PhotoRejected(
                "decompression_bomb",
                f"the photo is {width} × {height} pixels ({width * height / 1e6:.1f} megapixels); "
                f"the limit is {max_pixels / 1e6:g} megapixels, more than a tablet camera makes",
            )
        if image.format == "JPEG":
            if not jpeg_is_complete(path):
                raise PhotoRejected("truncated", "the image data is incomplete or damaged")
            return
        route = decode_route(image.format, image.size)
    # One full decode at a time per process: its memory follows the pixel count (~36 MB
    # for a 12 MP HEIC in the worker), so a worker's threads must not stack them.
    with _ONE_FULL_DECODE:
        if route == "child":
            run_child("check", path, memory_limit_mib=memory_limit_mib)
        else:
            try:
                check_pixels_here(path)
            except MemoryError as exc:
                raise PhotoDecodeFailed("memory", "the server had no memory to decode the photo") from exc


def check_pixels_here(path: str | PathLike) -> None:
    """Decode every pixel in this process; ``truncated`` if the data is damaged.

    Raises:
        PhotoRejected: ``truncated`` or ``decompression_bomb``.
        MemoryError: the decoder could not allocate its memory (not the photo's fault).
    """
    with open_image(path) as image:
        try:
            image.load()
        except Image.DecompressionBombError as exc:
            raise PhotoRejected("decompression_bomb", "the image declares too many pixels") from exc
        except (OSError, EOFError, SyntaxError, ValueError, RuntimeError) as exc:
            if "memory" in str(exc).lower():
                raise MemoryError(str(exc)) from exc
            raise PhotoRejected("truncated", "the image data is incomplete or damaged") from exc
