"""Page cursors: the opaque ``cursor`` that every ``next`` link carries.

A list is ordered by its id, so a page starts after the last id of the page before:
``WHERE id > :last ORDER BY id LIMIT n`` walks the primary key's index and costs the
same on the last page as on the first, where an ``offset`` makes the database step over
every row before it. The cursor is that last id, written as URL-safe base64 of JSON
with a version (``{"v": 1, "k": [17]}``), signed with the app's ``SECRET_KEY`` by
itsdangerous, so a client follows it and never builds one: a malformed, tampered or
out-of-date cursor is refused naming the parameter (400 on /ogc, 422 on /api/v1), never
a 500.

Rows added or deleted between two requests do not shift the pages: a page holds the
rows whose ids follow the cursor at the time it is asked for, so no row present for the
whole walk is skipped or repeated.
"""

from __future__ import annotations

from typing import Any

from flask import current_app, request, url_for
from itsdangerous import BadData, URLSafeSerializer
from marshmallow import ValidationError, fields

from server.kernel.errors import invalid_fields
from server.kernel.inputs import INT_MAX

VERSION = 1
_SALT = "lateral.page-cursor"
_REFUSED = "is not a cursor this server issued: follow the next link as given, or start again without it"


def _serializer() -> URLSafeSerializer:
    return URLSafeSerializer(current_app.config["SECRET_KEY"], salt=_SALT)


def encode(last_id: int) -> str:
    """The cursor of a page that ends at ``last_id``."""
    return str(_serializer().dumps({"v": VERSION, "k": [last_id]}))


def decode(text: str) -> int:
    """The id a cursor says its page starts after.

    Raises:
        ValueError: the text is no cursor this server issued, or of another version.
    """
    try:
        payload = _serializer().loads(text)
    except BadData:
        raise ValueError(_REFUSED) from None
    if not isinstance(payload, dict) or payload.get("v") != VERSION or set(payload) != {"v", "k"}:
        raise ValueError(_REFUSED)
    key = payload["k"]
    if not (isinstance(key, list) and len(key) == 1 and type(key[0]) is int and 0 <= key[0] <= INT_MAX):
        raise ValueError(_REFUSED)
    return key[0]


class Cursor(fields.String):
    """A query parameter holding a page cursor; loads as the id the page starts after."""

    def _deserialize(self, value, attr, data, **kwargs):
        text = super()._deserialize(value, attr, data, **kwargs)
        try:
            return decode(text)
        except ValueError as exc:
            raise ValidationError(str(exc)) from None


def cursor_field() -> Cursor:
    return Cursor(metadata={
        "description": "where the page starts: the opaque cursor of a `next` link (follow it as given)",
    })


def page_start(args: dict) -> int | None:
    """The id a list page starts after: its ``cursor``, or the ``after`` older clients send.

    Pops both from the parsed query; sending both is a 422 naming them.
    """
    cursor, after = args.pop("cursor", None), args.pop("after", None)
    if cursor is not None and after is not None:
        raise invalid_fields({"cursor": ["send cursor or after, not both"]}, prefix="query")
    return cursor if cursor is not None else after


def next_url(endpoint: str, last_id: int, limit: int) -> str:
    """The absolute URL of the page after one ending at ``last_id``.

    It keeps the request's filters and carries the page's cursor and ``limit``; an
    ``after`` the request came with is dropped (the cursor says where to start).
    """
    params: dict[str, Any] = {k: v for k, v in request.args.items() if k not in ("after", "cursor")}
    params.update(cursor=encode(last_id), limit=limit)
    return url_for(endpoint, _external=True, **params)
