"""Errors a client can act on, raised by services and routes alike, with no HTTP in them.

A service says *what* went wrong with a code of the catalogue (:data:`ERRORS`, in
``catalogue.py``) and a message safe to show: ``raise LateralError("not_mailed", "…")``.
The web edge (``server.core.web.errors``) reads the code's status from the catalogue and
answers with the one JSON error shape; a command prints the code and the message. So a code
means one thing and has one status wherever it is raised. This package is pure (no Flask):
the pure modules (tus, the photo checks) raise these too.
"""

from __future__ import annotations

from server.core.errors.catalogue import ERRORS, ErrorSpec, http_code, status_of

__all__ = ["ERRORS", "ErrorSpec", "LateralError", "http_code", "invalid_fields", "status_of"]


class LateralError(Exception):
    """A request Lateral refuses, or could not finish, named by a code of :data:`ERRORS`.

    Args:
        code: The stable code clients read (``not_mailed``); it must be in the catalogue,
            which gives its status. A code raised but not declared is answered as an
            internal error, and the catalogue test fails on it.
        message: A sentence safe to show the person asking (no internals).
        details: What a program needs to act on it (``{"fields": …}``, ``{"your_role": …}``).
        headers: Extra response headers the answer needs (``Retry-After``, an
            authentication challenge); never a status.
    """

    def __init__(self, code: str, message: str, details: dict | None = None, *,
                 headers: dict | None = None) -> None:
        super().__init__(message)
        self.code, self.message = code, message
        self.details = details or {}
        self.headers = headers or {}


def invalid_fields(messages: dict | list, prefix: str | None = None) -> LateralError:
    """``invalid_fields`` naming each field of marshmallow-style ``messages`` (nested dicts of lists)."""
    if prefix:
        messages = {prefix: messages}
    flat = []

    def walk(node, path):
        if isinstance(node, dict):
            for key, value in node.items():
                walk(value, f"{path}.{key}" if path else str(key))
        else:
            for msg in node if isinstance(node, list) else [node]:
                flat.append(f"{path}: {msg}")

    walk(messages, "")
    return LateralError("invalid_fields", "; ".join(flat), {"fields": messages})
