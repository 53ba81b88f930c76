"""What the portal adds to a notice's letter: a new lookup code, the portal's address and
a QR code of the two, heard through :mod:`server.notices.events` as the letter is printed."""

from __future__ import annotations

from flask import Flask, has_request_context, url_for

from server.core import settings
from server.field.events import connect as connect_signal
from server.notices import events
from server.notices.letters.documents import PortalInvite
from server.notices.models import Notice
from server.portal.lookup import issue

START = "portal_pages.start"


def portal_address() -> str:
    """Where owners find the portal: ``LATERAL_PORTAL_URL``, else this server's /portal/."""
    configured = settings.current().portal_url
    if configured:
        return configured
    return url_for(START, _external=True) if has_request_context() else "/portal/"


def invite(_app, *, notice: Notice) -> PortalInvite:
    """A new code for ``notice``'s letter. The QR code carries it after ``#``, which a
    browser never sends to the server (nor to logs or referrers): the page's script fills
    the form with it."""
    code, address = issue(notice), portal_address()
    return PortalInvite(address=address, code=code, qr=f"{address}#code={code}")


def connect(app: Flask) -> None:
    connect_signal(app, events.letter_printing, invite)
