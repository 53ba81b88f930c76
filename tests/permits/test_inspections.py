"""The inspection before backfill under a permit: the request becomes an assignment with
the permit's conditions on the tablet; a tap recorded without its permit is refused; a
stored inspection passes or fails the permit."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from server.core.accounts.models import User
from server.core.extensions import db
from server.field.models import Assignment, Inspection
from tests.support.notices import add_parcel
from tests.support.permits import apply, issue_tap_permit, walk
from tests.support.sync import pull, push, record, survey

REQUEST = {"earliest": "2099-06-15T08:00:00-05:00", "contact": "Dana, 608-555-0110"}
TAP_ANSWERS = {"method": "saddle", "material_matches_main": "na", "clock_position": 12,
               "joint_distance_in": 30, "connection_distance_in": 60, "ground_frozen": "no"}


def _inspector_id() -> int:
    return db.session.scalar(select(User.id).filter_by(username="inspector1"))


def _requested(client, auth, parcel_id: int, kind: str = "new_connection", assign: bool = True) -> dict:
    permit = apply(client, auth, parcel_id, kind=kind)
    walk(client, auth, permit["id"], "scheduled")
    body = {**REQUEST, **({"inspector_id": _inspector_id()} if assign else {})}
    response = client.post(f"/api/v1/permits/{permit['id']}/request_inspection", json=body,
                           headers=auth["superintendent"])
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def _tap(parcel_id: int, **answers) -> dict:
    return {**survey(parcel_id, []), "template_id": "tap", "template_version": 3,
            "answers": {**TAP_ANSWERS, **answers}}


def test_the_request_becomes_an_assignment_with_the_permits_conditions(client, auth, templates, parcel):
    permit = _requested(client, auth, parcel.id)
    props = permit["properties"]
    assignment = db.session.get(Assignment, props["assignment_id"])
    assert (assignment.parcel_id, assignment.template_id, assignment.inspector_id) == (
        parcel.id, "new-lateral", _inspector_id())
    assert assignment.due_on.isoformat() == "2099-06-15" and props["number"] in assignment.reason
    pulled = next(a for a in pull(client, auth["inspector"])["assignments"] if a["id"] == assignment.id)
    conditions = pulled["permit"]
    assert conditions["number"] == props["number"] and conditions["connection_size_in"] == 6
    assert conditions["earliest"] == "2099-06-15T08:00:00-05:00"  # as the holder gave it, on both databases
    texts = {c["rule"]: c["text"] for c in conditions["conditions"]}
    assert texts["LATERAL-SDR26"] == "ASTM D3034 SDR 26 PVC pipe"
    assert "surface at the exterior wall" in texts["TRACER-WIRE"]
    assert texts["LATERAL-INSPECT"] == "air test at 5 psi or water test at a 10 ft head, held 15 minutes"


def test_a_tap_recorded_without_a_tap_permit_is_refused_and_nothing_is_written(client, auth, templates, parcel):
    before = db.session.scalar(select(func.count(Inspection.id)))
    [result] = push(client, auth["inspector"], record(_tap(parcel.id, permit_number="T-1")))
    assert (result["status"], result["code"]) == (422, "tap_without_permit")
    assert "§ 315-13B(1)" in result["message"]
    assert db.session.scalar(select(func.count(Inspection.id))) == before


def test_a_tap_permit_of_another_parcel_does_not_count(client, auth, templates, parcel):
    neighbour = add_parcel()
    issue_tap_permit(client, auth["admin"], neighbour.id)
    [result] = push(client, auth["inspector"], record(_tap(parcel.id, permit_number="T-1")))
    assert result["code"] == "tap_without_permit"
    [result] = push(client, auth["inspector"], record(_tap(neighbour.id, permit_number="T-1")))
    assert result.get("result") == "pass", result


def test_a_passing_tap_under_its_permit_passes_the_permit(client, auth, templates, parcel):
    permit = _requested(client, auth, parcel.id, kind="tap", assign=False)
    rec = record(_tap(parcel.id, permit_number=permit["properties"]["number"]))
    [result] = push(client, auth["inspector"], rec)
    assert result.get("result") == "pass", result
    props = client.get(f"/api/v1/permits/{permit['id']}", headers=auth["clerk"]).get_json()["properties"]
    inspection = db.session.scalar(select(Inspection).filter_by(uuid=rec["uuid"]))
    assert props["state"] == "passed" and props["inspection_id"] == inspection.id


def test_a_failing_inspection_fails_the_permit_with_section_and_measured_value(client, auth, templates, parcel):
    permit = _requested(client, auth, parcel.id, kind="tap", assign=False)
    data = _tap(parcel.id, permit_number=permit["properties"]["number"], joint_distance_in=4)
    [result] = push(client, auth["inspector"], record(data))
    assert result.get("result") == "fail", result
    props = client.get(f"/api/v1/permits/{permit['id']}", headers=auth["clerk"]).get_json()["properties"]
    assert props["state"] == "failed"
    [correction] = props["corrections"]
    assert correction["section"] == "§ 315-13B(2)" and correction["measured"] == "4"
    assert correction["rule_id"] == "TAP-JOINT-6IN"
    # The holder asks again once corrected.
    again = client.post(f"/api/v1/permits/{permit['id']}/request_inspection", json=REQUEST, headers=auth["clerk"])
    assert again.get_json()["properties"]["state"] == "inspection_requested"


def test_only_a_requested_inspection_is_assigned(client, auth, parcel):
    permit = apply(client, auth, parcel.id)
    walk(client, auth, permit["id"], "issued")
    response = client.post(f"/api/v1/permits/{permit['id']}/assign", json={"inspector_id": _inspector_id()},
                           headers=auth["superintendent"])
    assert response.status_code == 409
    assert db.session.scalar(select(func.count(Assignment.id)).filter_by(parcel_id=parcel.id)) == 0




def _inspections() -> int:
    return db.session.scalar(select(func.count(Inspection.id)))


def _issued(client, auth, parcel_id: int, kind: str = "tap", state: str = "issued") -> dict:
    permit = apply(client, auth, parcel_id, kind=kind)
    return walk(client, auth, permit["id"], state)


def test_the_number_of_another_parcels_permit_is_refused(client, auth, templates, parcel):
    neighbour = add_parcel()
    theirs = _issued(client, auth, neighbour.id)
    _issued(client, auth, parcel.id)  # this parcel has its own permit: the typed number is still wrong
    before = _inspections()
    [result] = push(client, auth["inspector"], record(_tap(parcel.id, permit_number=theirs["properties"]["number"])))
    assert (result["status"], result["code"]) == (422, "permit_not_for_parcel")
    assert f"permit {theirs['properties']['number']} is for another parcel (parcel {neighbour.parcel_number}" \
        in result["message"]
    assert _inspections() == before


def test_the_number_of_a_permit_for_other_work_is_refused(client, auth, templates, parcel):
    _issued(client, auth, parcel.id)
    excavation = _issued(client, auth, parcel.id, kind="excavation")
    [result] = push(client, auth["inspector"],
                    record(_tap(parcel.id, permit_number=excavation["properties"]["number"].lower())))
    assert result["code"] == "permit_not_for_tap"
    assert f"permit {excavation['properties']['number']} is an excavation permit" in result["message"]


@pytest.mark.parametrize("state", ["under_review", "closed"])
def test_the_number_of_a_permit_not_in_force_is_refused(client, auth, templates, parcel, state):
    _issued(client, auth, parcel.id)
    lapsed = _issued(client, auth, parcel.id, state=state)
    before = _inspections()
    [result] = push(client, auth["inspector"], record(_tap(parcel.id, permit_number=lapsed["properties"]["number"])))
    assert result["code"] == "permit_not_in_force"
    assert f"is {state.replace('_', ' ')}, not issued and in force" in result["message"]
    assert _inspections() == before


def test_the_right_number_links_the_inspection_to_its_permit(client, auth, templates, parcel):
    permit = _issued(client, auth, parcel.id)
    rec = record(_tap(parcel.id, permit_number=permit["properties"]["number"]))
    [result] = push(client, auth["inspector"], rec)
    assert result.get("result") == "pass", result
    props = client.get(f"/api/v1/permits/{permit['id']}", headers=auth["clerk"]).get_json()["properties"]
    inspection = db.session.scalar(select(Inspection).filter_by(uuid=rec["uuid"]))
    assert props["state"] == "issued" and props["inspection_id"] == inspection.id
    linked = props["history"][-1]
    assert linked["event"] == "inspection_linked" and linked["note"] is None
    assert linked["data"] == {"inspection_id": inspection.id}


def test_a_number_that_names_no_permit_is_flagged_on_the_parcels_permit(client, auth, templates, parcel):
    permit = _issued(client, auth, parcel.id)
    [result] = push(client, auth["inspector"], record(_tap(parcel.id, permit_number="T-77")))
    assert result.get("result") == "pass", result
    history = client.get(f"/api/v1/permits/{permit['id']}", headers=auth["clerk"]).get_json()["properties"]["history"]
    assert history[-1]["event"] == "inspection_linked"
    assert f"gave 'T-77', which is no permit of the city: the tap was recorded under permit " \
           f"{permit['properties']['number']}" in history[-1]["note"]
