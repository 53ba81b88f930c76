"""Fixtures shared by every test module.

``../shared`` (real data, the ordinance) is found from the repository root; where it
is absent, tests that need it skip with a reason. CI always has it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# Fixtures more than one test package uses (templates, parcel, violation, notice_in,
# moto_endpoint) live in one plugin module rather than being imported across packages.
pytest_plugins = ["tests.plugin"]

REPO_ROOT = Path(__file__).resolve().parent.parent
SHARED_DIR = REPO_ROOT.parent / "shared"
STRICT = os.environ.get("LATERAL_STRICT") == "1"


def need_shared(*parts: str) -> Path:
    """Path inside ../shared, or skip the calling test with the reason."""
    path = SHARED_DIR.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"{path} is absent (../shared is laid beside the repo in CI)")
    return path


@pytest.fixture(scope="session")
def realdata() -> Path:
    """The ../shared/realdata folder."""
    return need_shared("realdata")


# ----------------------------------------------------------------- databases
# The same suite runs on SpatiaLite and PostGIS. Each engine is migrated once per test
# session with the real Alembic migrations; each test runs inside a transaction that is
# rolled back afterwards (the app's commits become savepoints).

import secrets  # noqa: E402
import uuid  # noqa: E402
from contextlib import contextmanager  # noqa: E402

import sqlalchemy as sa  # noqa: E402
from sqlalchemy.orm import scoped_session, sessionmaker  # noqa: E402

ENGINES = ["spatialite", "postgis"]
POSTGIS_ADMIN_URL = os.environ.get(
    "LATERAL_TEST_POSTGIS_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
)
PASSWORD = "correct horse battery"
ROLES = ("inspector", "superintendent", "clerk", "admin")


def _unavailable(reason: str):
    if STRICT:
        pytest.fail(f"strict mode: {reason}", pytrace=False)
    pytest.skip(reason)


def _postgis_database() -> tuple[str, callable]:
    """Create a throw-away PostGIS database; returns (url, drop)."""
    admin = sa.create_engine(POSTGIS_ADMIN_URL, isolation_level="AUTOCOMMIT")
    name = f"lateral_test_{uuid.uuid4().hex[:10]}"
    try:
        with admin.connect() as conn:
            conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
    except sa.exc.OperationalError as exc:
        admin.dispose()
        _unavailable(f"PostgreSQL is not reachable at {POSTGIS_ADMIN_URL}: {exc.orig}")
    url = sa.engine.make_url(POSTGIS_ADMIN_URL).set(database=name).render_as_string(hide_password=False)

    def drop():
        with admin.connect() as conn:
            conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.dispose()

    return url, drop


def make_migrated_app(kind: str, tmp_dir: Path, **overrides):
    """An app on a fresh database of ``kind``, migrated with the real migrations."""
    from flask_migrate import upgrade

    from server import create_app

    drop = None
    if kind == "spatialite":
        url = f"sqlite:///{tmp_dir / 'lateral.sqlite'}"
    else:
        url, drop = _postgis_database()
    app = create_app({
        "SQLALCHEMY_DATABASE_URI": url,
        "TESTING": True,
        "SECRET_KEY": "test",
        # Photos and tus staging stay in the test's own folder, never in instance/.
        "BLOB_STORE": {"backend": "local", "root": str(tmp_dir / "blobs")},
        "TUS_STAGING_DIR": str(tmp_dir / "tus"),
        "LATERAL_OGC_READAHEAD_DIR": str(tmp_dir / "ogc-pages"),
        # The tests' walks use small pages: read ahead from the smallest, so every walk
        # (GDAL's, QGIS's, OWSLib's too) goes through it (tests/ogc/test_readahead.py).
        "LATERAL_OGC_READAHEAD_MIN_LIMIT": 1,
        **overrides,
    })
    try:
        with app.app_context():
            upgrade()
    except Exception as exc:
        if drop:
            drop()
        if "postgis" in str(exc).lower() and kind == "postgis":
            _unavailable(f"PostGIS extension is not installed: {exc}")
        raise
    return app, drop


@contextmanager
def fresh_app(kind: str, tmp_dir: Path, **overrides):
    """``make_migrated_app`` for a ``with`` block: the app, then its database let go and dropped."""
    from server.core.extensions import db

    app, drop = make_migrated_app(kind, tmp_dir, **overrides)
    try:
        yield app
    finally:
        with app.app_context():
            db.session.remove()
            db.engine.dispose()
        if drop:
            drop()


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
def app(migrated_app):
    """The app inside a transaction rolled back after the test."""
    from server.core.extensions import db

    _, app, _ = migrated_app
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
