"""Input no column or calendar can hold is a clear 4xx naming the field, never a 500."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from server.core.audit.models import AuditEvent
from server.core.extensions import db
from server.network.models import ClearWaterFinding
from tests.support.features import feature

HUGE = str(2**64)
PAST_INTEGER = str(2**31)  # past PostgreSQL's integer, every id column
TUS = {"Tus-Resumable": "1.0.0"}


def audit_count() -> int:
    return db.session.scalar(select(func.count()).select_from(AuditEvent))


@pytest.mark.parametrize("path", [
    f"/api/v1/parcels/{HUGE}",
    f"/api/v1/notices/{HUGE}",
    f"/api/v1/mailings/{HUGE}",
    f"/ogc/collections/parcels/items/{HUGE}",
])
def test_path_ids_past_64_bits_are_422(client, auth, path):
    r = client.get(path, headers=auth["admin"])
    assert r.status_code == 422, r.get_data(as_text=True)
    assert "between" in r.get_json()["error"]["message"]


def test_an_id_past_the_integer_column_is_422_on_both_databases(client, auth):
    r = client.post(f"/api/v1/users/{PAST_INTEGER}/password", json={"password": "x"}, headers=auth["admin"])
    assert r.status_code == 422
    r = client.post("/api/v1/mailings", json={"notice_ids": [int(PAST_INTEGER)]}, headers=auth["admin"])
    assert r.status_code == 422 and "notice_ids[0]" in r.get_json()["error"]["details"]["fields"]


@pytest.mark.parametrize("path, field", [
    (f"/api/v1/notices?after={HUGE}", "after"),
    (f"/api/v1/notices?parcel_id=-{HUGE}", "parcel_id"),
    (f"/api/v1/assignments?inspector_id={PAST_INTEGER}", "inspector_id"),
    (f"/ogc/collections/parcels/items?offset={HUGE}", "offset"),
    (f"/ogc/collections/parcels/items?offset={'9' * 5000}", "offset"),
    ("/api/v1/calendar/deadline?rule=315-12&served=9999-12-31", "served"),
    ("/api/v1/calendar/deadline?rule=315-12&served=0001-01-01", "served"),
    ("/api/v1/parcels?q=a%00b", "q"),
])
def test_query_values_out_of_range_are_422_naming_the_field(client, auth, path, field):
    r = client.get(path, headers=auth["admin"])
    assert r.status_code == 422, r.get_data(as_text=True)
    error = r.get_json()["error"]
    assert error["code"] == "invalid_fields" and field in error["details"]["fields"]


@pytest.mark.parametrize("props", [
    {"notes": "before\x00after"},
    {"observed_on": "9999-12-31"},
])
def test_body_values_no_column_holds_are_422_and_nothing_is_written(client, auth, props):
    before = (db.session.scalar(select(func.count()).select_from(ClearWaterFinding)), audit_count())
    r = client.post("/api/v1/findings", json=feature("findings", **props), headers=auth["inspector"])
    assert r.status_code == 422, r.get_data(as_text=True)
    assert f"properties.{next(iter(props))}" in r.get_json()["error"]["details"]["fields"]
    assert (db.session.scalar(select(func.count()).select_from(ClearWaterFinding)), audit_count()) == before


@pytest.mark.parametrize("number", ["9" * 30, "-" + "9" * 19, str(2**31)])
def test_integers_no_column_holds_are_422(client, auth, number):
    body = '{"type": "Feature", "properties": {"n": ' + number + "}}"
    r = client.post("/api/v1/findings", data=body, headers={**auth["inspector"], "Content-Type": "application/json"})
    assert r.status_code == 422
    assert "between" in r.get_json()["error"]["details"]["fields"]["properties.n"][0]


@pytest.mark.parametrize("depth", [40, 100_000])
def test_deeply_nested_json_is_400(client, auth, depth):
    body = '{"type": "Feature", "properties": {"x": ' + "[" * depth + "]" * depth + "}}"
    r = client.post("/api/v1/findings", data=body, headers={**auth["inspector"], "Content-Type": "application/json"})
    assert r.status_code == 400
    assert r.get_json()["error"]["code"] == "json_too_deep"


def test_an_all_digit_path_name_is_not_taken_for_a_number(client, auth):
    r = client.head(f"/api/v1/photos/{'0' * 64}", headers=auth["admin"])
    assert r.status_code == 404


def test_an_ogc_feature_id_in_other_digits_is_404(client, auth):
    assert client.get("/ogc/collections/parcels/items/²", headers=auth["admin"]).status_code == 404


def test_a_nul_in_a_login_form_is_422(client):
    r = client.post("/login", data={"username": "clerk\x00", "password": "x"})
    assert r.status_code == 422


@pytest.mark.parametrize("value", ["²", "٣", HUGE, "-1", "1e3"])
def test_tus_length_headers_take_only_ascii_digits_within_range(client, auth, value):
    r = client.post("/api/v1/uploads", headers={**auth["inspector"], **TUS, "Upload-Length": value})
    assert r.status_code == 400, r.get_data(as_text=True)
    assert "Upload-Length" in r.get_json()["error"]["message"]
