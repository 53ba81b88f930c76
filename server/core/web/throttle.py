"""Login throttling: failed password checks are counted per username and per address.

Every way in that checks a password (``POST /api/v1/auth/token``, the ``/login`` form,
HTTP Basic on ``/api`` and ``/ogc``) asks :func:`check` before hashing and calls
:func:`failed` after a wrong password. Past either limit the caller gets a 429 with
``Retry-After``, the right password included: a guesser learns nothing more.

The counters live in Flask-Limiter's storage: memory by default (one process),
``RATELIMIT_STORAGE_URI=redis://host:6379`` where a city runs several workers or hosts,
so that they all count together. Each app has its own limiter (tests build many apps).
A city may also set Flask-Limiter's own ``RATELIMIT_APPLICATION`` limits for every request.
"""

from __future__ import annotations

import math
import time

from flask import current_app
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address
from limits import parse
from limits.storage import storage_from_string
from limits.strategies import MovingWindowRateLimiter, RateLimiter

from server.core.errors import LateralError

EXTENSION = "lateral_login_throttle"


class LoginThrottle:
    """The two limits over one rate-limit strategy (its storage: memory or Redis)."""

    def __init__(self, strategy: RateLimiter, per_username: str, per_address: str):
        self.strategy = strategy
        self.per_username = parse(per_username)
        self.per_address = parse(per_address)

    @classmethod
    def from_uri(cls, storage_uri: str, per_username: str, per_address: str) -> LoginThrottle:
        """A throttle over its own storage (tests; a second host in a test)."""
        return cls(MovingWindowRateLimiter(storage_from_string(storage_uri)), per_username, per_address)

    def _keys(self, username: str) -> list[tuple]:
        return [(self.per_username, "login-username", username.strip().lower()),
                (self.per_address, "login-address", get_remote_address() or "unknown")]

    def check(self, username: str) -> None:
        for limit, *ids in self._keys(username):
            if not self.strategy.test(limit, *ids):
                reset = self.strategy.get_window_stats(limit, *ids).reset_time
                wait = max(1, math.ceil(reset - time.time()))
                whom = "for this user" if ids[0] == "login-username" else "from this address"
                raise LateralError("too_many_attempts",
                                   f"too many failed logins {whom}; try again in {wait} seconds",
                                   {"retry_after": wait}, headers={"Retry-After": str(wait)})

    def failed(self, username: str) -> None:
        for limit, *ids in self._keys(username):
            self.strategy.hit(limit, *ids)


def init_app(app) -> None:
    """Bind Flask-Limiter (it reads ``RATELIMIT_*``) and the login throttle over its storage."""
    if app.config["RATELIMIT_STORAGE_URI"].startswith(("redis", "rediss", "unix")):
        # A Redis that hangs costs a log-in one timeout, not a worker (the settings' timeouts).
        app.config.setdefault("RATELIMIT_STORAGE_OPTIONS", {
            "socket_connect_timeout": app.config["LATERAL_CONNECT_TIMEOUT"],
            "socket_timeout": app.config["LATERAL_READ_TIMEOUT"]})
    limiter = Limiter(get_remote_address, app=app, default_limits=[])
    app.extensions[EXTENSION] = LoginThrottle(
        limiter.limiter, app.config["LOGIN_FAILURES_PER_USERNAME"], app.config["LOGIN_FAILURES_PER_ADDRESS"]
    )


def _throttle() -> LoginThrottle:
    return current_app.extensions[EXTENSION]


def check(username: str) -> None:
    """Raise ``too_many_attempts`` when this username or this address has failed too often."""
    _throttle().check(username)


def failed(username: str) -> None:
    """Count one wrong password against the username and the caller's address."""
    _throttle().failed(username)


def strategy() -> RateLimiter:
    """The app's rate-limit strategy over its storage, for counters other than logins
    (the portal's failed lookups, ``server/portal/lookup.py``)."""
    return _throttle().strategy
