"""Cross-site request forgery: a per-session token that a foreign page cannot read.

The token is made when someone logs in and kept in the signed session cookie. Pages
carry it in ``<meta name="csrf-token">`` (``base.html``) and in their forms; the
browser scripts send it as ``X-CSRF-Token`` with every API write. A cookie-only write
without it is refused with 403 ``csrf_failed``. ``SameSite=Lax`` stays as a second wall.
"""

from __future__ import annotations

import hmac
import secrets

from flask import request, session

from server.core.errors import LateralError

HEADER = "X-CSRF-Token"


def new_token() -> str:
    session["csrf_token"] = secrets.token_urlsafe(32)
    return session["csrf_token"]


def csrf_token() -> str:
    """This session's token (made on first use, for sessions older than this check)."""
    return session.get("csrf_token") or new_token()


def matches(sent: str | None) -> bool:
    expected = session.get("csrf_token", "")
    return bool(expected) and hmac.compare_digest((sent or "").encode(), expected.encode())


def stale_form() -> LateralError:
    """The refusal of a page's form posted without this session's token (an old page, or another site's)."""
    return LateralError("bad_request",
                        "the form is stale or was not sent from this site; reload the page and try again")


def check_header() -> None:
    """Refuse a cookie-authenticated write that does not carry the session's token."""
    if not matches(request.headers.get(HEADER)):
        raise LateralError("csrf_failed",
                           f"this request was not sent by a Lateral page: send the session's token in {HEADER} "
                           "(pages carry it in <meta name=\"csrf-token\">), or use an API token",
                           {"header": HEADER})
