"""Login throttling that an attacker cannot turn into a lockout.

Every way in that checks a password (``POST /api/v1/auth/token``, the ``/login`` form,
HTTP Basic on ``/api`` and ``/ogc``, and the current password of a password change)
asks :func:`check` before hashing and calls :func:`failed` after a wrong password.

Three counts, as the mature systems keep them (OWASP's authentication cheat sheet,
"smart lockout"):

* per **address** (``LOGIN_FAILURES_PER_ADDRESS``): a hard limit; the address is the
  guesser's own.
* per **username and address** (``LOGIN_FAILURES_PER_USERNAME``): a hard limit. Whoever
  guesses from one address stops there, and nobody else is held up by it.
* per **username across addresses**: past the same number, guesses from anywhere are
  *slowed*, not blocked: one try per few seconds, doubling to ``LOGIN_SLOWDOWN_MAX_SECONDS``
  since the latest failure. A device that logged in as that user before (a signed
  device cookie the login leaves, or a token issued to the user) is not slowed at all.
  So anonymous wrong passwords cannot lock a named user out: the right password from
  their own tablet or browser still gets in.

Past a limit the answer is 429 with ``Retry-After``, the right password included: a
guesser learns nothing more. The counters are shared by every worker and host
(:mod:`server.core.web.login_failures`: the database by default, ``LOGIN_COUNTERS=redis://…``
where configured). A failure is written after the request's transaction has ended.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from flask import after_this_request, current_app, g, request
from itsdangerous import BadSignature, URLSafeTimedSerializer
from limits import parse
from limits.storage import storage_from_string
from limits.strategies import MovingWindowRateLimiter, RateLimiter

from server.core.errors import LateralError
from server.core.web.login_failures import Counters, counters_from

EXTENSION = "lateral_login_throttle"
STRATEGY = "lateral_rate_strategy"
DEVICE_COOKIE = "lateral_device"
DEVICE_DAYS = 180
DEVICE_USERNAMES = 5  # a shared desk computer remembers a few logins


@dataclass(frozen=True)
class Limit:
    amount: int
    seconds: int

    @classmethod
    def parse(cls, text: str) -> Limit:
        item = parse(text)
        return cls(item.amount, item.get_expiry())


def _refusal(wait: float, why: str) -> LateralError:
    seconds = max(1, math.ceil(wait))
    return LateralError("too_many_attempts", f"too many failed logins {why}; try again in {seconds} seconds",
                        {"retry_after": seconds}, headers={"Retry-After": str(seconds)})


class LoginThrottle:
    """The three counts over one set of counters."""

    def __init__(self, counters: Counters, per_username: str, per_address: str, slowdown_max: int = 60):
        self.counters = counters
        self.per_username = Limit.parse(per_username)
        self.per_address = Limit.parse(per_address)
        self.slowdown_max = slowdown_max

    @classmethod
    def from_uri(cls, uri: str, per_username: str, per_address: str, slowdown_max: int = 60) -> LoginThrottle:
        """A throttle over its own counters (tests; a second host in a test)."""
        return cls(counters_from(uri), per_username, per_address, slowdown_max)

    @staticmethod
    def _keys(username: str) -> tuple[str, str, str]:
        name, address = username.strip().lower(), client_address()
        return f"address:{address}", f"pair:{name}|{address}", f"username:{name}"

    def check(self, username: str, known_device: bool = False) -> None:
        address, pair, user = self._keys(username)
        now = time.time()
        for key, limit, why in ((address, self.per_address, "from this address"),
                                (pair, self.per_username, "for this user from this address")):
            count, oldest, _ = self.counters.recent(key, limit.seconds)
            if count >= limit.amount and oldest is not None:
                raise _refusal(oldest + limit.seconds - now, why)
        if known_device:
            return
        count, _, latest = self.counters.recent(user, self.per_username.seconds)
        if count >= self.per_username.amount and latest is not None:
            delay = min(self.slowdown_max, 2 ** (count - self.per_username.amount + 1))
            if latest + delay > now:
                raise _refusal(latest + delay - now, "for this user (a device that logged in as them "
                                                     "before is not held up)")

    def failed(self, username: str) -> None:
        self.counters.add(list(self._keys(username)))


def init_app(app) -> None:
    """The rate-limit counters over ``RATELIMIT_STORAGE_URI`` and the login throttle over ``LOGIN_COUNTERS``.

    The counters are the ``limits`` library's moving windows, asked only where something is
    counted (failed logins, failed portal lookups). Flask-Limiter, which wraps the same
    library, ran a check before every request for limits Lateral never sets: a tenth of a
    millisecond of every tile and every page a GIS client walks (issue 35).
    """
    options = {}
    if app.config["RATELIMIT_STORAGE_URI"].startswith(("redis", "rediss", "unix")):
        # A Redis that hangs costs a request one timeout, not a worker (the settings' timeouts).
        options = {"socket_connect_timeout": app.config["LATERAL_CONNECT_TIMEOUT"],
                   "socket_timeout": app.config["LATERAL_READ_TIMEOUT"]}
    app.extensions[STRATEGY] = MovingWindowRateLimiter(storage_from_string(app.config["RATELIMIT_STORAGE_URI"],
                                                                           **options))
    app.extensions[EXTENSION] = LoginThrottle(
        counters_from(app.config["LOGIN_COUNTERS"]), app.config["LOGIN_FAILURES_PER_USERNAME"],
        app.config["LOGIN_FAILURES_PER_ADDRESS"], app.config["LOGIN_SLOWDOWN_MAX_SECONDS"])
    app.after_request(_record_failures)


def client_address() -> str:
    """The caller's address (behind the city's proxy, the one ProxyFix took from it)."""
    return request.remote_addr or "unknown"


def _throttle() -> LoginThrottle:
    return current_app.extensions[EXTENSION]


def check(username: str, known_device: bool = False) -> None:
    """Raise ``too_many_attempts`` when this address, this username from it, or (unless the
    device logged in as the user before) the username from anywhere has failed too often."""
    _throttle().check(username, known_device or device_knows(username))


def failed(username: str) -> None:
    """Count one wrong password; written once the request's transaction is over."""
    g.setdefault("login_failures", []).append(username)


