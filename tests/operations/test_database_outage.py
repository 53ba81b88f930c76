"""The database going away in the middle of a sync: a clean 503, then nothing broken or lost."""

from __future__ import annotations

import pytest
from flask_migrate import upgrade
from sqlalchemy import create_engine, func, select, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import OperationalError

from server import create_app
from server.core import dialects
from server.core.extensions import db
from tests.support.database_gate import DatabaseGate
from tests.support.databases import PASSWORD, POSTGIS_ADMIN_URL, postgis_database
from tests.support.sync import record, sump_pump, survey


@pytest.fixture
def gated_app(tmp_path):
    """An app whose PostgreSQL is reached through a gate the test can shut."""
    url, drop = postgis_database()
    gate = DatabaseGate(make_url(url).port or 5432)
    app = create_app({"SQLALCHEMY_DATABASE_URI": make_url(url).set(port=gate.port).render_as_string(False),
                      "TESTING": True, "SECRET_KEY": "test",
                      "BLOB_STORE": {"backend": "local", "root": str(tmp_path / "blobs")},
                      "TUS_STAGING_DIR": str(tmp_path / "tus")})
    try:
        with app.app_context():
            upgrade()
        yield app, gate
    finally:
        gate.shut()
        with app.app_context():
            db.session.remove()
            db.engine.dispose()
        drop()


@pytest.fixture
def pooled_app():
    """An app straight on its own PostgreSQL database, its sessions on the engine's pool."""
    url, drop = postgis_database()
    app = create_app({"SQLALCHEMY_DATABASE_URI": url, "TESTING": True, "SECRET_KEY": "test"})
    try:
        with app.app_context():
            upgrade()
        yield app
    finally:
        with app.app_context():
            db.session.remove()
            db.engine.dispose()
        drop()


def _setup(app) -> tuple[dict, int]:
    from server.core.accounts.service import create_user, issue_token
    from server.field.checklist_templates import load_templates
    from server.network import features
    from server.network.layers import LAYERS
    from tests.support.features import SAMPLES

    with app.app_context():
        load_templates()
        token = issue_token(create_user("field1", "inspector", PASSWORD), "tablet")[0]
        geometry, props = SAMPLES["parcels"]
        _, parcel_id, _ = features.create_feature(LAYERS["parcels"], geometry, props, None)
        db.session.commit()
    return {"Authorization": f"Bearer {token}"}, parcel_id


@pytest.mark.postgis_only
def test_a_restart_mid_sync_is_a_503_with_retry_after_and_loses_nothing(gated_app):
    from server.field.models import Inspection

    app, gate = gated_app
    headers, parcel_id = _setup(app)
    client = app.test_client()
    first, second = record(survey(parcel_id, [sump_pump(photo="b" * 64)])), record(survey(parcel_id))
    r = client.post("/api/v1/sync/push", json={"records": [first]}, headers=headers)
    assert r.status_code == 200 and r.get_json()["results"][0]["status"] == 201

    gate.shut()  # PostgreSQL "restarts": every pooled connection is reset, new ones refused
    for _ in range(2):
        r = client.post("/api/v1/sync/push", json={"records": [second]}, headers=headers)
        assert r.status_code == 503, r.get_data(as_text=True)
        assert r.headers["Retry-After"].isdigit()
        assert r.get_json()["error"]["code"] == "database_unavailable"
        assert "Traceback" not in r.get_data(as_text=True)
    r = client.get("/api/v1/sync/pull", headers=headers)
    assert r.status_code == 503

    gate.open()  # back: the pool's dead connections are replaced, nothing stays broken
    r = client.post("/api/v1/sync/push", json={"records": [first, second]}, headers=headers)
    assert r.status_code == 200, r.get_json()
    assert [x["status"] for x in r.get_json()["results"]] == [200, 201]  # the first was kept, once
    assert client.get("/api/v1/sync/pull", headers=headers).status_code == 200
    with app.app_context():
        assert db.session.scalar(select(func.count()).select_from(Inspection)) == 2


@pytest.mark.parametrize("message, transient", [
    ("database is locked", True),
    ("database table is locked", True),
    ("no such table: parcels", False),
    ("disk I/O error", False),
])
def test_only_a_lock_is_a_wait_on_sqlite(message, transient):
    sqlite = dialects.sqlite_dbapi()
    exc = OperationalError("SELECT 1", {}, sqlite.OperationalError(message))
    assert dialects.is_transient(exc) is transient


@pytest.mark.postgis_only
def test_a_connection_the_server_ended_is_replaced_before_any_request_sees_it(pooled_app):
    """No ping on every checkout (issue 35), yet no request meets a dead pooled connection:
    a connection PostgreSQL ended has something to read, so the checkout pings it and the
    pool hands out a fresh one."""
    app = pooled_app
    client = app.test_client()
    assert client.get("/api/v1/health").status_code == 200  # one connection now waits in the pool
    with app.app_context():
        assert not db.engine.pool._pre_ping  # what replaced it: server/core/dialects/postgresql.py
    _end_every_connection_of(app)
    for _ in range(3):
        r = client.get("/api/v1/health")
        assert r.status_code == 200, r.get_data(as_text=True)


@pytest.mark.postgis_only
def test_a_connection_idle_for_long_is_pinged_even_when_its_socket_says_nothing(pooled_app, monkeypatch):
    """A connection dropped without a word (a firewall's timeout) has nothing to read: past
    PING_AFTER_IDLE_S it is pinged anyway, and replaced when the ping fails."""
    from server.core.dialects import postgresql

    app = pooled_app
    client = app.test_client()
    assert client.get("/api/v1/health").status_code == 200
    monkeypatch.setattr(postgresql, "_has_something_to_read", lambda _connection: False)  # a silent drop
    monkeypatch.setattr(postgresql, "PING_AFTER_IDLE_S", 0.0)
    _end_every_connection_of(app)
    r = client.get("/api/v1/health")
    assert r.status_code == 200, r.get_data(as_text=True)


def _end_every_connection_of(app) -> None:
    with app.app_context():
        name = db.engine.url.database
    admin = create_engine(POSTGIS_ADMIN_URL, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            # With a timeout it returns once each backend has ended (PostgreSQL 14 and later).
            ended = conn.execute(text("SELECT count(pg_terminate_backend(pid, 5000)) FROM pg_stat_activity "
                                      "WHERE datname = :name AND pid <> pg_backend_pid()"), {"name": name}).scalar()
    finally:
        admin.dispose()
    assert ended >= 1
