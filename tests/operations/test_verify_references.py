"""``flask verify`` names a dangling reference and only that (issue 31, item 1).

Every foreign key of the schema, self-references included, gets one sound row (pointing
at a row that exists) and one dangling row (pointing at none), written with the
database's own key checks switched off inside a transaction that is rolled back. The
living demo city (it holds a follow-up notice, a self-reference) verifies clean, and a
backup of it restores with exit status 0 on both databases.
"""

from __future__ import annotations

import re
import uuid
from datetime import UTC, date, datetime

import pytest
from geoalchemy2 import Geometry
from sqlalchemy import (
    JSON,
    Boolean,
    CheckConstraint,
    Date,
    DateTime,
    Integer,
    LargeBinary,
    Numeric,
    UniqueConstraint,
    func,
    insert,
    select,
)
from sqlalchemy.orm import scoped_session, sessionmaker

from server.core.extensions import db
from server.demo import seed as demo
from server.field.api.photos import BLOBS
from server.operations.integrity import reference_problems, verify_instance
from tests.support.databases import ENGINES, fresh_app, postgis_database

PARCELS = 200


def _all_foreign_keys():
    from server import create_app

    app = create_app({"SQLALCHEMY_DATABASE_URI": "sqlite://", "TESTING": True, "SECRET_KEY": "t"})
    with app.app_context():
        return sorted(f"{fk.parent.table.name}.{fk.parent.name}"
                      for table in db.metadata.sorted_tables for fk in table.foreign_keys)


FOREIGN_KEYS = _all_foreign_keys()


@pytest.fixture(scope="module", params=ENGINES)
def verified_city(request, tmp_path_factory):
    with fresh_app(request.param, tmp_path_factory.mktemp(f"verify-{request.param}")) as app:
        with app.app_context():
            demo.seed(parcels=PARCELS, living=True, blobs=app.extensions[BLOBS])
            db.session.commit()
        yield app


@pytest.fixture
def unchecked_session(verified_city):
    """The living city in a transaction rolled back after the test, its key checks off."""
    with verified_city.app_context():
        connection = db.engine.connect()
        outer = connection.begin()
        if connection.dialect.name == "sqlite":
            connection.exec_driver_sql("PRAGMA defer_foreign_keys = ON")  # checked at a commit that never comes
        else:
            connection.exec_driver_sql("SET LOCAL session_replication_role = replica")  # no key triggers
        original = db.session
        db.session = scoped_session(sessionmaker(bind=connection))
        try:
            yield db.session
        finally:
            db.session.remove()
            db.session = original
            outer.rollback()
            connection.close()


_IN_LIST = re.compile(r"(\w+) IN \(([^)]*)\)")
_GEOMETRY = {"POINT": "POINT(-89.5 44.5)", "LINESTRING": "LINESTRING(-89.5 44.5, -89.49 44.5)",
             "POLYGON": "POLYGON((-89.5 44.5, -89.49 44.5, -89.49 44.51, -89.5 44.5))",
             "MULTIPOLYGON": "MULTIPOLYGON(((-89.5 44.5, -89.49 44.5, -89.49 44.51, -89.5 44.5)))"}


def _allowed_values(table) -> dict[str, str]:
    allowed = {}
    for constraint in table.constraints:
        if isinstance(constraint, CheckConstraint):
            for column, values in _IN_LIST.findall(str(constraint.sqltext)):
                allowed.setdefault(column, values.split(",")[0].strip().strip("'"))
    return allowed


