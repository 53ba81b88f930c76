"""Reading inspections, templates and assignments: who sees what."""

from __future__ import annotations

import pytest

from tests.sync.conftest import push, record, survey


@pytest.fixture
def assignment_body(user, parcel, templates):
    return {"inspector_id": user("inspector").id, "parcel_id": parcel, "template_id": "tap",
            "due_on": "2026-12-01", "reason": "new tap on Main St"}


def test_inspectors_do_not_create_assignments(client, auth, assignment_body):
    response = client.post("/api/v1/assignments", json=assignment_body, headers=auth["inspector"])
    assert response.status_code == 403


def test_assignment_to_an_unknown_checklist_is_422(client, auth, assignment_body):
    response = client.post("/api/v1/assignments", json={**assignment_body, "template_id": "roof"},
                           headers=auth["superintendent"])
    assert response.status_code == 422
    assert "template_id" in response.get_json()["error"]["details"]["fields"]


def test_inspectors_see_only_their_own_assignments(client, auth, user, assignment_body):
    client.post("/api/v1/assignments", json=assignment_body, headers=auth["superintendent"])
    client.post("/api/v1/assignments", json={**assignment_body, "inspector_id": user("superintendent").id},
                headers=auth["superintendent"])
    mine = client.get("/api/v1/assignments", headers=auth["inspector"]).get_json()
    everyone = client.get("/api/v1/assignments", headers=auth["superintendent"]).get_json()
    assert [a["inspector_id"] for a in mine] == [user("inspector").id]
    assert len(everyone) == 2


def test_inspection_list_filters_and_hides_other_inspectors_work(client, auth, parcel, templates):
    push(client, auth["inspector"], record(survey(parcel, [])))
    push(client, auth["superintendent"], record(survey(parcel, [], access="refused")))
    own = client.get(f"/api/v1/inspections?parcel_id={parcel}", headers=auth["inspector"]).get_json()
    assert [i["answers"]["access"] for i in own["inspections"]] == ["granted"]
    clerk = client.get("/api/v1/inspections?template=clear-water-survey", headers=auth["clerk"]).get_json()
    assert len(clerk["inspections"]) == 2


def test_another_inspectors_inspection_is_404_to_an_inspector(client, auth, parcel, templates):
    rec = record(survey(parcel, []))
    push(client, auth["superintendent"], rec)
    assert client.get(f"/api/v1/inspections/{rec['uuid']}", headers=auth["inspector"]).status_code == 404
    body = client.get(f"/api/v1/inspections/{rec['uuid']}", headers=auth["clerk"]).get_json()
    assert (body["template_id"], body["result"], body["photos_complete"]) == ("clear-water-survey", "pass", True)


def test_templates_list_and_one_version(client, auth, templates):
    listed = client.get("/api/v1/templates", headers=auth["inspector"]).get_json()["templates"]
    assert {t["id"]: t["version"] for t in listed}["tap"] == 2  # v2 marks the permit number short
    one = client.get("/api/v1/templates/tap/2", headers=auth["inspector"]).get_json()
    assert [i["id"] for i in one["items"]][:2] == ["permit_number", "method"]
    assert client.get("/api/v1/templates/tap/3", headers=auth["inspector"]).status_code == 404


def test_unknown_query_parameters_are_422(client, auth):
    response = client.get("/api/v1/inspections?colour=red", headers=auth["inspector"])
    assert response.status_code == 422
