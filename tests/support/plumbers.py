"""A verified plumber as the portal's tests drive one: an account with its license, logged
in; an application's form with the owner's consent; the steps staff take on it."""

from __future__ import annotations

import io
from datetime import timedelta

from PIL import Image
from sqlalchemy import select

from server.core import city
from server.core.accounts.models import User
from server.core.accounts.service import issue_token
from server.core.extensions import db
from server.portal import plumbers
from tests.support.portal import form_token

PASSWORD = "pipe wrench and a level"
#: A consent scanned to PDF: what the portal takes as one (its first bytes say so).
CONSENT_PDF = b"%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n"


def png() -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (40, 30), (200, 200, 190)).save(buf, "PNG")
    return buf.getvalue()


def add_plumber(username: str = "dkulig", name: str = "Dana Kulig", license_number: str = "MP-223344",
                verified: bool = True) -> User:
    """A plumber's account with a license valid for 300 days, verified by the clerk unless told not."""
    user = plumbers.register(plumbers.Registration(
        username=username, password=PASSWORD, name=name, license_number=license_number,
        expires_on=city.current().today() + timedelta(days=300), email=f"{username}@example.org",
        phone="608-555-0190", company="Kulig Plumbing"))
    if verified:
        clerk = db.session.scalar(select(User).filter_by(role="clerk"))
        plumbers.verify(user.id, clerk)
    db.session.commit()  # a request that rolls back goes back to here (in tests, a savepoint)
    return user


def logged_in(app, user: User):
    """A browser whose session is ``user``'s."""
    browser = app.test_client()
    r = browser.post("/login", data={"username": user.username, "password": PASSWORD})
    assert r.status_code == 302, r.get_data(as_text=True)
    return browser


def bearer(user: User) -> dict:
    return {"Authorization": f"Bearer {issue_token(user, 'pytest')[0]}"}


def application_form(parcel: str, **changes) -> dict:
    """The apply page's fields: a new 6-inch gravity connection, the owner's consent as a PDF."""
    form = {"parcel_number": parcel, "kind": "new_connection", "connection_kind": "gravity",
            "connection_size_in": "6.0", "wastes": "domestic sewage from a single-family dwelling",
            "owner_name": "Olive Owner", "consent_signed_on": city.current().today().isoformat(),
            "consent": (io.BytesIO(CONSENT_PDF), "consent.pdf")}
    form.update(changes)
    return {k: v for k, v in form.items() if v is not None}


def token(browser) -> str:
    """The session's CSRF token (the registration page's form carries it for anyone)."""
    return form_token(browser, "/portal/plumbers/register")


def apply_on_page(browser, parcel: str, **changes):
    data = {"csrf_token": token(browser), **application_form(parcel, **changes)}
    return browser.post("/portal/plumbers/apply", data=data, content_type="multipart/form-data")
