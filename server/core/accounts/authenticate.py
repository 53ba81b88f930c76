"""Who is calling: bearer tokens for devices and scripts, the session for the web.

The web kernel: the JSON API, OGC API, tiles, uploads and pages all authenticate here.

GIS clients that only know passwords may send HTTP Basic instead of a token; a checked
credential is remembered for a few minutes (:mod:`server.core.web.basic_cache`) so that
paging through a layer does not pay scrypt on every page.

Every password check goes through :func:`password_login`, which is throttled per
username and per address (:mod:`server.core.web.throttle`).

A session cookie is only good for the session version it was issued with
(``users.session_version``): logging out ends it on the server. State-changing API
requests authenticated by the cookie alone must carry the session's CSRF token in
``X-CSRF-Token`` (:mod:`server.core.web.csrf`); bearer and Basic requests need none, a
foreign page cannot make the browser send those.

Which routes need a user, and which roles, each route declares (:mod:`server.core.access`).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from flask import g, request, session

from server.core.accounts import service as auth_service
from server.core.accounts.models import User
from server.core.errors import LateralError
from server.core.web import basic_cache, csrf, throttle

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def current_user() -> User | None:
    return g.get("user")


def signed_in_user() -> User:
    """The caller of a route the gate let in for a role (so always someone: a public route
    has no caller to ask for)."""
    user = g.get("user")
    if user is None:
        raise LateralError("unauthorized", "log in first")
    return user


def authenticate() -> None:
    """Set ``g.user`` or answer 401: the gate (``server/core/gate.py``) asks it for the API,
    the OGC API and tiles when the route is not public."""
    if request.method == "OPTIONS":
        return
    if request.routing_exception is not None:
        return  # no such route or method: the 404 or 405 says so, whoever asks
    header = request.headers.get("Authorization", "")
    user = None
    if header.startswith("Bearer "):
        held = auth_service.token_holder(header[7:].strip())
        if held is None:
            raise _unauthorized("the API token is unknown, revoked (a password change revokes them), unused "
                                "for too long or past its lifetime; log in again")
        user, g.api_token_id = held
    elif header.startswith("Basic "):
        # GIS clients (QGIS, OWSLib) log in with a username and password on each request.
        user = _basic_user(header)
    else:
        user = session_user()
        if user is not None and request.method not in SAFE_METHODS:
            csrf.check_header()
    if user is None:
        raise _unauthorized("log in, or send an API token as 'Authorization: Bearer …'")
    g.user = user


def caller_if_any() -> User | None:
    """On a public route: the caller when their token or session is good, else None (never a 401)."""
    if not request.headers.get("Authorization") and not session.get("user_id"):
        return None
    try:
        authenticate()
    except LateralError:
        return None
    return g.get("user")


def current_token_id() -> int | None:
    """The id of the device token this request came with, if it came with one."""
    return g.get("api_token_id")


def logged_in_user() -> User | None:
    """The session's user while the session is still good (not logged out, not disabled)."""
    return session_user()


def session_user() -> User | None:
    """The user of the session cookie, if it is still good: active and not logged out."""
    uid = session.get("user_id")
    if not uid:
        return None
    user = auth_service.user_by_id(uid)
    if user is None or not user.active or session.get("session_version") != user.session_version:
        return None
    return user


def start_session(user: User) -> None:
    """Log ``user`` in on this browser: a fresh session with its version and CSRF token."""
    session.clear()
    session["user_id"] = user.id
    session["session_version"] = user.session_version
    csrf.new_token()


def password_login(username: str, password: str, refused_code: str = "bad_credentials",
                   may_change_password: bool = False) -> User:
    """Check a password, throttled; raises ``too_many_attempts``, or ``refused_code`` on refusal.

    A good password leaves the signed device cookie that lets this device past the
    username's slow-down next time. A login with a published password on a database that
    is not the demo's is refused (``password_change_required``) unless the caller can take
    the user straight to a new password (``may_change_password``: the login form).
    """
    throttle.check(username, known_device=_bearer_of(username))
    try:
        user = auth_service.check_login(username, password)
    except auth_service.AuthError as exc:
        throttle.failed(username)
        raise _unauthorized(str(exc), refused_code) from None
    throttle.remember_device(username)
    if not may_change_password and auth_service.must_set_password(user):
        raise password_change_required()
    return user


def password_change_required() -> LateralError:
    return LateralError("password_change_required",
                        "this login still has its published password; log in at /login and set a new one first")


def _bearer_of(username: str) -> bool:
    """A request to log in again that carries a token once issued to this user: a known device."""
    header = request.headers.get("Authorization", "")
    return header.startswith("Bearer ") and auth_service.token_was_issued_to(header[7:].strip(), username)


@contextmanager
def password_attempt(username: str) -> Iterator[None]:
    """Count a wrong current password (a password change) like a failed login.

    Without it the change form is a way to guess a logged-in user's password unthrottled.
    """
    throttle.check(username)
    try:
        yield
    except auth_service.AuthError as exc:
        if exc.code == "bad_credentials":
            throttle.failed(username)
        raise


def _basic_user(header: str) -> User:
    cached = basic_cache.lookup(header)
    if cached is not None:
        user = auth_service.user_by_id(cached[0])
        if user is not None and user.active and user.session_version == cached[1]:
            return user
        basic_cache.forget(header)
    creds = request.authorization
    if creds is None or creds.type != "basic":
        raise _unauthorized("the Basic credentials are malformed")
    user = password_login(creds.username or "", creds.password or "", refused_code="unauthorized")
    basic_cache.remember(header, user.id, user.session_version)
    return user


REALM = "lateral"
# Where a GIS user reads how to log in (QGIS, GDAL): in the 401 of /ogc and /tiles.
GIS_LOGIN_DOCS = "docs/qgis.md"


def _unauthorized(message: str, code: str = "unauthorized") -> LateralError:
    return LateralError(code, message, headers={"WWW-Authenticate": [f'Bearer realm="{REALM}"']})


def offer_basic(exc: LateralError) -> LateralError:
    """The 401 of the GIS endpoints (OGC API, tiles), which also take HTTP Basic: say how to log in.

    The Basic challenge is a header line of its own, before the Bearer one: Qt, under QGIS,
    reads only a challenge that *starts* its header line, so a Basic challenge after a
    Bearer one on the same line was never seen, and QGIS showed an invalid layer without
    asking for a password.
    """
    exc.headers["WWW-Authenticate"] = [f'Basic realm="{REALM}", charset="UTF-8"', f'Bearer realm="{REALM}"']
    exc.message = (f"{exc.message}. GIS clients log in with HTTP Basic (in QGIS: an authentication "
                   f"configuration of type Basic) or an API token; see {GIS_LOGIN_DOCS}")
    exc.details = {**exc.details, "login": "HTTP Basic, or 'Authorization: Bearer <token>'",
                   "token_url": "/api/v1/auth/token", "docs": GIS_LOGIN_DOCS}
    return exc
