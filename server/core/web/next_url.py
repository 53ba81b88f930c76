"""Where the login form may send the user back to: a path on this site, nothing else."""

from __future__ import annotations

import unicodedata
from urllib.parse import urlsplit


def local_path(target: str | None) -> str | None:
    """``target`` when it is a same-site absolute path, else ``None``.

    Browsers forgive a great deal in a ``Location`` header: they drop tabs and newlines
    (``/\\t/evil.example`` becomes ``//evil.example``), read a backslash as a slash
    (``/\\evil.example``), and follow a scheme or a ``//host`` anywhere. So the target is
    refused unless it starts with one ``/``, holds no backslash, no control or space
    character, and parses with neither a scheme nor a host.
    """
    if not target or not target.startswith("/") or target.startswith("//"):
        return None
    if "\\" in target or any(ch.isspace() or unicodedata.category(ch).startswith("C") for ch in target):
        return None
    parts = urlsplit(target)
    if parts.scheme or parts.netloc:
        return None
    return target
