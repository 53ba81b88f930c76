"""Small reads a route needs, made by the login's own statement: one round trip, not two.

A map tile kept in the cache needs two facts from the database: who is calling (the
bearer token's holder) and the layer's write version (is the kept tile still true?).
Each was a round trip of its own, together most of a cached tile's time (issue #35).
A blueprint names the scalar reads its requests want (:func:`add`); the login's own
lookup adds them as columns of its statement (``server.core.accounts.service``: the
bearer token's holder, or the user a session cookie or a remembered HTTP Basic login
names), and the route takes the values (:func:`taken`). A login that makes no statement
(a Basic password checked afresh, scrypt and all) leaves them unread: :func:`taken` then
says ``MISSING`` and the route reads the value itself. Either way the value is read
before the route uses it, in its own request.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import Blueprint, current_app, g, has_request_context, request
from sqlalchemy.sql.elements import ColumnElement

EXTENSION = "lateral_login_reads"
MISSING = object()

Reads = Callable[[], dict[str, ColumnElement[Any]]]


def add(bp: Blueprint, reads: Reads) -> None:
    """``reads()``, called in a request to ``bp``, names the reads to make with its login."""
    bp.record_once(lambda state: state.app.extensions.setdefault(EXTENSION, {}).__setitem__(bp.name, reads))


def wanted() -> dict[str, ColumnElement[Any]]:
    """The reads this request's blueprint wants made with the login (none outside a request)."""
    if not has_request_context() or request.blueprint is None:
        return {}
    reads = current_app.extensions.get(EXTENSION, {}).get(request.blueprint)
    return reads() if reads is not None else {}


def keep(values: dict[str, Any]) -> None:
    g.login_reads = values


def taken(name: str) -> Any:
    """The value read with the login under ``name``, or ``MISSING`` when it was not read (or
    was taken already: a later use in the same request reads afresh)."""
    return g.get("login_reads", {}).pop(name, MISSING)
