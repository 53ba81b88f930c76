"""What ends when a password changes or a user is disabled, how long a token lives, who
stays an administrator, and a logout that always ends the session (issue 30)."""

from __future__ import annotations

import re
import uuid
from datetime import timedelta

import pytest

from server.core.accounts import service as auth_service
from server.core.accounts.models import ApiToken, User
from server.core.extensions import db
from server.core.models import utcnow
from server.core.web.throttle import EXTENSION as THROTTLE
from server.core.web.throttle import LoginThrottle
from tests.support.databases import PASSWORD

NEW_PASSWORD = "lantern orchard gravel 77"


def new_user(role: str = "inspector") -> User:
    user = auth_service.create_user(f"u{uuid.uuid4().hex[:8]}", role, PASSWORD)
    db.session.commit()  # a savepoint under the test's transaction: a refused request's rollback keeps it
    return user


def bearer(client, username: str, device: str = "tablet") -> tuple[int, dict]:
    r = client.post("/api/v1/auth/token", json={"username": username, "password": PASSWORD, "device_name": device})
    assert r.status_code == 201, r.get_json()
    return r.get_json()["token_id"], {"Authorization": f"Bearer {r.get_json()['token']}"}


def web_login(client, username: str) -> str:
    assert client.post("/login", data={"username": username, "password": PASSWORD}).status_code == 302
    return re.search(r'name="csrf-token" content="([^"]+)"', client.get("/").get_data(as_text=True)).group(1)


def me(client, headers=None) -> int:
    return client.get("/api/v1/auth/me", headers=headers or {}).status_code


# ------------------------------------------------------------------ revocation


def test_an_admin_reset_revokes_every_token_of_the_user(client, auth):
    user = new_user()
    _, tablet = bearer(client, user.username, "tablet")
    _, laptop = bearer(client, user.username, "laptop")
    r = client.post(f"/api/v1/users/{user.id}/password", headers=auth["admin"], json={"password": NEW_PASSWORD})
    assert r.status_code == 204
    assert (me(client, tablet), me(client, laptop)) == (401, 401)


def test_a_self_service_change_keeps_only_the_callers_token(client):
    user = new_user()
    _, stolen = bearer(client, user.username, "the stolen tablet")
    _, mine = bearer(client, user.username, "my phone")
    r = client.post("/api/v1/auth/password", headers=mine,
                    json={"current_password": PASSWORD, "new_password": NEW_PASSWORD})
    assert r.status_code == 204
    assert me(client, mine) == 200
    assert me(client, stolen) == 401


def test_the_password_page_revokes_tokens_and_keeps_this_browser(app):
    user = new_user()
    other = app.test_client()
    _, tablet = bearer(other, user.username)
    browser = app.test_client()
    token = web_login(browser, user.username)
    elsewhere = app.test_client()
    web_login(elsewhere, user.username)
    r = browser.post("/account/password", data={"csrf_token": token, "current_password": PASSWORD,
                                                 "new_password": NEW_PASSWORD, "confirm_password": NEW_PASSWORD})
    assert r.status_code == 302
    assert me(browser) == 200
    assert me(elsewhere) == 401
    assert me(other, tablet) == 401


def test_disabling_a_user_revokes_their_tokens(client, auth):
    user = new_user()
    tid, tablet = bearer(client, user.username)
    assert client.patch(f"/api/v1/users/{user.id}", headers=auth["admin"], json={"active": False}).status_code == 200
    assert db.session.get(ApiToken, tid).revoked_at is not None
    assert client.patch(f"/api/v1/users/{user.id}", headers=auth["admin"], json={"active": True}).status_code == 200
    assert me(client, tablet) == 401  # enabling again does not bring a token back


@pytest.mark.parametrize("age_days, status", [(89, 200), (91, 401)])
def test_a_token_in_daily_use_still_ends_at_its_lifetime(client, age_days, status):
    user = new_user()
    tid, headers = bearer(client, user.username)
    token = db.session.get(ApiToken, tid)
    token.created_at = utcnow() - timedelta(days=age_days)
    token.last_used_at = utcnow()  # used today: only the lifetime can end it
    db.session.flush()
    r = client.get("/api/v1/auth/me", headers=headers)
    assert r.status_code == status
    if status == 401:
        assert "log in again" in r.get_json()["error"]["message"]


def test_a_new_token_says_when_it_ends(client):
    user = new_user()
    r = client.post("/api/v1/auth/token", json={"username": user.username, "password": PASSWORD,
                                                 "device_name": "tablet"})
    expires = r.get_json()["expires_at"]
    assert expires.startswith((utcnow() + timedelta(days=90)).date().isoformat())


# ------------------------------------------------------------------ the current-password check


@pytest.fixture
def password_throttle(app, monkeypatch):
    fresh = LoginThrottle.from_uri("memory://", "3 per 15 minutes", "50 per 15 minutes")
    monkeypatch.setitem(app.extensions, THROTTLE, fresh)
    return fresh


def test_guessing_the_current_password_is_throttled_like_a_login(client, password_throttle):
    user = new_user()
    _, headers = bearer(client, user.username)
    codes = [client.post("/api/v1/auth/password", headers=headers,
                         json={"current_password": f"guess {i}", "new_password": NEW_PASSWORD}).status_code
             for i in range(4)]
    assert codes == [401, 401, 401, 429]
    r = client.post("/api/v1/auth/password", headers=headers,
                    json={"current_password": PASSWORD, "new_password": NEW_PASSWORD})
    assert r.status_code == 429 and "Retry-After" in r.headers


def test_the_password_page_is_throttled_too(client, password_throttle):
    user = new_user()
    token = web_login(client, user.username)
    form = {"csrf_token": token, "new_password": NEW_PASSWORD, "confirm_password": NEW_PASSWORD}
    codes = [client.post("/account/password", data={**form, "current_password": f"guess {i}"}).status_code
             for i in range(4)]
    assert codes == [401, 401, 401, 429]


# ------------------------------------------------------------------ the last administrator


def only_admin() -> User:
    """A new administrator, the only active one (the others are disabled here)."""
    for other in db.session.query(User).filter(User.role == "admin").all():
        other.active = False
    return new_user("admin")


def test_the_last_admin_cannot_demote_themselves(client):
    admin = only_admin()
    _, headers = bearer(client, admin.username)
    r = client.patch(f"/api/v1/users/{admin.id}", headers=headers, json={"role": "clerk"})
    assert r.status_code == 422 and r.get_json()["error"]["code"] == "last_admin"
    db.session.expire_all()
    assert db.session.get(User, admin.id).role == "admin"


def test_the_last_admin_cannot_be_disabled_from_the_command_line_either(app):
    admin = only_admin()
    with pytest.raises(auth_service.AuthError) as caught:
        auth_service.update_user(admin, {"active": False}, None)
    assert caught.value.code == "last_admin"
    assert admin.active


def test_an_admin_may_step_down_while_another_remains(client):
    admin = new_user("admin")
    _, headers = bearer(client, admin.username)
    r = client.patch(f"/api/v1/users/{admin.id}", headers=headers, json={"role": "clerk"})
    assert r.status_code == 200 and r.get_json()["role"] == "clerk"


# ------------------------------------------------------------------ logout


def test_a_logout_with_a_stale_form_token_still_ends_the_session(client):
    user = new_user()
    web_login(client, user.username)
    stolen = client.get_cookie("session").value
    assert client.post("/logout", data={"csrf_token": "from a tab left open"}).status_code == 302
    client.set_cookie("session", stolen)
    assert me(client) == 401
