"""Logins seeded with the published demo password (issue 30): outside a demo database their
first login must set a new password, and ``flask doctor`` fails while they keep it."""

from __future__ import annotations

import re
import uuid

import pytest

from server.core.accounts import service as auth_service
from server.core.accounts.models import User
from server.core.extensions import db
from server.operations import doctor

PUBLISHED = "arcadia-demo"
NEW_PASSWORD = "lantern orchard gravel 77"


@pytest.fixture
def seeded(app) -> User:
    """A login made as the demo seed makes them: the published password, no policy."""
    user = auth_service.create_user(f"seeded{uuid.uuid4().hex[:6]}", "superintendent", PUBLISHED,
                                    enforce_policy=False)
    db.session.commit()
    return user


def demo(app) -> None:
    auth_service.mark_demo_database()
    db.session.commit()


def published_login_problem(app) -> bool:
    return any(f.check == "published logins" and not f.ok for f in doctor.run_checks(app))


def test_doctor_fails_while_a_published_password_is_kept_outside_the_demo(app, seeded):
    assert published_login_problem(app)
    assert seeded.username in doctor.check_published_logins(app).message


def test_doctor_accepts_the_published_logins_of_the_demo_city(app, seeded):
    demo(app)
    assert not published_login_problem(app)


def test_doctor_is_content_once_the_password_is_set(app, seeded):
    auth_service.set_password(seeded, NEW_PASSWORD, None)
    db.session.commit()
    assert not published_login_problem(app)


def test_a_published_login_gets_no_token_outside_the_demo(client, seeded):
    r = client.post("/api/v1/auth/token", json={"username": seeded.username, "password": PUBLISHED,
                                                 "device_name": "tablet"})
    assert r.status_code == 403 and r.get_json()["error"]["code"] == "password_change_required"


def test_its_first_login_must_set_a_new_password(client, seeded):
    r = client.post("/login", data={"username": seeded.username, "password": PUBLISHED})
    assert r.status_code == 302 and r.headers["Location"].endswith("/account/password")
    assert client.get("/desk/").headers["Location"].endswith("/account/password")
    assert client.get("/api/v1/auth/me").status_code == 403
    token = re.search(r'name="csrf-token" content="([^"]+)"', client.get("/account/password").get_data(as_text=True))
    r = client.post("/account/password", data={"csrf_token": token.group(1), "current_password": PUBLISHED,
                                                "new_password": NEW_PASSWORD, "confirm_password": NEW_PASSWORD})
    assert r.status_code == 302
    assert client.get("/api/v1/auth/me").status_code == 200


def test_the_demo_city_logs_in_with_its_published_password(client, seeded):
    demo(client.application)
    r = client.post("/api/v1/auth/token", json={"username": seeded.username, "password": PUBLISHED,
                                                 "device_name": "tablet"})
    assert r.status_code == 201
