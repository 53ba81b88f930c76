"""Throttling without handing attackers a lockout (issue 30): a hard limit per username and
address, a slow-down per username across addresses that a known device skips, and counters
that every worker shares through the database."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import uuid

import pytest

from server.core.accounts import service as auth_service
from server.core.extensions import db
from server.core.web.throttle import DEVICE_COOKIE, LoginThrottle
from server.core.web.throttle import EXTENSION as THROTTLE
from tests.support.databases import PASSWORD, make_migrated_app
from tests.support.env import REPO_ROOT


@pytest.fixture
def lockout_throttle(app, monkeypatch):
    """3 failures per username (and address), 50 per address, a slow-down of at most 30 s; in memory."""
    fresh = LoginThrottle.from_uri("memory://", "3 per 15 minutes", "50 per 15 minutes", slowdown_max=30)
    monkeypatch.setitem(app.extensions, THROTTLE, fresh)
    return fresh


def user() -> str:
    name = f"u{uuid.uuid4().hex[:8]}"
    auth_service.create_user(name, "inspector", PASSWORD)
    db.session.commit()  # a savepoint under the test's transaction
    return name


def token_post(client, username, password, address, headers=None):
    return client.post("/api/v1/auth/token", json={"username": username, "password": password, "device_name": "t"},
                       environ_base={"REMOTE_ADDR": address}, headers=headers or {})


def attack(client, username: str, tries: int = 6) -> None:
    """Wrong passwords from as many addresses as tries: no address reaches a limit of its own."""
    for i in range(tries):
        token_post(client, username, f"guess {i}", f"198.51.100.{i + 1}")


def test_anonymous_guesses_from_many_addresses_slow_the_username_down_not_lock_it(app, lockout_throttle):
    name = user()
    attack(app.test_client(), name)
    r = token_post(app.test_client(), name, PASSWORD, "192.0.2.10")
    assert r.status_code == 429
    assert int(r.headers["Retry-After"]) <= 30  # a slow-down, not 15 minutes


def test_a_device_that_logged_in_before_is_let_through(app, lockout_throttle):
    name = user()
    tablet = app.test_client()
    assert token_post(tablet, name, PASSWORD, "192.0.2.10").status_code == 201
    assert tablet.get_cookie(DEVICE_COOKIE) is not None
    attack(app.test_client(), name)
    assert token_post(tablet, name, PASSWORD, "192.0.2.11").status_code == 201


def test_a_forged_device_cookie_is_no_pass(app, lockout_throttle):
    name = user()
    attack(app.test_client(), name)
    stranger = app.test_client()
    stranger.set_cookie(DEVICE_COOKIE, "e30.forged.signature")
    assert token_post(stranger, name, PASSWORD, "192.0.2.12").status_code == 429


def test_a_token_once_issued_to_the_user_is_a_known_device(app, lockout_throttle):
    name = user()
    old = token_post(app.test_client(), name, PASSWORD, "192.0.2.10").get_json()["token"]
    attack(app.test_client(), name)
    r = token_post(app.test_client(), name, PASSWORD, "192.0.2.13", headers={"Authorization": f"Bearer {old}"})
    assert r.status_code == 201


def test_guesses_from_one_address_hit_the_hard_limit_there_only(app, lockout_throttle):
    name = user()
    guesser = app.test_client()
    for i in range(3):
        assert token_post(guesser, name, f"guess {i}", "198.51.100.7").status_code == 401
    r = token_post(guesser, name, PASSWORD, "198.51.100.7")
    assert r.status_code == 429 and int(r.headers["Retry-After"]) > 60
    # The user at their own address, even on a new device, waits a few seconds at most.
    assert int(token_post(app.test_client(), name, PASSWORD, "192.0.2.20").headers.get("Retry-After", 0)) <= 30


def test_a_refused_login_writes_its_failure_in_the_database(app):
    """The default counters are rows every worker reads; the failed request's own rollback keeps them."""
    from server.core.web.login_failures import LoginFailure

    name = user()
    assert token_post(app.test_client(), name, "wrong", "198.51.100.9").status_code == 401
    keys = set(db.session.scalars(db.select(LoginFailure.key).where(LoginFailure.key.contains(name))))
    assert keys == {f"pair:{name}|198.51.100.9", f"username:{name}"}


WORKER = textwrap.dedent("""
    import sys
    from server import create_app
    app = create_app({"SQLALCHEMY_DATABASE_URI": sys.argv[1], "TESTING": True, "SECRET_KEY": "test",
                      "LOGIN_FAILURES_PER_USERNAME": "3 per 15 minutes"})
    client = app.test_client()
    for i in range(3):
        r = client.post("/api/v1/auth/token", json={"username": sys.argv[2], "password": f"guess {i}",
                        "device_name": "t"}, environ_base={"REMOTE_ADDR": "198.51.100.77"})
        assert r.status_code == 401, r.get_json()
""")


def test_two_worker_processes_count_failures_together(db_kind, tmp_path):
    """Another process (a second gunicorn worker) fails three times; this one then refuses the fourth."""
    app, drop = make_migrated_app(db_kind, tmp_path, LOGIN_FAILURES_PER_USERNAME="3 per 15 minutes")
    try:
        with app.app_context():
            auth_service.create_user("worker-guessed", "inspector", PASSWORD)
            db.session.commit()
            url = db.engine.url.render_as_string(hide_password=False)
        env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
        done = subprocess.run([sys.executable, "-c", WORKER, url, "worker-guessed"], env=env, cwd=REPO_ROOT,
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr[-2000:]
        with app.app_context():
            r = token_post(app.test_client(), "worker-guessed", PASSWORD, "198.51.100.77")
            assert r.status_code == 429, r.get_json()
            db.session.remove()
            db.engine.dispose()
    finally:
        if drop:
            drop()
