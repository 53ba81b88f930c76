"""Fields of the wire contract that every domain's schemas share."""

from __future__ import annotations

from marshmallow import fields

from server.core.models import as_utc


class UtcDateTime(fields.DateTime):
    """A stored time with its offset: SQLite hands back naive UTC, and RFC 3339 (the
    OpenAPI document's ``date-time``) needs the offset."""

    def _serialize(self, value, attr, obj, **kwargs):
        return super()._serialize(as_utc(value) if value is not None else None, attr, obj, **kwargs)
