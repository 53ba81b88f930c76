"""Errors a client can act on, raised by services and routes alike.

They live outside ``server.core.api`` so that services can raise them without importing the
web layer; ``server.core.web.errors`` turns them into the one JSON error shape.
"""

from __future__ import annotations


class ApiError(Exception):
    """An error the client can act on."""

    def __init__(self, status: int, code: str, message: str, details: dict | None = None, headers=None):
        super().__init__(message)
        self.status, self.code, self.message = status, code, message
        self.details = details or {}
        self.headers = headers or {}


def invalid_fields(messages: dict, prefix: str | None = None) -> ApiError:
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
    return ApiError(422, "invalid_fields", "; ".join(flat), {"fields": messages})
