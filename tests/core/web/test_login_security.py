"""Logins an attacker cannot grind: throttling, equal work, the HTTP Basic cache, CSRF,
sessions that end on logout, tokens that lapse, and passwords people can change."""

from __future__ import annotations

import base64
import re
import socket
import uuid
from datetime import timedelta

import pytest
from sqlalchemy import select

from server.core.accounts import service as auth_service
from server.core.accounts.models import ApiToken, User
from server.core.audit.models import AuditEvent
from server.core.extensions import db
from server.core.models import as_utc, utcnow
from server.core.web import basic_cache
from server.core.web.proxies import TrustedProxies
from server.core.web.throttle import EXTENSION as THROTTLE
from server.core.web.throttle import LoginThrottle
from tests.support.databases import PASSWORD
from tests.support.features import feature

NEW_PASSWORD = "lantern orchard gravel 77"


def basic(username: str, password: str) -> dict:
    return {"Authorization": "Basic " + base64.b64encode(f"{username}:{password}".encode()).decode()}


@pytest.fixture
def hashes(monkeypatch):
    """Counts the password hashes checked (the slow scrypt)."""
    calls = []
    real = auth_service.check_password_hash

    def counting(stored, password):
        calls.append(stored)
        return real(stored, password)

    monkeypatch.setattr(auth_service, "check_password_hash", counting)
    return calls


@pytest.fixture
def throttle(app, monkeypatch):
    """A fresh throttle of 3 failures per username and 5 per address, in memory."""
    fresh = LoginThrottle.from_uri("memory://", "3 per 15 minutes", "5 per 15 minutes")
    monkeypatch.setitem(app.extensions, THROTTLE, fresh)
    return fresh


@pytest.fixture
def fresh_cache(app, monkeypatch):
    monkeypatch.setitem(app.extensions, basic_cache.EXTENSION, basic_cache.MemoryStore(300))


def token_post(client, username, password, **environ):
    return client.post("/api/v1/auth/token", json={"username": username, "password": password, "device_name": "t"},
                       environ_base=environ)


def new_user(username=None, role="inspector") -> User:
    return auth_service.create_user(username or f"u{uuid.uuid4().hex[:8]}", role, PASSWORD)


# ------------------------------------------------------------------ throttling


def test_a_username_is_throttled_after_its_failures_with_retry_after(client, throttle):
    for _ in range(3):
        assert token_post(client, "inspector1", "wrong").status_code == 401
    r = token_post(client, "inspector1", PASSWORD)  # even the right password now waits
    assert r.status_code == 429
    assert r.get_json()["error"]["code"] == "too_many_attempts"
    assert 0 < int(r.headers["Retry-After"]) <= 15 * 60
    # Another user from another address is not held up by it.
    assert token_post(client, "clerk1", PASSWORD, REMOTE_ADDR="10.0.0.9").status_code == 201


def test_the_login_form_and_basic_share_the_username_count(client, throttle, fresh_cache):
    assert client.post("/login", data={"username": "clerk1", "password": "bad"}).status_code == 401
    assert client.get("/api/v1/auth/me", headers=basic("clerk1", "bad")).status_code == 401
    assert token_post(client, "clerk1", "bad").status_code == 401
    r = client.post("/login", data={"username": "clerk1", "password": PASSWORD})
    assert r.status_code == 429 and "Retry-After" in r.headers
    r = client.get("/ogc/collections", headers=basic("clerk1", PASSWORD))
    assert r.status_code == 429 and "Retry-After" in r.headers


def test_an_address_is_throttled_across_usernames(client, throttle):
    for i in range(5):
        assert token_post(client, f"nobody{i}", "guess").status_code == 401
    assert token_post(client, "admin1", PASSWORD).status_code == 429
    assert token_post(client, "admin1", PASSWORD, REMOTE_ADDR="10.0.0.7").status_code == 201


def _redis_up() -> bool:
    try:
        socket.create_connection(("127.0.0.1", 6379), timeout=0.5).close()
        return True
    except OSError:
        return False


@pytest.mark.skipif(not _redis_up(), reason="no Redis on 127.0.0.1:6379")
def test_hosts_sharing_redis_count_failures_together(app, client, monkeypatch):
    """Two throttles on one Redis stand for two hosts: failures on one hold on the other."""
    host_a, host_b = (LoginThrottle.from_uri("redis://127.0.0.1:6379/15", "2 per 15 minutes", "50 per minute")
                      for _ in "ab")
    username = f"guess-{uuid.uuid4().hex}"
    monkeypatch.setitem(app.extensions, THROTTLE, host_a)
    assert token_post(client, username, "x", REMOTE_ADDR="10.1.0.1").status_code == 401
    monkeypatch.setitem(app.extensions, THROTTLE, host_b)
    assert token_post(client, username, "x", REMOTE_ADDR="10.1.0.2").status_code == 401
    monkeypatch.setitem(app.extensions, THROTTLE, host_a)
    assert token_post(client, username, "x", REMOTE_ADDR="10.1.0.3").status_code == 429


