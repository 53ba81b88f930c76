"""The one set of migrations builds, tears down and rebuilds both databases."""

from __future__ import annotations

import pytest
import sqlalchemy as sa
from flask_migrate import downgrade, upgrade

from tests.support.databases import ENGINES, fresh_app


@pytest.mark.parametrize("kind", ENGINES)
def test_downgrade_to_base_and_upgrade_again(kind, tmp_path):
    from server.core.extensions import db

    with fresh_app(kind, tmp_path) as app, app.app_context():
        tables = set(sa.inspect(db.engine).get_table_names())
        assert {"parcels", "sewer_mains", "taps", "audit_events", "violations"} <= tables
        downgrade(revision="base")
        assert "parcels" not in sa.inspect(db.engine).get_table_names()
        upgrade()
        assert "violations" in sa.inspect(db.engine).get_table_names()


@pytest.mark.parametrize("kind", ENGINES)
def test_every_geometry_column_has_a_spatial_index(kind, tmp_path):
    from server.core.extensions import db

    with fresh_app(kind, tmp_path) as app, app.app_context(), db.engine.connect() as conn:
        if kind == "spatialite":
            rows = conn.exec_driver_sql("SELECT f_table_name, spatial_index_enabled FROM geometry_columns").all()
            indexed = {t for t, enabled in rows if enabled == 1}
            tables = {t for t, _ in rows}
        else:
            tables = {r[0] for r in conn.exec_driver_sql("SELECT f_table_name FROM geometry_columns").all()}
            indexed = {r[0] for r in conn.exec_driver_sql(
                "SELECT tablename FROM pg_indexes WHERE indexdef ILIKE '%%USING gist%%'").all()}
    assert tables and tables <= indexed
