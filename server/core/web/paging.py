"""Page cursors: the opaque ``cursor`` that every ``next`` link carries.

A list in id order starts a page after the last id of the page before:
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

A list in another order (the parcel search: by site address, then id) pages the same way
on its whole order key, ``WHERE (address, id) > (:address, :id)``, and its cursor holds
that key (``{"v": 1, "k": ["12 Oak St", 17]}``). A list declares the key's shape, the type
of each part (:data:`BY_ID` is ``(int,)``), and a cursor of another shape is refused like a
tampered one: an id list's cursor does not start a search, nor the other way round.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from flask import current_app, request, url_for
from itsdangerous import BadData, URLSafeSerializer
from marshmallow import ValidationError, fields

from server.core.errors import invalid_fields
from server.core.web.inputs import INT_MAX

VERSION = 1
_SALT = "lateral.page-cursor"
_REFUSED = "is not a cursor this server issued: follow the next link as given, or start again without it"


def _serializer() -> URLSafeSerializer:
    return URLSafeSerializer(current_app.config["SECRET_KEY"], salt=_SALT)


# The shape of a list's order key: one type per part, ``int`` an id, ``str`` a text column.
Shape = tuple[type, ...]
# What a list in id order keys on, and what every cursor held before shapes (byte for byte).
BY_ID: Shape = (int,)
Key = tuple[str | int, ...]


def encode(last: int | Sequence[str | int]) -> str:
    """The cursor of a page that ends at ``last``: its id, or its key in the list's order."""
    key = [last] if isinstance(last, int) else list(last)
    return str(_serializer().dumps({"v": VERSION, "k": key}))


def _fits(value: object, kind: type) -> bool:
    # ``type(...) is``: JSON's true is no id, and 1.0 no id either.
    if kind is int:
        return type(value) is int and 0 <= value <= INT_MAX
    return type(value) is kind


def decode_key(text: str, shape: Shape) -> Key:
    """The key a cursor says its page starts after, one part per type of ``shape``.

    Raises:
        ValueError: the text is no cursor this server issued, of another version, or of
            another list's shape.
    """
    try:
        payload = _serializer().loads(text)
    except BadData:
        raise ValueError(_REFUSED) from None
    if not isinstance(payload, dict) or payload.get("v") != VERSION or set(payload) != {"v", "k"}:
        raise ValueError(_REFUSED)
    key = payload["k"]
    if not (isinstance(key, list) and len(key) == len(shape) and all(map(_fits, key, shape))):
        raise ValueError(_REFUSED)
    return tuple(key)


def decode(text: str) -> int:
    """The id a cursor of a list in id order says its page starts after (see :func:`decode_key`)."""
    return cast(int, decode_key(text, BY_ID)[0])


class Cursor(fields.String):
    """A query parameter holding a page cursor of the list's ``shape``; loads as the id
    the page starts after (:data:`BY_ID`), else as the key."""

    def __init__(self, shape: Shape = BY_ID, **kwargs):
        super().__init__(**kwargs)
        self.shape = shape

    def _deserialize(self, value, attr, data, **kwargs):
        text = super()._deserialize(value, attr, data, **kwargs)
        try:
            key = decode_key(text, self.shape)
        except ValueError as exc:
            raise ValidationError(str(exc)) from None
        return key[0] if self.shape == BY_ID else key


def cursor_field(shape: Shape = BY_ID) -> Cursor:
    return Cursor(shape, metadata={
        "description": "where the page starts: the opaque cursor of a `next` link (follow it as given)",
    })


def page_start(args: dict) -> int | None:
    """The id a list page in id order starts after: its ``cursor``, or the ``after`` older clients send.

    Pops both from the parsed query; sending both is a 422 naming them.
    """
    cursor, after = args.pop("cursor", None), args.pop("after", None)
    if cursor is not None and after is not None:
        raise invalid_fields({"cursor": ["send cursor or after, not both"]}, prefix="query")
    return cursor if cursor is not None else after


def next_url(endpoint: str, last: int | Sequence[str | int], limit: int) -> str:
    """The absolute URL of the page after one ending at ``last`` (its id, or its key).

    It keeps the request's filters and carries the page's cursor and ``limit``; an
    ``after`` the request came with is dropped (the cursor says where to start).
    """
    params: dict[str, Any] = {k: v for k, v in request.args.items() if k not in ("after", "cursor")}
    params.update(cursor=encode(last), limit=limit)
    return url_for(endpoint, _external=True, **params)
