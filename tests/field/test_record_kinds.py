"""Record kinds are one table: the push schema, the stored CHECK and the handlers agree."""

from __future__ import annotations

import re

import sqlalchemy as sa
from sqlalchemy import func, select

from server.core.extensions import db
from server.field.models import PushRecord
from server.field.schemas import PushRecordIn
from server.field.sync import RECORD_KINDS
from tests.support.sync import new_uuid


def _quoted(text: str) -> set[str]:
    """The string literals of a CHECK, however the database spells the rest of it."""
    return set(re.findall(r"'([^']*)'", text))


def test_the_push_schema_takes_exactly_the_handled_kinds():
    assert tuple(PushRecordIn().fields["kind"].validate.choices) == tuple(RECORD_KINDS)


def test_every_kind_has_its_own_data_schema_and_handler():
    assert all(kind.name == name and kind.schema and callable(kind.apply) for name, kind in RECORD_KINDS.items())
    assert len({kind.schema for kind in RECORD_KINDS.values()}) == len(RECORD_KINDS)


def test_the_models_check_names_the_handled_kinds():
    checks = [c for c in PushRecord.__table__.constraints if isinstance(c, sa.CheckConstraint)
              and c.name == "ck_push_records_kind"]
    assert len(checks) == 1 and _quoted(str(checks[0].sqltext)) == set(RECORD_KINDS)


def test_the_migrated_check_names_the_handled_kinds(app):
    inspector = sa.inspect(db.session.connection())
    checks = {c["name"]: c["sqltext"] for c in inspector.get_check_constraints("push_records")}
    assert _quoted(checks["ck_push_records_kind"]) == set(RECORD_KINDS)


def test_a_kind_outside_the_table_is_refused_and_stores_nothing(client, auth):
    response = client.post("/api/v1/sync/push", json={"records": [{"uuid": new_uuid(), "kind": "photo", "data": {}}]},
                           headers=auth["inspector"])
    assert response.status_code == 422
    assert "kind" in response.get_json()["error"]["details"]["fields"]["records"]["0"]
    assert db.session.scalar(select(func.count()).select_from(PushRecord)) == 0
