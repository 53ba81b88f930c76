"""The rules endpoints: the registry, a whole-network run, violations as GeoJSON, waivers."""

from __future__ import annotations

import pytest
from geoalchemy2.shape import to_shape

from server.rules import run as rules
from tests.support.rules import planted, stored


@pytest.fixture
def ran(seeded_city_300):
    """The demo city, checked."""
    rules.run_network()
    return seeded_city_300


def waive(client, auth, vid, role="superintendent", **body):
    return client.post(f"/api/v1/violations/{vid}/waive", json=body, headers=auth[role])


def test_registry_lists_every_rule_with_its_section_and_parameters(client, auth):
    body = client.get("/api/v1/rules", headers=auth["inspector"]).get_json()
    by_id = {r["id"]: r for r in body}
    assert len(body) == 17  # 11 field rules and the 6 permit rules (gis/rules/permits.py)
    assert by_id["TAP-SPACING-24IN"]["section"] == "§ 315-13B(2)"
    assert by_id["TAP-SPACING-24IN"]["parameters"] == {"min_spacing_in": 24.0}
    assert by_id["HOOKUP-365"]["parameters"]["adjacent_within_ft"] == 150.0


@pytest.mark.parametrize("role", ["inspector", "clerk"])
def test_only_a_superintendent_or_admin_runs_the_network(client, auth, role):
    assert client.post("/api/v1/rules/run", headers=auth[role]).status_code == 403


def test_run_is_a_job_whose_result_is_the_counts_and_timing(client, auth, seeded_city_300):
    r = client.post("/api/v1/rules/run", headers=auth["superintendent"])
    assert r.status_code == 202, r.get_json()
    job = r.get_json()
    assert job["state"] == "done" and r.headers["Location"].endswith(f"/api/v1/jobs/{job['id']}")
    assert client.get(r.headers["Location"], headers=auth["superintendent"]).get_json()["result"] == job["result"]
    body = job["result"]
    assert body["opened"] == body["found"] == len(stored()) > 0
    assert (body["kept"], body["resolved"]) == (0, 0)
    assert body["seconds"]["total"] >= body["seconds"]["check"] >= 0


def test_run_of_one_rule(client, auth, seeded_city_300):
    r = client.post("/api/v1/rules/run", json={"rules": ["TAP-QUADRANT"]}, headers=auth["admin"])
    assert r.get_json()["result"]["opened"] == len([d for d in planted(seeded_city_300) if d[0] == "TAP-QUADRANT"])


def test_run_of_an_unknown_rule_is_422(client, auth):
    r = client.post("/api/v1/rules/run", json={"rules": ["NO-SUCH"]}, headers=auth["admin"])
    assert (r.status_code, r.get_json()["error"]["code"]) == (422, "invalid_fields")


def test_violations_are_geojson_with_evidence_and_citations(client, auth, ran):
    r = client.get("/api/v1/violations?rule_id=TAP-SPACING-24IN", headers=auth["inspector"])
    assert (r.status_code, r.mimetype) == (200, "application/geo+json")
    features = r.get_json()["features"]
    pairs = [d for d in planted(ran) if d[0] == "TAP-SPACING-24IN"]
    assert len(features) == len(pairs) // 2 > 0
    first = features[0]
    assert first["geometry"]["type"] == "LineString"
    props = first["properties"]
    assert (props["section"], props["unit"], props["status"]) == ("§ 315-13B(2)", "in", "open")
    assert props["measured"] < props["limit"] == 24.0
    assert [layer for layer, _ in props["subjects"]] == ["tap", "tap"]


@pytest.mark.parametrize("name", ["parcel_id", "subject"])
def test_violations_filter_by_parcel_and_subject(client, auth, ran, name):
    rule_id, layer, ident = next(d for d in planted(ran) if d[0] == "BACKFLOW-VALVE")
    row = next(v for v in stored() if v.rule_id == rule_id and v.subject_id == ident)
    query = f"parcel_id={row.parcel_id}" if name == "parcel_id" else f"subject_type={layer}&subject_id={ident}"
    body = client.get(f"/api/v1/violations?{query}", headers=auth["inspector"]).get_json()
    assert row.id in [f["id"] for f in body["features"]]
    assert all(f["properties"]["parcel_id"] == row.parcel_id for f in body["features"])


