"""What schemathesis found against the documented contract (issue 30): numbers of the
wrong JSON type taken, times without their offset, nulls the document did not allow."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from server.core.extensions import db
from server.notices.models import Notice
from tests.support.features import feature


@pytest.mark.parametrize("parcel_ids", [["1"], [1.5], "1", [None]])
def test_a_wrong_typed_parcel_id_is_refused_and_nothing_drafted(client, auth, violation, parcel_ids):
    before = db.session.scalar(select(func.count()).select_from(Notice))
    r = client.post("/api/v1/notices/draft", json={"parcel_ids": parcel_ids}, headers=auth["superintendent"])
    assert r.status_code == 422 and r.get_json()["error"]["code"] == "invalid_fields"
    assert db.session.scalar(select(func.count()).select_from(Notice)) == before


def test_a_right_typed_parcel_id_still_drafts(client, auth, violation):
    r = client.post("/api/v1/notices/draft", json={"parcel_ids": [violation.parcel_id]},
                    headers=auth["superintendent"])
    assert r.status_code == 201 and len(r.get_json()) == 1


def test_stored_times_carry_their_utc_offset_on_both_databases(client, auth):
    r = client.post("/api/v1/findings", json=feature("findings"), headers=auth["superintendent"])
    stamps = r.get_json()["properties"]
    assert stamps["created_at"].endswith("+00:00") and stamps["updated_at"].endswith("+00:00")


def test_a_draft_notice_matches_its_documented_nulls(client, auth, violation, app):
    [notice] = client.post("/api/v1/notices/draft", json={}, headers=auth["superintendent"]).get_json()
    props = app.extensions["lateral_api"].spec.to_dict()["components"]["schemas"]["NoticeOut"]["properties"]
    for name in ("approved_at", "deadline_steps"):
        assert notice[name] is not None or props[name].get("nullable") is True, name
