"""The server's JSON API as the field client sees it: one session, timeouts, error kinds.

Every failure is sorted into one of three kinds, because each calls for a different
reaction in the field:

- :class:`Transient` — the network dropped, the server is restarting (5xx, 429):
  try again later with back-off; nothing is lost.
- :class:`AuthRequired` — 401: the device token was revoked or lay unused too long
  (`TOKEN_IDLE_DAYS`); log in again.
- :class:`ApiFailure` — any other 4xx for the request as a whole: retrying the same
  bytes will not help; the message is kept for the user.
"""

from __future__ import annotations

import requests

# (connect, read) seconds. A read timeout long enough for a server checking a large
# photo on the last byte; short enough that a dead link is noticed in the field.
TIMEOUT = (10, 120)


class SyncError(Exception):
    """Base of the field client's communication errors."""


class Transient(SyncError):
    """Worth retrying: network error, 5xx, 429."""


class AuthRequired(SyncError):
    """The server refused the token (401)."""


class ApiFailure(SyncError):
    """A 4xx for the request as a whole."""

    def __init__(self, status: int, code: str, message: str):
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code


def error_from(response: requests.Response) -> SyncError:
    """The error kind for a non-2xx response, with the server's code and message."""
    try:
        error = response.json().get("error") or {}
    except ValueError:
        error = {}
    code = error.get("code") or f"http_{response.status_code}"
    message = error.get("message") or response.reason or ""
    if response.status_code == 401:
        return AuthRequired(f"{code}: {message}")
    if response.status_code >= 500 or response.status_code == 429:
        return Transient(f"{response.status_code} {code}: {message}")
    return ApiFailure(response.status_code, code, message)


class Api:
    """Calls to ``{base_url}/api/v1`` with the device token.

    Args:
        base_url: The server, e.g. ``https://lateral.example``.
        token: Bearer token from :meth:`login`, or ``None`` before logging in.
        timeout: ``(connect, read)`` seconds for every request.
    """

    def __init__(self, base_url: str, token: str | None = None, timeout=TIMEOUT) -> None:
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.session = requests.Session()
        if token:
            self.session.headers["Authorization"] = f"Bearer {token}"

    def url(self, path: str) -> str:
        return f"{self.base_url}/api/v1/{path.lstrip('/')}"

    def close(self) -> None:
        self.session.close()

    def request(self, method: str, path: str, **kwargs) -> requests.Response:
        """Send one request; raise the error kind for anything but 2xx."""
        try:
            response = self.session.request(method, self.url(path), timeout=self.timeout, **kwargs)
        except requests.RequestException as exc:
            raise Transient(f"network: {exc.__class__.__name__}: {exc}") from exc
        if not 200 <= response.status_code < 300:
            raise error_from(response)
        return response

    def json(self, method: str, path: str, **kwargs) -> dict:
        response = self.request(method, path, **kwargs)
        try:
            return response.json()
        except ValueError as exc:  # a cut-off body is a network failure
            raise Transient(f"unreadable response: {exc}") from exc

    def login(self, username: str, password: str, device_name: str) -> str:
        """Exchange a password for a device token (also used for later calls)."""
        body = {"username": username, "password": password, "device_name": device_name}
        token = self.json("POST", "auth/token", json=body)["token"]
        self.session.headers["Authorization"] = f"Bearer {token}"
        return token

    def push(self, records: list[dict]) -> list[dict]:
        return self.json("POST", "sync/push", json={"records": records})["results"]

    def push_raw(self, body: bytes) -> list[dict]:
        """Push a request body already serialised (records kept byte for byte)."""
        headers = {"Content-Type": "application/json"}
        return self.json("POST", "sync/push", data=body, headers=headers)["results"]

    def pull(self, cursor: str | None, limit: int | None = None) -> dict:
        params = {}
        if cursor:
            params["cursor"] = cursor
        if limit:
            params["limit"] = limit
        return self.json("GET", "sync/pull", params=params)

    def has_photo(self, sha256: str) -> bool:
        """Whether the server already stores this photo (``HEAD /photos/<sha256>``)."""
        try:
            self.request("HEAD", f"photos/{sha256}")
        except ApiFailure as exc:
            if exc.status == 404:
                return False
            raise
        return True