@pytest.mark.parametrize("who", ["unknown", "disabled", "wrong password", "right password"])
def test_every_login_pays_one_password_hash(client, hashes, who):
    """Unknown and disabled users cost what real ones do, so timing names nobody."""
    user = new_user()
    if who == "disabled":
        user.active = False
    db.session.flush()
    username = "no-such-user" if who == "unknown" else user.username
    password = PASSWORD if who in ("right password", "disabled") else "wrong password!"
    r = token_post(client, username, password)
    assert r.status_code == (201 if who == "right password" else 401)
    assert len(hashes) == 1


# ------------------------------------------------------------------ HTTP Basic cache


def test_basic_pays_the_hash_once_per_credential(client, hashes, fresh_cache):
    for _ in range(5):
        assert client.get("/api/v1/auth/me", headers=basic("inspector1", PASSWORD)).status_code == 200
    assert len(hashes) == 1
    # Another password for the same user is a different credential: checked, and refused.
    assert client.get("/api/v1/auth/me", headers=basic("inspector1", "not it at all")).status_code == 401
    assert len(hashes) == 2


def test_the_cache_stores_no_password(client, app, fresh_cache):
    client.get("/api/v1/auth/me", headers=basic("inspector1", PASSWORD))
    stored = app.extensions[basic_cache.EXTENSION]._entries
    assert len(stored) == 1
    key, value = next(iter(stored.items()))
    assert PASSWORD not in key and re.fullmatch(r"[0-9a-f]{64}", key) and re.fullmatch(r"\d+:\d+", value)


def test_a_password_change_ends_cached_basic_logins(client, auth, fresh_cache):
    user = new_user()
    db.session.flush()
    old = basic(user.username, PASSWORD)
    assert client.get("/api/v1/auth/me", headers=old).status_code == 200
    r = client.post("/api/v1/auth/password", headers=old,
                    json={"current_password": PASSWORD, "new_password": NEW_PASSWORD})
    assert r.status_code == 204
    assert client.get("/api/v1/auth/me", headers=old).status_code == 401
    assert client.get("/api/v1/auth/me", headers=basic(user.username, NEW_PASSWORD)).status_code == 200


def test_disabling_a_user_ends_cached_basic_logins(client, auth, fresh_cache):
    user = new_user()
    db.session.flush()
    creds = basic(user.username, PASSWORD)
    assert client.get("/api/v1/auth/me", headers=creds).status_code == 200
    assert client.patch(f"/api/v1/users/{user.id}", json={"active": False}, headers=auth["admin"]).status_code == 200
    assert client.get("/api/v1/auth/me", headers=creds).status_code == 401


def test_a_zero_lifetime_turns_the_cache_off(client, hashes, app, monkeypatch):
    monkeypatch.setitem(app.extensions, basic_cache.EXTENSION, basic_cache.make_store("memory://", 0))
    for _ in range(3):
        client.get("/api/v1/auth/me", headers=basic("inspector1", PASSWORD))
    assert len(hashes) == 3


@pytest.mark.skipif(not _redis_up(), reason="no Redis on 127.0.0.1:6379")
def test_hosts_sharing_redis_share_checked_credentials(client, hashes, app, monkeypatch):
    url = "redis://127.0.0.1:6379/15"
    host_a, host_b = basic_cache.make_store(url, 60), basic_cache.make_store(url, 60)
    user = new_user()
    db.session.flush()
    creds = basic(user.username, PASSWORD)
    monkeypatch.setitem(app.extensions, basic_cache.EXTENSION, host_a)
    assert client.get("/api/v1/auth/me", headers=creds).status_code == 200
    monkeypatch.setitem(app.extensions, basic_cache.EXTENSION, host_b)
    assert client.get("/api/v1/auth/me", headers=creds).status_code == 200
    assert len(hashes) == 1


# ------------------------------------------------------------------ CSRF


def login(client, username="superintendent1", password=PASSWORD):
    r = client.post("/login", data={"username": username, "password": password})
    assert r.status_code == 302
    page = client.get("/").get_data(as_text=True)
    return re.search(r'<meta name="csrf-token" content="([^"]+)"', page).group(1)


def test_a_cookie_only_api_write_from_a_foreign_page_is_refused(client):
    login(client)
    before = db.session.scalar(select(AuditEvent.id).order_by(AuditEvent.id.desc()).limit(1))
    r = client.post("/api/v1/findings", json=feature("findings"), headers={"Origin": "https://evil.example"})
    assert r.status_code == 403
    assert r.get_json()["error"]["code"] == "csrf_failed"
    assert db.session.scalar(select(AuditEvent.id).order_by(AuditEvent.id.desc()).limit(1)) == before