def _record_failures(response):
    usernames = g.pop("login_failures", [])
    for username in usernames:
        try:
            _throttle().failed(username)
        except Exception:  # noqa: BLE001 - the answer stands; the log says the count was lost
            current_app.logger.warning("could not count a failed login", exc_info=True)
    return response


# ------------------------------------------------------------------ the device cookie


def _signer() -> URLSafeTimedSerializer:
    return URLSafeTimedSerializer(current_app.config["SECRET_KEY"], salt="lateral-device")


def _known_usernames() -> list[str]:
    raw = request.cookies.get(DEVICE_COOKIE)
    if not raw:
        return []
    try:
        names = _signer().loads(raw, max_age=DEVICE_DAYS * 86400)
    except BadSignature:
        return []
    return [n for n in names if isinstance(n, str)] if isinstance(names, list) else []


def device_knows(username: str) -> bool:
    """True when this browser or app carries a signed cookie of a past login as ``username``."""
    return username.strip().lower() in _known_usernames()


def remember_device(username: str) -> None:
    """After a good password: leave the signed device cookie that lets this device past the slow-down."""
    name = username.strip().lower()
    names = [name] + [n for n in _known_usernames() if n != name]
    value = _signer().dumps(names[:DEVICE_USERNAMES])
    secure = bool(current_app.config.get("SESSION_COOKIE_SECURE"))

    @after_this_request
    def _set(response):
        response.set_cookie(DEVICE_COOKIE, value, max_age=DEVICE_DAYS * 86400, httponly=True, samesite="Lax",
                            secure=secure)
        return response


def strategy() -> RateLimiter:
    """The app's rate-limit strategy over ``RATELIMIT_STORAGE_URI``'s storage, for counters other than
    logins (the portal's failed lookups, ``server/portal/lookup.py``)."""
    return current_app.extensions[STRATEGY]
