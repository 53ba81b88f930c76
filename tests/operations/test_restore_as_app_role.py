"""A PostGIS restore as the app's own role, not a superuser (issue 31, item 2).

The deploy guide's role (``createuser lateral``) may not ``CREATE EXTENSION postgis``. An
administrator prepares the database (owned by that role, with the extension in it); the
restore then runs as the role and leaves every table the role's own. Without that
preparation it refuses before touching anything and says what to run.
"""

from __future__ import annotations

import uuid

import pytest
import sqlalchemy as sa

from server.core.extensions import db
from server.demo import seed as demo
from tests.support.databases import POSTGIS_ADMIN_URL, fresh_app


@pytest.fixture(scope="module")
def backup_folder(tmp_path_factory):
    """A backup of a small PostGIS demo city."""
    folder = tmp_path_factory.mktemp("role-restore")
    with fresh_app("postgis", folder) as app:
        with app.app_context():
            demo.seed(parcels=200, with_users=False)
            db.session.commit()
        result = app.test_cli_runner().invoke(args=["backup", str(folder / "backups")])
        assert result.exit_code == 0, result.output
    return folder / "backups"


@pytest.fixture
def app_role():
    """A login role without superuser (local trust auth), dropped with its databases after."""
    admin = sa.create_engine(POSTGIS_ADMIN_URL, isolation_level="AUTOCOMMIT")
    role = f"lateral_app_{uuid.uuid4().hex[:8]}"
    databases = []
    with admin.connect() as conn:
        conn.exec_driver_sql(f'CREATE ROLE "{role}" LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE')

    def database(with_postgis: bool) -> str:
        """A database owned by the role, as the administrator makes it; returns the role's URL."""
        name = f"{role}_{len(databases)}"
        with admin.connect() as conn:
            conn.exec_driver_sql(f'CREATE DATABASE "{name}" OWNER "{role}"')
        databases.append(name)
        if with_postgis:
            prepared = sa.create_engine(sa.engine.make_url(POSTGIS_ADMIN_URL).set(database=name),
                                        isolation_level="AUTOCOMMIT")
            with prepared.connect() as conn:
                conn.exec_driver_sql("CREATE EXTENSION postgis")
            prepared.dispose()
        return (sa.engine.make_url(POSTGIS_ADMIN_URL).set(username=role, password=None, database=name)
                .render_as_string(hide_password=False))

    yield role, database
    with admin.connect() as conn:
        for name in databases:
            conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.exec_driver_sql(f'DROP ROLE IF EXISTS "{role}"')
    admin.dispose()


def _app(url: str, tmp_path):
    from server import create_app

    return create_app({"SQLALCHEMY_DATABASE_URI": url, "TESTING": True, "SECRET_KEY": "test",
                       "BLOB_STORE": {"backend": "local", "root": str(tmp_path / "blobs")},
                       "TUS_STAGING_DIR": str(tmp_path / "tus")})


def _let_go(app) -> None:
    with app.app_context():
        db.session.remove()
        db.engine.dispose()


def test_the_app_role_restores_into_a_prepared_database_and_owns_every_table(backup_folder, app_role, tmp_path):
    role, database = app_role
    app = _app(database(with_postgis=True), tmp_path)
    try:
        result = app.test_cli_runner().invoke(args=["restore", str(backup_folder)])
        with app.app_context():
            owners = dict(db.session.execute(sa.text(
                "SELECT tablename, tableowner FROM pg_tables WHERE schemaname = 'public'")).all())
            parcels = db.session.execute(sa.text("SELECT count(*) FROM parcels")).scalar()
            db.session.execute(sa.text("UPDATE parcels SET owner_name = owner_name WHERE id = 1"))  # the app writes
            db.session.rollback()
    finally:
        _let_go(app)

    assert result.exit_code == 0, result.output
    assert parcels == 200
    assert {t: o for t, o in owners.items() if t != "spatial_ref_sys"} == {t: role for t in owners
                                                                         if t != "spatial_ref_sys"}
    assert owners["spatial_ref_sys"] != role  # the administrator's extension, untouched


def test_without_postgis_the_restore_says_what_to_run_and_touches_nothing(backup_folder, app_role, tmp_path):
    _, database = app_role
    url = database(with_postgis=False)
    app = _app(url, tmp_path)
    try:
        result = app.test_cli_runner().invoke(args=["restore", str(backup_folder)])
        with app.app_context():
            tables = sa.inspect(db.engine).get_table_names()
    finally:
        _let_go(app)

    assert result.exit_code == 1
    assert "sudo -u postgres psql -d " in result.output and "-c 'CREATE EXTENSION postgis'" in result.output
    assert "Traceback" not in result.output
    assert tables == []
    assert not (tmp_path / "blobs").exists() or not any((tmp_path / "blobs").rglob("*.*"))


def test_a_superuser_restore_leaves_the_tables_to_the_databases_owner(backup_folder, app_role, tmp_path):
    role, database = app_role
    name = sa.engine.make_url(database(with_postgis=False)).database
    app = _app(sa.engine.make_url(POSTGIS_ADMIN_URL).set(database=name).render_as_string(hide_password=False),
               tmp_path)
    try:
        result = app.test_cli_runner().invoke(args=["restore", str(backup_folder)])
        with app.app_context():
            owner = db.session.execute(sa.text("SELECT tableowner FROM pg_tables WHERE tablename = 'parcels'")).scalar()
    finally:
        _let_go(app)

    assert result.exit_code == 0, result.output
    assert owner == role  # not postgres: the app's role can read and write its tables