def test_a_wrong_csrf_token_is_refused(client):
    login(client)
    r = client.post("/api/v1/findings", json=feature("findings"), headers={"X-CSRF-Token": "guessed"})
    assert r.status_code == 403


def test_the_page_token_lets_the_session_write(client):
    token = login(client)
    r = client.post("/api/v1/findings", json=feature("findings"), headers={"X-CSRF-Token": token})
    assert r.status_code == 201


def test_reads_and_token_writes_need_no_csrf_token(client, auth):
    login(client)
    assert client.get("/api/v1/auth/me").status_code == 200
    assert client.post("/api/v1/findings", json=feature("findings"), headers=auth["inspector"]).status_code == 201


# ------------------------------------------------------------------ sessions and tokens


def test_logout_ends_the_session_on_the_server(client):
    token = login(client)
    stolen = client.get_cookie("session").value
    assert client.post("/logout", data={"csrf_token": token}).status_code == 302
    client.set_cookie("session", stolen)
    assert client.get("/api/v1/auth/me").status_code == 401
    assert client.get("/desk/").status_code == 302  # back to the login form


def test_the_cookie_is_secure_when_the_setting_says_so(client, app, monkeypatch):
    monkeypatch.setitem(app.config, "SESSION_COOKIE_SECURE", True)
    r = client.post("/login", data={"username": "clerk1", "password": PASSWORD})
    assert "Secure" in r.headers["Set-Cookie"]


def test_behind_a_proxy_the_forwarded_address_is_throttled(tmp_path):
    from server import create_app
    from server.core.access import PUBLIC, access

    app = create_app({"SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path / 'x.sqlite'}", "TESTING": True,
                      "SECRET_KEY": "test", "LATERAL_BEHIND_PROXY": True})
    assert isinstance(app.wsgi_app, TrustedProxies)
    seen = {}

    @app.route("/_probe")
    @access(PUBLIC)  # the test's own route, declared
    def _probe():
        from flask import request

        seen.update(scheme=request.scheme, addr=request.remote_addr)
        return ""

    app.test_client().get("/_probe", headers={"X-Forwarded-Proto": "https", "X-Forwarded-For": "203.0.113.5"})
    assert seen == {"scheme": "https", "addr": "203.0.113.5"}


def _token(client, username="inspector1"):
    r = token_post(client, username, PASSWORD)
    return r.get_json()["token_id"], {"Authorization": f"Bearer {r.get_json()['token']}"}


@pytest.mark.parametrize("idle_days, status", [(89, 200), (91, 401)])
def test_a_token_lapses_after_its_idle_time(client, idle_days, status):
    tid, headers = _token(client)
    db.session.get(ApiToken, tid).last_used_at = utcnow() - timedelta(days=idle_days)
    db.session.flush()
    r = client.get("/api/v1/auth/me", headers=headers)
    assert r.status_code == status


def test_a_lapsed_token_answers_like_a_revoked_one(client):
    """The field app logs in again on this 401, as it does for a revoked token."""
    idle_id, idle = _token(client)
    revoked_id, revoked = _token(client)
    db.session.get(ApiToken, idle_id).last_used_at = utcnow() - timedelta(days=200)
    db.session.get(ApiToken, revoked_id).revoked_at = utcnow()
    db.session.flush()
    a, b = client.get("/api/v1/parcels", headers=idle), client.get("/api/v1/parcels", headers=revoked)
    assert a.status_code == b.status_code == 401
    assert a.get_json() == b.get_json()


def test_a_token_use_is_recorded_at_most_hourly(client):
    tid, headers = _token(client)
    client.get("/api/v1/auth/me", headers=headers)
    first = db.session.get(ApiToken, tid).last_used_at
    assert first is not None
    client.get("/api/v1/auth/me", headers=headers)
    db.session.expire_all()
    assert db.session.get(ApiToken, tid).last_used_at == first
    db.session.get(ApiToken, tid).last_used_at = utcnow() - timedelta(hours=2)
    db.session.flush()
    client.get("/api/v1/auth/me", headers=headers)
    db.session.expire_all()
    assert utcnow() - as_utc(db.session.get(ApiToken, tid).last_used_at) < timedelta(minutes=5)


# ------------------------------------------------------------------ passwords


@pytest.mark.parametrize("password, says", [
    ("short", "at least 10"),
    (" " * 10, "at least 10"),
    ("password123", "common"),
    ("qwertyuiop", "common"),
    ("aaaaaaaaaaaa", "easy to guess"),
])
def test_weak_passwords_are_refused_with_a_reason(client, auth, password, says):
    r = client.post("/api/v1/users", headers=auth["admin"],
                    json={"username": "weakling", "role": "inspector", "password": password})
    assert r.status_code == 422
    body = r.get_json()["error"]
    assert body["code"] == "weak_password" and says in body["message"]
    assert db.session.scalar(select(User.id).where(User.username == "weakling")) is None


