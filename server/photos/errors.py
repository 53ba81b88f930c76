"""The one error a photo can be refused with."""

from __future__ import annotations


class PhotoRejected(Exception):
    """A photo the server will not keep as evidence.

    Attributes:
        code: Stable machine-readable reason: ``not_an_image``, ``truncated``,
            ``decompression_bomb``, ``too_large`` or ``unsupported_format``.
        message: A message that is safe to show the inspector.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
