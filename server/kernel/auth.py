"""Who is calling: bearer tokens for devices and scripts, the session for the web.

The web kernel: the JSON API, OGC API, tiles, uploads and pages all authenticate here.

GIS clients that only know passwords may send HTTP Basic instead of a token.

Every API endpoint requires a user, except the health check and the token endpoint
(which itself checks a password).
"""

from __future__ import annotations

import functools

from flask import g, request, session

from server.extensions import db
from server.kernel.errors import ApiError
from server.models import User
from server.services import auth as auth_service

# The docs page is a web page: it sends people to the login form instead of a 401.
OPEN_ENDPOINTS = {"health.health", "auth.Token", "web.api_docs"}

def current_user() -> User | None:
    return g.get("user")


def authenticate() -> None:
    """before_request for /api/: set ``g.user`` or answer 401."""
    if request.endpoint in OPEN_ENDPOINTS or request.method == "OPTIONS":
        return
    header = request.headers.get("Authorization", "")
    user = None
    if header.startswith("Bearer "):
        user = auth_service.user_for_token(header[7:].strip())
        if user is None:
            raise _unauthorized("the API token is unknown or revoked; log in again")
    elif header.startswith("Basic "):
        # GIS clients (QGIS, OWSLib) log in with a username and password on each request.
        user = _basic_user()
    elif session.get("user_id"):
        user = db.session.get(User, session["user_id"])
        if user is not None and not user.active:
            user = None
    if user is None:
        raise _unauthorized("log in, or send an API token as 'Authorization: Bearer …'")
    g.user = user


def _basic_user() -> User:
    creds = request.authorization
    try:
        return auth_service.check_login(creds.username or "", creds.password or "")
    except (AttributeError, auth_service.AuthError):
        raise _unauthorized("unknown user or wrong password") from None


def _unauthorized(message: str) -> ApiError:
    return ApiError(401, "unauthorized", message, headers={"WWW-Authenticate": 'Bearer realm="lateral"'})


def require_role(*roles: str):
    """Allow the view only to users holding one of ``roles``."""

    def decorator(view):
        @functools.wraps(view)
        def wrapper(*args, **kwargs):
            check_role(roles)
            return view(*args, **kwargs)

        return wrapper

    return decorator


def check_role(roles) -> None:
    user = current_user()
    if user is None or user.role not in roles:
        raise ApiError(
            403, "forbidden", f"this needs the role {' or '.join(sorted(roles))}",
            {"your_role": getattr(user, "role", None)},
        )
