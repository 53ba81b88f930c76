"""The models describe the migrated database exactly, on both engines.

Alembic's ``compare_metadata`` (what ``flask db migrate`` autogenerates from) must find
nothing between the models (``server.MODEL_MODULES``) and a database built by the real migrations. What it
legitimately differs on is left out by ``server.core.dialects.in_model_comparison``, the
same filter autogenerate uses: SpatiaLite's bookkeeping and R*Tree tables, PostGIS's
``spatial_ref_sys`` and stored web-mercator column, and how each engine spells a spatial
index. ``compare_metadata`` does not look at CHECK constraints, so the ones the models
declare are compared here by name and by the values they allow.
"""

from __future__ import annotations

import re

import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from server.core.dialects import in_model_comparison
from server.core.extensions import db


def _drift(connection) -> list:
    context = MigrationContext.configure(connection, opts={
        "include_object": in_model_comparison, "compare_type": True, "compare_server_default": True})
    return compare_metadata(context, db.metadata)


def _values(sqltext: str) -> set[str]:
    # PostgreSQL rewrites "kind IN ('a', 'b')" as "kind::text = ANY (ARRAY['a'::character
    # varying, ...])"; the string literals are what both spellings share.
    return set(re.findall(r"'([^']*)'", sqltext))


def test_the_models_match_the_migrated_schema(app):
    assert _drift(db.session.connection()) == []


def test_a_column_the_models_lack_is_reported(app):
    connection = db.session.connection()
    connection.execute(sa.text("ALTER TABLE taps ADD COLUMN stray_note TEXT"))
    drift = _drift(connection)
    assert [(d[0], d[2], d[3].name) for d in drift] == [("remove_column", "taps", "stray_note")]


def test_a_table_the_models_lack_is_reported(app):
    connection = db.session.connection()
    connection.execute(sa.text("CREATE TABLE stray_things (id INTEGER PRIMARY KEY)"))
    assert [(d[0], d[1].name) for d in _drift(connection)] == [("remove_table", "stray_things")]


def test_every_check_the_models_declare_is_in_the_database(app):
    inspector = sa.inspect(db.session.connection())
    declared, found = {}, {}
    for table in db.metadata.sorted_tables:
        for constraint in table.constraints:
            if isinstance(constraint, sa.CheckConstraint):
                declared[constraint.name] = _values(str(constraint.sqltext))
        for check in inspector.get_check_constraints(table.name):
            found[check["name"]] = _values(check["sqltext"])
    assert declared and {name: found.get(name) for name in declared} == declared
