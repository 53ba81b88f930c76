"""Fixtures every test package uses: an app per database engine, a client, logins.

The same suite runs on SpatiaLite and PostGIS. Each engine is migrated once per test
session with the real Alembic migrations; each test runs inside a transaction that is
rolled back afterwards (the app's commits become savepoints).

Helpers (paths, strict mode, fresh databases, live servers, records) are modules of
``tests/support``; fixtures that more than one test package uses are in
``tests/support/fixtures.py``, registered here once. A package's own ``conftest.py``
keeps the fixtures only it uses. No test module and no conftest is imported by another
module (``tests/test_layout.py``).
"""

from __future__ import annotations

import secrets
from pathlib import Path

import pytest
from sqlalchemy.orm import scoped_session, sessionmaker

from tests.support.databases import ENGINES, PASSWORD, ROLES, make_migrated_app
from tests.support.env import need_shared

pytest_plugins = ["tests.support.fixtures"]


@pytest.fixture(scope="session")
def realdata() -> Path:
    """The ../shared/realdata folder."""
    return need_shared("realdata")


@pytest.fixture(scope="session", params=ENGINES)
def migrated_app(request, tmp_path_factory):
    """(kind, app, tokens by role) for each database engine, migrated once."""
    from server.core.accounts.service import create_user, issue_token
    from server.core.extensions import db

    kind = request.param
    app, drop = make_migrated_app(kind, tmp_path_factory.mktemp(kind))
    tokens = {}
    with app.app_context():
        for role in ROLES:
            user = create_user(f"{role}1", role, PASSWORD, f"Test {role.title()}")
            tokens[role] = issue_token(user, "pytest")[0]
        db.session.commit()
    yield kind, app, tokens
    with app.app_context():
        db.session.remove()
        db.engine.dispose()
    if drop:
        drop()


@pytest.fixture
def db_kind(migrated_app) -> str:
    return migrated_app[0]


@pytest.fixture
def app(migrated_app, tmp_path, monkeypatch):
    """The app inside a transaction rolled back after the test (and its own audit anchors file:
    an anchor of rows rolled back must not stand against the next test's trail)."""
    from server.core.extensions import db

    _, app, _ = migrated_app
    from dataclasses import replace

    from server.core import settings

    anchors = tmp_path / "audit-anchors.log"
    monkeypatch.setitem(app.extensions, settings.EXTENSION, replace(settings.of(app), audit_anchors=anchors))
    monkeypatch.setitem(app.config, "LATERAL_AUDIT_ANCHORS", str(anchors))
    with app.app_context():
        connection = db.engine.connect()
        outer = connection.begin()
        original = db.session
        db.session = scoped_session(sessionmaker(bind=connection, join_transaction_mode="create_savepoint"))
        try:
            yield app
        finally:
            db.session.remove()
            db.session = original
            outer.rollback()
            connection.close()


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def auth(migrated_app):
    """Authorization headers by role: ``auth["inspector"]``."""
    return {role: {"Authorization": f"Bearer {token}"} for role, token in migrated_app[2].items()}


@pytest.fixture
def random_token() -> str:
    return secrets.token_urlsafe(8)
