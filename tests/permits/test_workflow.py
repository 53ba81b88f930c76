"""The permit's record and workflow over the API: a permit from application to closed,
the refusals the ordinance makes (nothing written), the roles at each step."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from server.core.audit.models import AuditEvent
from server.core.extensions import db
from server.permits.models import Permit, PermitEvent
from tests.support.permits import FROZEN_DAY, LAPSED_ON, application, apply, walk


def _counts() -> tuple[int, int, int]:
    return (db.session.scalar(select(func.count(Permit.id))), db.session.scalar(select(func.count(PermitEvent.id))),
            db.session.scalar(select(func.count(AuditEvent.id))))


def test_a_permit_walks_from_application_to_closed_with_each_step_dated(client, auth, parcel):
    permit = apply(client, auth, parcel.id)
    assert permit["properties"]["state"] == "applied"
    assert permit["properties"]["fee_total"] == "600.00"  # the rulebook's fees for a new connection
    closed = walk(client, auth, permit["id"], "closed")
    props = closed["properties"]
    assert props["state"] == "closed"
    assert [h["event"] for h in props["history"]] == [
        "apply", "review", "approve", "pay", "issue", "schedule", "request_inspection", "pass", "connect", "close"]
    assert props["approval_basis"] == "delegation" and props["delegation"]
    assert props["paid"] is True and props["receipt_number"] == "R-1001"
    assert closed["geometry"]["type"] == "MultiPolygon"  # keyed on the parcel
    assert props["number"].endswith(f"{permit['id']:05d}")


@pytest.mark.parametrize(("changes", "code", "fragment"), [
    ({"plumber_license": "  "}, "plumber_unlicensed", "licensed in Wisconsin"),
    ({"plumber_license_expires": LAPSED_ON.isoformat()}, "plumber_license_expired", "expired on 2020-01-01"),
    ({"applicant_is_owner": False}, "owner_consent_missing", "owner's written consent"),
    ({"inside_limits": False}, "outside_limits", "2009-06-01"),
])
def test_an_application_the_ordinance_refuses_writes_nothing(client, auth, parcel, changes, code, fragment):
    before = _counts()
    response = client.post("/api/v1/permits", json=application(parcel.id, **changes), headers=auth["clerk"])
    assert response.status_code == 422
    error = response.get_json()["error"]
    assert error["code"] == code and fragment in error["message"]
    assert _counts() == before


def test_outside_the_limits_with_a_connection_on_the_day_is_taken_and_surcharged(client, auth, parcel):
    permit = apply(client, auth, parcel.id, inside_limits=False, connected_by_cutoff=True)
    assert permit["properties"]["surcharged"] is True


def test_a_tenant_with_the_owners_written_consent_may_apply(client, auth, parcel):
    permit = apply(client, auth, parcel.id, applicant_is_owner=False, owner_consent_by="Olive Owner",
                   owner_consent_on="2026-11-02")
    assert permit["properties"]["owner_consent_by"] == "Olive Owner"


def test_a_tap_in_frozen_ground_is_refused_unless_the_superintendent_overrides_it(client, auth, parcel):
    permit = apply(client, auth, parcel.id, kind="tap")
    walk(client, auth, permit["id"], "issued")
    before = _counts()
    url = f"/api/v1/permits/{permit['id']}/schedule"
    refused = client.post(url, json={"work_on": FROZEN_DAY.isoformat()}, headers=auth["clerk"])
    assert refused.status_code == 409
    assert refused.get_json()["error"]["code"] == "frozen_ground"
    assert "§ 315-13A(3)" in refused.get_json()["error"]["message"]
    clerk_override = client.post(url, json={"work_on": FROZEN_DAY.isoformat(), "frozen_override_reason": "emergency"},
                                 headers=auth["clerk"])
    assert clerk_override.status_code == 403
    assert _counts() == before
    done = client.post(url, json={"work_on": FROZEN_DAY.isoformat(),
                                  "frozen_override_reason": "sewage backing up into the basement"},
                       headers=auth["superintendent"])
    assert done.status_code == 200
    assert done.get_json()["properties"]["frozen_override_reason"] == "sewage backing up into the basement"


def test_a_lateral_repair_is_not_a_street_opening_in_frozen_ground(client, auth, parcel):
    permit = apply(client, auth, parcel.id, kind="lateral_repair")
    walk(client, auth, permit["id"], "issued")
    response = client.post(f"/api/v1/permits/{permit['id']}/schedule", json={"work_on": FROZEN_DAY.isoformat()},
                           headers=auth["clerk"])
    assert response.status_code == 200


def test_a_permit_is_issued_only_once_paid(client, auth, parcel):
    permit = apply(client, auth, parcel.id)
    walk(client, auth, permit["id"], "approved")
    response = client.post(f"/api/v1/permits/{permit['id']}/issue", json={}, headers=auth["clerk"])
    assert response.status_code == 409
    assert response.get_json()["error"]["code"] == "not_paid"
    assert db.session.get(Permit, permit["id"]).state == "approved"


def test_the_clerk_records_the_commissions_meeting_but_may_not_approve_by_delegation(client, auth, parcel):
    permit = apply(client, auth, parcel.id)
    walk(client, auth, permit["id"], "under_review")
    url = f"/api/v1/permits/{permit['id']}/approve"
    assert client.post(url, json={}, headers=auth["clerk"]).status_code == 403
    approved = client.post(url, json={"commission_meeting_on": "2026-11-10"}, headers=auth["clerk"])
    assert approved.status_code == 200
    props = approved.get_json()["properties"]
    assert props["approval_basis"] == "commission" and props["commission_meeting_on"] == "2026-11-10"


def test_a_rejection_needs_its_reason(client, auth, parcel):
    permit = apply(client, auth, parcel.id)
    url = f"/api/v1/permits/{permit['id']}/reject"
    assert client.post(url, json={}, headers=auth["clerk"]).get_json()["error"]["code"] == "reason_required"
    rejected = client.post(url, json={"reason": "the main is at capacity"}, headers=auth["clerk"]).get_json()
    assert rejected["properties"]["state"] == "rejected"
    assert rejected["properties"]["rejected_reason"] == "the main is at capacity"


def test_a_failed_inspection_lists_corrections_and_can_be_requested_again(client, auth, parcel):
    permit = apply(client, auth, parcel.id)
    walk(client, auth, permit["id"], "inspection_requested")
    url = f"/api/v1/permits/{permit['id']}"
    assert client.post(f"{url}/fail", json={}, headers=auth["inspector"]).status_code == 422
    correction = {"item": "pipe", "section": "§ 315-13C(3)", "measured": "SDR 35"}
    failed = client.post(f"{url}/fail", json={"corrections": [correction]}, headers=auth["inspector"]).get_json()
    assert failed["properties"]["state"] == "failed"
    assert failed["properties"]["corrections"] == [correction]
    again = client.post(f"{url}/request_inspection", json={"earliest": "2099-06-20T08:00:00-05:00",
                                                           "contact": "Dana"}, headers=auth["clerk"])
    assert again.get_json()["properties"]["state"] == "inspection_requested"


@pytest.mark.parametrize(("state", "event", "role", "status"), [
    ("applied", "issue", "clerk", 409),
    ("closed", "withdraw", "clerk", 409),
    ("applied", "review", "inspector", 403),
    ("inspection_requested", "pass", "clerk", 403),
])
def test_a_step_its_state_or_role_does_not_allow_is_refused(client, auth, parcel, state, event, role, status):
    permit = apply(client, auth, parcel.id)
    walk(client, auth, permit["id"], state)
    response = client.post(f"/api/v1/permits/{permit['id']}/{event}", json={}, headers=auth[role])
    assert response.status_code == status
    assert db.session.get(Permit, permit["id"]).state == state


def test_the_list_filters_by_state_kind_and_plumber(client, auth, parcel):
    tap = apply(client, auth, parcel.id, kind="tap", plumber_license="999999-222")
    other = apply(client, auth, parcel.id)
    walk(client, auth, other["id"], "under_review")

    def ids(query: str) -> set[int]:
        body = client.get(f"/api/v1/permits?{query}", headers=auth["inspector"]).get_json()
        return {f["id"] for f in body["features"]}

    assert tap["id"] in ids("kind=tap") and other["id"] not in ids("kind=tap")
    assert other["id"] in ids("state=under_review") and tap["id"] not in ids("state=under_review")
    assert ids("plumber=999999-222") >= {tap["id"]} and other["id"] not in ids("plumber=999999-222")
    assert client.get("/api/v1/permits?state=nonsense", headers=auth["clerk"]).status_code == 422


def test_the_list_pages_with_a_next_link(client, auth, parcel):
    for _ in range(3):
        apply(client, auth, parcel.id)
    first = client.get(f"/api/v1/permits?parcel_id={parcel.id}&limit=2", headers=auth["clerk"])
    assert len(first.get_json()["features"]) == 2
    nxt = [link["href"] for link in first.get_json()["links"] if link["rel"] == "next"][0]
    second = client.get(nxt, headers=auth["clerk"]).get_json()
    assert len(second["features"]) == 1


def test_the_permit_rules_are_in_the_rules_api_with_their_sections(client, auth):
    rules = {r["id"]: r for r in client.get("/api/v1/rules", headers=auth["inspector"]).get_json()}
    assert rules["TAP-PERMIT"]["section"] == "§ 315-13B(1)"
    assert rules["TAP-FROZEN"]["section"] == "§ 315-13A(3)"
    assert rules["EXCAVATION"]["parameters"]["backfill_layer_max_in"] == 6
    assert {"LATERAL-INSPECT", "CONNECT-SUPERVISED", "ABANDON-CAP"} <= set(rules)


def test_the_owners_personal_data_is_the_offices(client, auth, parcel):
    permit = apply(client, auth, parcel.id, applicant_email="dana@example.org")
    walk(client, auth, permit["id"], "inspection_requested")
    seen = client.get(f"/api/v1/permits/{permit['id']}", headers=auth["inspector"]).get_json()["properties"]
    assert seen["number"] == permit["properties"]["number"] and seen["plumber_name"] == "Trempealeau Plumbing"
    assert not {"applicant_name", "applicant_phone", "applicant_email", "inspection_contact"} & set(seen)
    assert all("contact" not in (h["data"] or {}) for h in seen["history"])
    listed = client.get("/api/v1/permits", headers=auth["inspector"]).get_data(as_text=True)
    assert "Dana" not in listed
    office = client.get(f"/api/v1/permits/{permit['id']}", headers=auth["clerk"]).get_json()["properties"]
    assert office["applicant_name"] == "Dana Kowalski" and office["inspection_contact"] == "Dana, 608-555-0110"
