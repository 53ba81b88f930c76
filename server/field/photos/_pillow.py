"""Pillow set-up shared by the photo modules: the HEIF opener is registered once."""

from __future__ import annotations

import functools

import pillow_heif


@functools.cache
def register_heif() -> None:
    """Teach Pillow to open HEIC/HEIF (iPhones and many Android phones write it)."""
    pillow_heif.register_heif_opener()
