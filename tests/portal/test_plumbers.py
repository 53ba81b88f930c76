"""Plumbers' accounts: registration with the Wisconsin license, disabled until the clerk
verifies it; an expired license refused, and blocking new applications; plumbers are no staff."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select

from server.core import city
from server.core.accounts.models import User
from server.core.extensions import db
from server.portal import plumbers
from server.portal.models import PlumberLicense
from tests.support.office import audit_rows
from tests.support.portal import form_token

PASSWORD = "pipe wrench and a level"


def _form(**extra) -> dict:
    return {"name": "Dana Kulig", "company": "Kulig Plumbing", "license_number": "mp-223344",
            "expires_on": (city.current().today() + timedelta(days=300)).isoformat(), "email": "dana@example.org",
            "phone": "608-555-0190", "username": "dkulig", "password": PASSWORD, **extra}


def _register(browser, **extra):
    return browser.post("/portal/plumbers/register",
                        data={"csrf_token": form_token(browser, "/portal/plumbers/register"), **_form(**extra)})


def _login(browser, username="dkulig", password=PASSWORD):
    return browser.post("/login", data={"username": username, "password": password})


def test_a_registered_plumber_cannot_log_in_until_the_clerk_verifies(app, office):
    browser = app.test_client()
    r = _register(browser)
    assert r.status_code == 200 and "The clerk will check your license" in r.get_data(as_text=True)
    user = db.session.scalar(select(User).filter_by(username="dkulig"))
    lic = db.session.scalar(select(PlumberLicense).filter_by(user_id=user.id))
    assert (user.role, user.active, lic.license_number) == ("plumber", False, "MP-223344")
    assert _login(browser).status_code != 302  # refused
    clerk = office("clerk1")
    assert f'data-plumber="{user.id}"' in clerk.get("/plumbers/").get_data(as_text=True)
    assert clerk.post(f"/plumbers/{user.id}/verify").status_code == 302
    assert user.active and lic.verified_at is not None
    assert _login(browser).status_code == 302
    page = browser.get("/portal/plumbers/").get_data(as_text=True)
    assert "MP-223344" in page and "You may apply for new permits" in page


def test_an_expired_license_is_refused_and_nothing_kept(app):
    before = audit_rows()
    r = _register(app.test_client(), expires_on=(city.current().today() - timedelta(days=1)).isoformat())
    assert r.status_code == 422 and "expired" in r.get_data(as_text=True)
    assert audit_rows() == before and db.session.scalar(select(User).filter_by(username="dkulig")) is None


@pytest.mark.parametrize(("field", "value"), [("license_number", "not a license"), ("email", "nobody"),
                                              ("expires_on", "someday"), ("password", "short")])
def test_bad_input_is_refused_with_nothing_written(app, field, value):
    before = audit_rows()
    assert _register(app.test_client(), **{field: value}).status_code == 422
    assert audit_rows() == before


def test_a_license_that_expires_after_verification_blocks_new_applications(app, office):
    _register(app.test_client())
    user = db.session.scalar(select(User).filter_by(username="dkulig"))
    office("clerk1").post(f"/plumbers/{user.id}/verify")
    assert plumbers.may_apply(user) == (True, "")
    plumbers.license_of(user).expires_on = city.current().today() - timedelta(days=1)
    allowed, why = plumbers.may_apply(user)
    assert not allowed and "expired" in why


def test_an_expired_license_cannot_be_verified(app, office):
    _register(app.test_client())
    user = db.session.scalar(select(User).filter_by(username="dkulig"))
    plumbers.license_of(user).expires_on = city.current().today() - timedelta(days=1)
    office("clerk1").post(f"/plumbers/{user.id}/verify")
    assert not user.active


def test_a_plumber_opens_no_staff_page(client, auth):
    assert client.get("/api/v1/notices", headers=auth["plumber"]).status_code == 403
    assert client.get("/api/v1/rules", headers=auth["plumber"]).status_code == 403
