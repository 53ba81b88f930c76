"""One JSON error shape everywhere: ``{"error": {"code", "message", "details"}}``.

Services and routes raise :class:`~server.core.errors.LateralError` with a code (or let
werkzeug raise an HTTPException); the handlers here give each its status from the one
catalogue (``server/core/errors/catalogue.py``) and shape every response. Details of
server faults go to the log only.
"""

from __future__ import annotations

import logging

from flask import jsonify
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm.exc import StaleDataError
from werkzeug.exceptions import HTTPException

from server.core import dialects
from server.core.errors import ERRORS, LateralError, http_code

log = logging.getLogger(__name__)

INTERNAL_MESSAGE = "the server failed; the error was logged"


def error_response(status: int, code: str, message: str, details: dict | None = None, headers=None):
    body = {"error": {"code": code, "message": message, "details": details or {}}}
    response = jsonify(body)
    response.status_code = status
    for key, value in (headers or {}).items():
        for line in value if isinstance(value, list) else [value]:  # a list: one header line each
            response.headers.add(key, line)
    return response


def handle_lateral_error(exc: LateralError):
    spec = ERRORS.get(exc.code)
    if spec is None:
        # A code nobody declared has no status to give, and no reader knows it: a bug,
        # answered as one (the catalogue test finds literal codes before they ship).
        log.error("error code %r is not in the catalogue (server/core/errors/catalogue.py): %s",
                  exc.code, exc.message)
        return error_response(ERRORS["internal_error"].status, "internal_error", INTERNAL_MESSAGE)
    return error_response(spec.status, exc.code, exc.message, exc.details, exc.headers)


def handle_http_exception(exc: HTTPException):
    status = exc.code or 500
    if status == 413:
        return handle_lateral_error(
            LateralError("payload_too_large", "request body is larger than this server accepts"))
    code = http_code(status)
    if code is None:
        return handle_unexpected(exc)
    headers = dict(exc.get_headers()) if status == 405 else None
    if headers:
        headers.pop("Content-Type", None)
    return handle_lateral_error(LateralError(code, exc.description or exc.name, headers=headers))


def handle_stale(exc: StaleDataError):
    return handle_lateral_error(LateralError(
        "version_conflict", "someone else changed this feature first; reload it and try again"))


# How long a client should wait before trying again while the database is away.
DATABASE_RETRY_AFTER_S = 5


def handle_database_error(exc: DBAPIError):
    """A database that is restarting or out of reach is a 503 the client retries, not a 500."""
    if not dialects.is_transient(exc):
        return handle_unexpected(exc)
    log.warning("database unavailable: %s", exc.orig)
    return handle_lateral_error(LateralError(
        "database_unavailable", "the database is not answering just now; nothing was changed, try again",
        headers={"Retry-After": str(DATABASE_RETRY_AFTER_S)}))


def handle_unexpected(exc: Exception):
    if isinstance(exc, HTTPException) and http_code(exc.code or 500) is not None:
        return handle_http_exception(exc)
    log.exception("unhandled error")
    return handle_lateral_error(LateralError("internal_error", INTERNAL_MESSAGE))


def register(app) -> None:
    app.register_error_handler(LateralError, handle_lateral_error)
    app.register_error_handler(HTTPException, handle_http_exception)
    app.register_error_handler(StaleDataError, handle_stale)
    app.register_error_handler(DBAPIError, handle_database_error)
    app.register_error_handler(Exception, handle_unexpected)
