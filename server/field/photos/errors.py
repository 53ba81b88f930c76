"""The one error a photo can be refused with, and the one that is no verdict on it."""

from __future__ import annotations

from server.core.errors import LateralError


class PhotoRejected(LateralError):
    """A photo the server will not keep as evidence.

    Attributes:
        code: Stable machine-readable reason, in the error catalogue: ``not_an_image``,
            ``truncated``, ``decompression_bomb``, ``too_large`` or ``unsupported_format``.
        message: A message that is safe to show the inspector.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(code, message)


class PhotoDecodeFailed(Exception):
    """A photo's pixels could not be decoded *this time*: not a verdict on the photo.

    Raised when the child process decoding a big photo (:mod:`server.field.photos.isolated`)
    runs out of its memory limit, crashes or overruns its time. The original is kept;
    the caller answers with a retryable error.

    Attributes:
        reason: ``memory``, ``crashed``, ``timeout`` or ``busy`` (every decoder slot of the host taken).
        message: A message that is safe to show.
    """

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(f"{reason}: {message}")
        self.reason = reason
        self.message = message
