"""The ``Upload-Metadata`` and ``Upload-Checksum`` header formats of tus 1.0.0."""

from __future__ import annotations

import base64
import binascii
import hashlib
import re

CHECKSUM_ALGORITHMS = {"sha1": hashlib.sha1, "md5": hashlib.md5, "sha256": hashlib.sha256}
_KEY = re.compile(r"^[!-+\--~]+$")  # printable ASCII without space or comma


class HeaderError(ValueError):
    """A tus header that does not follow the protocol."""


def parse_metadata(header: str | None) -> dict[str, str | None]:
    """Decode ``key base64value,key2`` pairs; a key may have no value.

    Raises:
        HeaderError: a malformed pair, a duplicate key or a value that is not
            base64 UTF-8.
    """
    metadata: dict[str, str | None] = {}
    if not header or not header.strip():
        return metadata
    for pair in header.split(","):
        parts = pair.strip().split(" ")
        if len(parts) > 2 or not _KEY.match(parts[0]) or parts[0] in metadata:
            raise HeaderError(f"bad Upload-Metadata pair {pair.strip()!r}")
        if len(parts) == 1:
            metadata[parts[0]] = None
            continue
        try:
            metadata[parts[0]] = base64.b64decode(parts[1], validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError) as exc:
            raise HeaderError(f"Upload-Metadata value for {parts[0]!r} is not base64") from exc
    return metadata


def parse_checksum(header: str) -> tuple[str, bytes]:
    """Split ``Upload-Checksum: <algorithm> <base64 digest>``.

    Raises:
        HeaderError: unsupported algorithm or undecodable digest.
    """
    parts = header.strip().split(" ")
    if len(parts) != 2 or parts[0] not in CHECKSUM_ALGORITHMS:
        raise HeaderError(f"unsupported Upload-Checksum {header!r}")
    try:
        return parts[0], base64.b64decode(parts[1], validate=True)
    except binascii.Error as exc:
        raise HeaderError("Upload-Checksum digest is not base64") from exc
