"""Logins, device tokens and who may do what."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from server.core.accounts.models import ApiToken
from server.core.audit.models import AuditEvent
from server.core.extensions import db
from tests.support.databases import PASSWORD
from tests.support.features import feature


def test_health_needs_no_login_and_tells_anonymous_callers_only_ok(client):
    r = client.get("/api/v1/health")
    assert r.status_code == 200
    assert r.get_json() == {"status": "ok"}


def test_health_names_the_database_to_a_signed_in_caller(client, auth, db_kind):
    r = client.get("/api/v1/health", headers=auth["inspector"])
    assert r.get_json()["database"].startswith("SpatiaLite" if db_kind == "spatialite" else "PostGIS")


@pytest.mark.parametrize("path", ["/api/v1/parcels", "/api/v1/openapi.json", "/api/v1/auth/me", "/api/v1/users"])
def test_everything_else_needs_a_user(client, path):
    r = client.get(path)
    assert r.status_code == 401
    assert r.get_json()["error"]["code"] == "unauthorized"
    assert r.headers["WWW-Authenticate"].startswith("Bearer")


def test_token_for_good_password_works_and_is_stored_hashed(client):
    r = client.post("/api/v1/auth/token",
                    json={"username": "inspector1", "password": PASSWORD, "device_name": "iPad 3"})
    assert r.status_code == 201
    token = r.get_json()["token"]
    me = client.get("/api/v1/auth/me", headers={"Authorization": f"Bearer {token}"}).get_json()
    assert me["username"] == "inspector1"
    stored = db.session.scalar(select(ApiToken.token_hash).where(ApiToken.id == r.get_json()["token_id"]))
    assert token not in stored and len(stored) == 64


def test_wrong_password_gets_no_token(client):
    r = client.post("/api/v1/auth/token", json={"username": "inspector1", "password": "nope", "device_name": "x"})
    assert r.status_code == 401
    assert r.get_json()["error"]["code"] == "bad_credentials"


def test_revoked_token_stops_working(client):
    r = client.post("/api/v1/auth/token", json={"username": "clerk1", "password": PASSWORD, "device_name": "desk"})
    token, tid = r.get_json()["token"], r.get_json()["token_id"]
    headers = {"Authorization": f"Bearer {token}"}
    assert client.delete(f"/api/v1/auth/tokens/{tid}", headers=headers).status_code == 204
    r = client.get("/api/v1/auth/me", headers=headers)
    assert r.status_code == 401


def test_session_login_reaches_the_api(client):
    r = client.post("/login", data={"username": "superintendent1", "password": PASSWORD})
    assert r.status_code == 302
    assert client.get("/api/v1/auth/me").get_json()["role"] == "superintendent"


def test_session_login_with_wrong_password_fails(client):
    r = client.post("/login", data={"username": "superintendent1", "password": "bad"})
    assert r.status_code == 401
    assert client.get("/api/v1/auth/me").status_code == 401


@pytest.mark.parametrize("layer", ["parcels", "mains", "manholes", "laterals", "taps", "tracer-wires", "service-areas"])
@pytest.mark.parametrize("role", ["inspector", "clerk"])
def test_only_superintendent_and_admin_edit_the_network(client, auth, layer, role):
    r = client.post(f"/api/v1/{layer}", json=feature(layer), headers=auth[role])
    assert r.status_code == 403
    assert r.get_json()["error"]["code"] == "forbidden"


@pytest.mark.parametrize("role, status", [("inspector", 201), ("superintendent", 201), ("admin", 201), ("clerk", 403)])
def test_inspectors_write_findings(client, auth, role, status):
    assert client.post("/api/v1/findings", json=feature("findings"), headers=auth[role]).status_code == status


@pytest.mark.parametrize("role", ["inspector", "clerk", "superintendent", "admin"])
def test_everyone_reads(client, auth, role):
    assert client.get("/api/v1/taps", headers=auth[role]).status_code == 200


@pytest.mark.parametrize("role, status", [("admin", 201), ("superintendent", 403), ("inspector", 403)])
def test_only_admin_manages_users(client, auth, role, status):
    r = client.post("/api/v1/users", json={"username": "newbie", "role": "inspector", "password": PASSWORD},
                    headers=auth[role])
    assert r.status_code == status


def test_admin_deactivates_a_user_and_their_token_stops(client, auth):
    r = client.post("/api/v1/users", json={"username": "temp", "role": "inspector", "password": PASSWORD},
                    headers=auth["admin"])
    uid = r.get_json()["id"]
    token = client.post("/api/v1/auth/token",
                        json={"username": "temp", "password": PASSWORD, "device_name": "t"}).get_json()["token"]
    client.patch(f"/api/v1/users/{uid}", json={"active": False}, headers=auth["admin"])
    assert client.get("/api/v1/auth/me", headers={"Authorization": f"Bearer {token}"}).status_code == 401
    actions = db.session.scalars(select(AuditEvent.action).where(AuditEvent.subject_type == "user",
                                                                 AuditEvent.subject_id == uid)
                                 .order_by(AuditEvent.id)).all()
    assert actions == ["create", "update"]


def test_audit_rows_cannot_be_changed(app, client, auth):
    client.post("/api/v1/findings", json=feature("findings"), headers=auth["inspector"])
    row = db.session.scalars(select(AuditEvent).order_by(AuditEvent.id.desc())).first()
    row.action = "tampered"
    with pytest.raises(Exception, match="append-only"):
        db.session.flush()
    db.session.rollback()


def test_openapi_document_lists_every_layer(client, auth):
    spec = client.get("/api/v1/openapi.json", headers=auth["inspector"]).get_json()
    assert spec["openapi"].startswith("3.")
    for layer in ["parcels", "mains", "manholes", "laterals", "taps", "tracer-wires", "service-areas", "findings"]:
        assert f"/api/v1/{layer}" in spec["paths"]
        assert f"/api/v1/{layer}/{{fid}}" in spec["paths"]


def test_docs_page_is_served_to_a_logged_in_user(client):
    assert client.get("/api/v1/docs").status_code == 302
    client.post("/login", data={"username": "clerk1", "password": PASSWORD})
    r = client.get("/api/v1/docs")
    assert r.status_code == 200 and b"swagger-ui-bundle.js" in r.data
    assert client.get("/static/swagger-ui/swagger-ui-bundle.js").status_code == 200
