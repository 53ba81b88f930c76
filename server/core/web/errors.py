"""One JSON error shape everywhere: ``{"error": {"code", "message", "details"}}``.

Routes and services raise ``ApiError`` (or let werkzeug raise an HTTPException); the
handlers here shape every response. Details of server faults go to the log only.
"""

from __future__ import annotations

import logging

from flask import jsonify
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm.exc import StaleDataError
from werkzeug.exceptions import HTTPException

from server.core import dialects
from server.core.errors import ApiError, invalid_fields  # noqa: F401 - re-exported for routes

log = logging.getLogger(__name__)

# Stable codes for werkzeug's own exceptions.
HTTP_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    412: "precondition_failed",
    413: "payload_too_large",
    415: "unsupported_media_type",
    422: "invalid",
    428: "precondition_required",
    500: "internal_error",
}


def error_response(status: int, code: str, message: str, details: dict | None = None, headers=None):
    body = {"error": {"code": code, "message": message, "details": details or {}}}
    response = jsonify(body)
    response.status_code = status
    for key, value in (headers or {}).items():
        for line in value if isinstance(value, list) else [value]:  # a list: one header line each
            response.headers.add(key, line)
    return response


def handle_api_error(exc: ApiError):
    return error_response(exc.status, exc.code, exc.message, exc.details, exc.headers)


def handle_http_exception(exc: HTTPException):
    status = exc.code or 500
    if status == 413:
        return error_response(413, "payload_too_large", "request body is larger than this server accepts")
    message = exc.description or exc.name
    headers = dict(exc.get_headers()) if status == 405 else None
    if headers:
        headers.pop("Content-Type", None)
    return error_response(status, HTTP_CODES.get(status, "error"), message, headers=headers)


def handle_stale(exc: StaleDataError):
    return error_response(
        412, "version_conflict", "someone else changed this feature first; reload it and try again"
    )


# How long a client should wait before trying again while the database is away.
DATABASE_RETRY_AFTER_S = 5


def handle_database_error(exc: DBAPIError):
    """A database that is restarting or out of reach is a 503 the client retries, not a 500."""
    if not dialects.is_transient(exc):
        return handle_unexpected(exc)
    log.warning("database unavailable: %s", exc.orig)
    return error_response(
        503, "database_unavailable", "the database is not answering just now; nothing was changed, try again",
        headers={"Retry-After": str(DATABASE_RETRY_AFTER_S)},
    )


def handle_unexpected(exc: Exception):
    if isinstance(exc, HTTPException):
        return handle_http_exception(exc)
    log.exception("unhandled error")
    return error_response(500, "internal_error", "the server failed; the error was logged")


def register(app) -> None:
    app.register_error_handler(ApiError, handle_api_error)
    app.register_error_handler(HTTPException, handle_http_exception)
    app.register_error_handler(StaleDataError, handle_stale)
    app.register_error_handler(DBAPIError, handle_database_error)
    app.register_error_handler(Exception, handle_unexpected)
