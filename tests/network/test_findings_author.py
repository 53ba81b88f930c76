"""Clear-water findings are their author's and the superintendent's (issue 15, row 4)."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from server.core.audit.models import AuditEvent
from server.core.extensions import db
from server.network.models import ClearWaterFinding
from tests.support.features import feature

URL = "/api/v1/findings"


def _create(client, auth, role: str, **props) -> tuple[int, str]:
    r = client.post(URL, json=feature("findings", **props), headers=auth[role])
    assert r.status_code == 201, r.get_json()
    return r.get_json()["id"], r.headers["ETag"]


def _patch(client, auth, role, fid, etag, props):
    return client.patch(f"{URL}/{fid}", json={"type": "Feature", "properties": props},
                        headers={**auth[role], "If-Match": etag})


def test_the_server_names_the_observer_whatever_the_client_sends(client, auth):
    fid, _ = _create(client, auth, "inspector", observed_by="Superintendent Jones")
    assert db.session.get(ClearWaterFinding, fid).observed_by == "Test Inspector"


@pytest.mark.parametrize("role", ["inspector", "admin"])
def test_another_users_finding_cannot_be_changed(client, auth, role):
    fid, etag = _create(client, auth, "superintendent")
    r = _patch(client, auth, role, fid, etag, {"connected_to_sanitary": "no"})
    assert (r.status_code, r.get_json()["error"]["code"]) == (403, "not_your_finding")
    assert db.session.get(ClearWaterFinding, fid).connected_to_sanitary == "yes"


@pytest.mark.parametrize("role", ["inspector", "admin"])
def test_another_users_finding_cannot_be_deleted(client, auth, role):
    fid, etag = _create(client, auth, "superintendent")
    r = client.delete(f"{URL}/{fid}", headers={**auth[role], "If-Match": etag})
    assert r.status_code == 403
    assert db.session.get(ClearWaterFinding, fid) is not None
    assert db.session.scalars(select(AuditEvent).filter_by(subject_type="finding", action="delete")).all() == []


def test_the_author_changes_and_deletes_their_own(client, auth):
    fid, etag = _create(client, auth, "inspector")
    r = _patch(client, auth, "inspector", fid, etag, {"connected_to_sanitary": "no"})
    assert r.status_code == 200, r.get_json()
    r = client.delete(f"{URL}/{fid}", headers={**auth["inspector"], "If-Match": r.headers["ETag"]})
    assert r.status_code == 204


def test_the_superintendent_changes_anyones(client, auth):
    fid, etag = _create(client, auth, "inspector")
    r = _patch(client, auth, "superintendent", fid, etag, {"connected_to_sanitary": "no"})
    assert r.status_code == 200, r.get_json()
    assert db.session.get(ClearWaterFinding, fid).observed_by == "Test Inspector"


def test_nobody_rewrites_the_observer(client, auth):
    fid, etag = _create(client, auth, "inspector")
    r = _patch(client, auth, "superintendent", fid, etag, {"observed_by": "Someone Else"})
    assert r.status_code == 422
    assert "observed_by" in r.get_json()["error"]["details"]["fields"]["properties"]
    assert db.session.get(ClearWaterFinding, fid).observed_by == "Test Inspector"


def test_a_finding_loaded_without_a_user_is_the_superintendents(client, auth):
    from server.network import features as feature_service
    from server.network.layers import LAYERS

    geometry, props = feature("findings")["geometry"], feature("findings")["properties"]
    _, fid, version = feature_service.create_feature(LAYERS["findings"], geometry, props, None)
    db.session.commit()
    r = _patch(client, auth, "inspector", fid, f'"{version}"', {"connected_to_sanitary": "no"})
    assert r.status_code == 403
    assert _patch(client, auth, "superintendent", fid, f'"{version}"', {"notes": "checked"}).status_code == 200