def test_violations_filter_by_bbox_uses_the_evidence(client, auth, ran):
    row = next(v for v in stored() if v.rule_id == "TAP-QUADRANT")
    x, y = to_shape(row.evidence).coords[0]
    near = f"{x - 1e-5},{y - 1e-5},{x + 1e-5},{y + 1e-5}"
    far = "10,10,10.001,10.001"
    got = client.get(f"/api/v1/violations?bbox={near}", headers=auth["inspector"]).get_json()["features"]
    assert row.id in [f["id"] for f in got]
    assert client.get(f"/api/v1/violations?bbox={far}", headers=auth["inspector"]).get_json()["features"] == []


def test_violations_page_with_a_next_link(client, auth, ran):
    first = client.get("/api/v1/violations?limit=3&status=open", headers=auth["inspector"])
    body = first.get_json()
    nxt = next(link["href"] for link in body["links"] if link["rel"] == "next")
    second = client.get(nxt, headers=auth["inspector"]).get_json()
    ids = [f["id"] for f in body["features"]] + [f["id"] for f in second["features"]]
    assert len(body["features"]) == 3 and ids == sorted(set(ids))


def test_violations_query_refuses_unknown_parameters(client, auth):
    r = client.get("/api/v1/violations?colour=red", headers=auth["inspector"])
    assert (r.status_code, r.get_json()["error"]["code"]) == (422, "invalid_fields")


def test_one_violation_and_a_missing_one(client, auth, ran):
    row = stored()[0]
    r = client.get(f"/api/v1/violations/{row.id}", headers=auth["inspector"])
    assert (r.status_code, r.get_json()["properties"]["key"], r.headers["ETag"]) == (200, row.key, '"1"')
    assert client.get("/api/v1/violations/999999", headers=auth["inspector"]).status_code == 404


def test_superintendent_waives_with_a_reason(client, auth, ran):
    row = stored()[0]
    r = waive(client, auth, row.id, reason="Council approved the existing connection, 2026-10-12")
    assert r.status_code == 200, r.get_json()
    props = r.get_json()["properties"]
    assert (props["status"], props["waiver_reason"]) == (
        "waived", "Council approved the existing connection, 2026-10-12")
    assert props["waived_by_id"] is not None and props["waived_at"]


@pytest.mark.parametrize("role", ["inspector", "clerk", "admin"])
def test_only_the_superintendent_waives(client, auth, ran, role):
    assert waive(client, auth, stored()[0].id, role=role, reason="because").status_code == 403


@pytest.mark.parametrize("body", [{}, {"reason": ""}, {"reason": "   "}])
def test_a_waiver_needs_a_reason(client, auth, ran, body):
    r = waive(client, auth, stored()[0].id, **body)
    assert (r.status_code, r.get_json()["error"]["code"]) == (422, "invalid_fields")


def test_waiving_a_violation_that_is_not_open_is_409(client, auth, ran):
    vid = stored()[0].id
    assert waive(client, auth, vid, reason="accepted").status_code == 200
    r = waive(client, auth, vid, reason="again")
    assert (r.status_code, r.get_json()["error"]["code"]) == (409, "not_open")


def test_a_waived_violation_is_not_reopened_or_resolved_by_a_rerun(client, auth, ran):
    row = stored()[0]
    waive(client, auth, row.id, reason="accepted")
    outcome = rules.run_network()
    assert (outcome.opened, outcome.resolved, outcome.waived_skipped) == (0, 0, 1)
    assert [v.id for v in stored("waived")] == [row.id]
    assert row.key not in {v.key for v in stored()}
