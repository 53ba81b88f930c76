"""What a CCTV video file is, told by its bytes, not by its name or the browser's word.
Pure: a path in, a media type out (or a refusal).

Accepted: MP4 and QuickTime (ISO base media: a walk over the top-level boxes, which must
cover the file exactly and hold a ``moov``) and WebM (an EBML header whose DocType is
``webm``). Nothing is decoded: the reviewer's browser plays the file in its own sandbox.
"""

from __future__ import annotations

import struct
from pathlib import Path

MP4, QUICKTIME, WEBM = "video/mp4", "video/quicktime", "video/webm"
MEDIA_TYPES = (MP4, QUICKTIME, WEBM)
EBML_MAGIC = b"\x1a\x45\xdf\xa3"
#: Top-level box types of the ISO base media format and QuickTime.
BOXES = {b"ftyp", b"moov", b"mdat", b"free", b"skip", b"wide", b"uuid", b"meta", b"pdin", b"moof", b"mfra",
         b"sidx", b"styp", b"pnot", b"udta"}
#: Most boxes a file may have at the top level before it is taken for something else.
MAX_BOXES = 4096


class NotAVideo(ValueError):
    """The file is not a video of a kind the city takes."""


def media_type(path: str | Path) -> str:
    """``video/mp4``, ``video/quicktime`` or ``video/webm``.

    Raises:
        NotAVideo: anything else (a photo, a PDF, a renamed file, a cut-off box).
    """
    with open(path, "rb") as f:
        head = f.read(64)
        if head.startswith(EBML_MAGIC):
            return _webm(head + f.read(4096 - 64))
        if len(head) >= 8 and head[4:8] in BOXES:
            return _iso(f, Path(path).stat().st_size)
    raise NotAVideo("neither MP4, QuickTime nor WebM")


def _webm(head: bytes) -> str:
    # The EBML header holds the DocType element (0x4282) and its string, "webm" for WebM
    # ("matroska" is the same container, which browsers need not play).
    at = head.find(b"\x42\x82", 4)
    if at < 0 or at + 3 > len(head):
        raise NotAVideo("an EBML file without a DocType")
    size_byte = head[at + 2]
    if not size_byte & 0x80:
        raise NotAVideo("an EBML DocType of an unexpected length")
    length = size_byte & 0x7F
    if head[at + 3:at + 3 + length] != b"webm":
        raise NotAVideo("an EBML file that is not WebM")
    return WEBM


def _iso(f, size: int) -> str:
    f.seek(0)
    offset, seen, brand = 0, set(), None
    for _ in range(MAX_BOXES):
        if offset == size:
            break
        header = f.read(8)
        if len(header) < 8:
            raise NotAVideo("a box cut short")
        length, kind = struct.unpack(">I4s", header)
        if length == 1:
            large = f.read(8)
            if len(large) < 8:
                raise NotAVideo("a box cut short")
            length = struct.unpack(">Q", large)[0]
            header_size = 16
        elif length == 0:  # the last box runs to the end of the file
            length = size - offset
            header_size = 8
        else:
            header_size = 8
        if kind not in BOXES or length < header_size or offset + length > size:
            raise NotAVideo("a box that does not fit the file")
        if kind == b"ftyp":
            brand = f.read(4)
        seen.add(kind)
        offset += length
        f.seek(offset)
    else:
        raise NotAVideo("too many boxes")
    if b"moov" not in seen:
        raise NotAVideo("no movie header (moov)")
    return QUICKTIME if brand in (None, b"qt  ") else MP4
