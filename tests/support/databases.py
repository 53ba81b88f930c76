"""Apps on fresh databases of each engine, migrated with the real migrations.

The same suite runs on SpatiaLite and PostGIS. ``tests/conftest.py`` migrates one app per
engine for the session (``migrated_app``); tests whose threads or processes must see real
commits make their own with :func:`make_migrated_app` or :func:`fresh_app`.
"""

from __future__ import annotations

import os
import uuid
from contextlib import contextmanager
from pathlib import Path

import sqlalchemy as sa

from tests.support.env import unavailable

ENGINES = ["spatialite", "postgis"]
POSTGIS_ADMIN_URL = os.environ.get(
    "LATERAL_TEST_POSTGIS_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
)
PASSWORD = "correct horse battery"
ROLES = ("inspector", "superintendent", "clerk", "admin", "plumber")


def postgis_database() -> tuple[str, callable]:
    """Create a throw-away PostGIS database; returns (url, drop)."""
    admin = sa.create_engine(POSTGIS_ADMIN_URL, isolation_level="AUTOCOMMIT")
    name = f"lateral_test_{uuid.uuid4().hex[:10]}"
    try:
        with admin.connect() as conn:
            conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
    except sa.exc.OperationalError as exc:
        admin.dispose()
        unavailable(f"PostgreSQL is not reachable at {POSTGIS_ADMIN_URL}: {exc.orig}")
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
        url, drop = postgis_database()
    app = create_app({
        "SQLALCHEMY_DATABASE_URI": url,
        "TESTING": True,
        "SECRET_KEY": "test",
        # Photos and tus staging stay in the test's own folder, never in instance/.
        "BLOB_STORE": {"backend": "local", "root": str(tmp_dir / "blobs")},
        "TUS_STAGING_DIR": str(tmp_dir / "tus"),
        # The audit chain's anchors: each database its own file, never instance/'s.
        "LATERAL_AUDIT_ANCHORS": str(tmp_dir / "audit-anchors.log"),
        # Each test's writes are rolled back, so a layer's write version comes round
        # again with other rows: a tile cache shared between tests would serve one test
        # another's tile. tests/network/tiles/test_tile_cache.py turns it on per test.
        "LATERAL_TILE_CACHE_MB": 0,
        "LATERAL_EXPORT_DIR": str(tmp_dir / "exports"),
        # Jobs run inside the request that submits them: no worker process in tests
        # (tests/core/queue/ runs the worker's own path too).
        "LATERAL_QUEUE_IMMEDIATE": True,
        **overrides,
    })
    try:
        with app.app_context():
            upgrade()
    except Exception as exc:
        if drop:
            drop()
        if "postgis" in str(exc).lower() and kind == "postgis":
            unavailable(f"PostGIS extension is not installed: {exc}")
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