def _row(table, values: dict) -> dict:
    """A row of ``table`` with ``values`` and a plain value in every other required column."""
    allowed = _allowed_values(table)
    row = dict(values)
    for column in table.columns:
        generated = column.server_default is not None or column.default is not None
        if column.name in row or (column.primary_key and not column.foreign_keys) or column.nullable or generated:
            continue
        if column.name in allowed:
            row[column.name] = allowed[column.name]
        elif column.foreign_keys:
            target = next(iter(column.foreign_keys)).column.table
            # A key that is part of the primary key, or unique, points at a new row, so it is new.
            row[column.name] = _new_id(target) if column.primary_key or _unique(table, column) else \
                _existing_id(target)
        elif isinstance(column.type, Geometry):
            row[column.name] = func.ST_GeomFromText(_GEOMETRY[column.type.geometry_type], column.type.srid)
        elif isinstance(column.type, DateTime):
            row[column.name] = datetime.now(UTC)
        elif isinstance(column.type, Date):
            row[column.name] = date.today()
        elif isinstance(column.type, Boolean):
            row[column.name] = False
        elif isinstance(column.type, (Integer, Numeric)):
            row[column.name] = 1
        elif isinstance(column.type, LargeBinary):
            row[column.name] = b"%PDF-"
        elif isinstance(column.type, JSON):
            row[column.name] = {}
        else:
            length = getattr(column.type, "length", None) or 36
            row[column.name] = uuid.uuid4().hex[:length]
    return row


def _unique(table, column) -> bool:
    """Whether ``column`` alone must be unique (one plumber's license per user, say)."""
    return bool(column.unique) or any(
        isinstance(c, UniqueConstraint) and [col.name for col in c.columns] == [column.name]
        for c in table.constraints) or any(
        index.unique and [col.name for col in index.columns] == [column.name] for index in table.indexes)


def _existing_id(table) -> int:
    """The id of a row of ``table``: the living city's first, or a new one."""
    found = db.session.scalar(select(table.c.id).order_by(table.c.id).limit(1))
    return _new_id(table) if found is None else found


def _new_id(table) -> int:
    return db.session.execute(insert(table).values(_row(table, {})).returning(table.c.id)).scalar_one()


@pytest.mark.parametrize("reference", FOREIGN_KEYS)
def test_verify_names_the_dangling_row_and_not_the_sound_one(unchecked_session, reference):
    table_name, column_name = reference.split(".")
    table = db.metadata.tables[table_name]
    fk = next(iter(table.c[column_name].foreign_keys))
    parent = fk.column.table
    sound = _existing_id(parent)
    missing = db.session.scalar(select(func.max(parent.c.id))) + 1000
    assert list(reference_problems()) == [], "the living city must start clean"

    db.session.execute(insert(table).values(_row(table, {column_name: sound})))
    assert list(reference_problems()) == []  # a sound row is no problem, a self-reference included

    db.session.execute(insert(table).values(_row(table, {column_name: missing})))
    assert list(reference_problems()) == [
        f"{table_name}.{column_name} points at {parent.name} rows that do not exist ({missing})"]


def test_the_living_city_holds_a_follow_up_notice_and_verifies_clean(verified_city):
    from server.notices.models import Notice

    with verified_city.app_context():
        follow_ups = db.session.scalar(select(func.count()).where(Notice.follow_up_of_id.is_not(None)))
        problems = verify_instance(verified_city.extensions[BLOBS])

    assert follow_ups >= 1  # the self-reference the old check mistook for a dangling one
    assert problems == []


def test_a_backup_of_the_living_city_restores_with_exit_status_0(verified_city, tmp_path):
    from server import create_app

    backup = verified_city.test_cli_runner().invoke(args=["backup", str(tmp_path / "backups")])
    assert backup.exit_code == 0, backup.output

    kind = verified_city.config["SQLALCHEMY_DATABASE_URI"].split(":")[0]
    url, drop = (f"sqlite:///{tmp_path / 'restored.sqlite'}", None) if kind == "sqlite" else postgis_database()
    restored = create_app({"SQLALCHEMY_DATABASE_URI": url, "TESTING": True, "SECRET_KEY": "test",
                           "BLOB_STORE": {"backend": "local", "root": str(tmp_path / "restored-blobs")},
                           "TUS_STAGING_DIR": str(tmp_path / "tus")})
    try:
        result = restored.test_cli_runner().invoke(args=["restore", str(tmp_path / "backups")])
        verify = restored.test_cli_runner().invoke(args=["verify"])
    finally:
        with restored.app_context():
            db.session.remove()
            db.engine.dispose()
        if drop:
            drop()

    assert result.exit_code == 0, result.output
    assert "every row count, photo hash and letter hash matches" in result.output
    assert verify.exit_code == 0, verify.output