def test_changing_ones_own_password_needs_the_current_one(client):
    user = new_user()
    db.session.flush()
    _, headers = _token(client, user.username)
    r = client.post("/api/v1/auth/password", headers=headers,
                    json={"current_password": "not my password", "new_password": NEW_PASSWORD})
    assert r.status_code == 401
    r = client.post("/api/v1/auth/password", headers=headers,
                    json={"current_password": PASSWORD, "new_password": " " * 10})
    assert r.status_code == 422 and r.get_json()["error"]["code"] == "weak_password"
    r = client.post("/api/v1/auth/password", headers=headers,
                    json={"current_password": PASSWORD, "new_password": NEW_PASSWORD})
    assert r.status_code == 204
    assert token_post(client, user.username, PASSWORD).status_code == 401
    assert token_post(client, user.username, NEW_PASSWORD).status_code == 201
    # The device token survives; the change is audited without any password in it.
    assert client.get("/api/v1/auth/me", headers=headers).status_code == 200
    event = db.session.scalars(select(AuditEvent).where(AuditEvent.action == "set_password",
                                                        AuditEvent.subject_id == user.id)).one()
    assert PASSWORD not in str(event.after) and NEW_PASSWORD not in str(event.after)


@pytest.mark.parametrize("role, status", [("admin", 204), ("superintendent", 403), ("inspector", 403)])
def test_only_an_admin_resets_a_password(client, auth, role, status):
    user = new_user()
    db.session.flush()
    r = client.post(f"/api/v1/users/{user.id}/password", headers=auth[role], json={"password": NEW_PASSWORD})
    assert r.status_code == status
    assert (token_post(client, user.username, NEW_PASSWORD).status_code == 201) == (status == 204)


def test_the_password_page_changes_it_and_keeps_this_browser_logged_in(client):
    user = new_user()
    db.session.flush()
    token = login(client, user.username)
    assert client.get("/account/password").status_code == 200
    r = client.post("/account/password", data={"csrf_token": token, "current_password": PASSWORD,
                                                "new_password": NEW_PASSWORD, "confirm_password": NEW_PASSWORD})
    assert r.status_code == 302
    assert client.get("/api/v1/auth/me").status_code == 200
    assert token_post(client, user.username, NEW_PASSWORD).status_code == 201


def test_the_password_page_refuses_a_weak_one(client):
    user = new_user()
    db.session.flush()
    token = login(client, user.username)
    r = client.post("/account/password", data={"csrf_token": token, "current_password": PASSWORD,
                                                "new_password": "qwertyuiop", "confirm_password": "qwertyuiop"})
    assert r.status_code == 422 and "common" in r.get_data(as_text=True)


def test_the_command_line_sets_a_password(app):
    user = new_user()
    db.session.flush()
    runner = app.test_cli_runner()
    result = runner.invoke(args=["users", "set-password", user.username, "--password-stdin"],
                           input=NEW_PASSWORD + "\n")
    assert result.exit_code == 0, result.output
    assert auth_service.check_login(user.username, NEW_PASSWORD).id == user.id
    result = runner.invoke(args=["users", "set-password", user.username, "--password-stdin"], input="1234567890\n")
    assert result.exit_code != 0 and "guess" in result.output


def test_pages_say_when_the_database_is_a_demo(client):
    assert "Demo database" not in client.get("/login").get_data(as_text=True)
    auth_service.mark_demo_database()
    db.session.flush()
    assert "Demo database" in client.get("/login").get_data(as_text=True)


@pytest.mark.parametrize("key", ["dev", "test", "changeme", "short-key"])
def test_the_app_refuses_to_start_with_a_default_secret_key(tmp_path, key):
    from server import create_app

    with pytest.raises(RuntimeError, match="SECRET_KEY"):
        create_app({"SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path / 'x.sqlite'}", "SECRET_KEY": key})
    assert create_app({"SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path / 'x.sqlite'}", "SECRET_KEY": key,
                       "DEBUG": True})


def test_an_undeclared_method_is_405_before_any_login(client):
    r = client.put("/api/v1/health")
    assert r.status_code == 405
    assert "GET" in r.headers["Allow"]


def test_token_times_carry_their_utc_offset(client, auth):
    client.get("/api/v1/auth/me", headers=auth["inspector"])  # records a last use
    tokens = client.get("/api/v1/auth/tokens", headers=auth["inspector"]).get_json()
    assert tokens and all(t["created_at"].endswith("+00:00") for t in tokens)
    assert any((t["last_used_at"] or "").endswith("+00:00") for t in tokens)
