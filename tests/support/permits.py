"""Permits as the API takes them: an application's body, and a walk to a state."""

from __future__ import annotations

from datetime import date

#: Far from any test's today: a license that is valid, one that has lapsed.
VALID_UNTIL = date(2099, 12, 31)
LAPSED_ON = date(2020, 1, 1)
#: A day in Arcadia's frozen season (12-01 to 04-15) and one outside it, both ahead.
FROZEN_DAY = date(2099, 1, 15)
THAWED_DAY = date(2099, 6, 15)


def application(parcel_id: int, **changes) -> dict:
    """A complete application for a new connection by the owner, with a licensed plumber."""
    body = {
        "parcel_id": parcel_id, "kind": "new_connection", "applicant_name": "Dana Kowalski",
        "applicant_phone": "608-555-0110", "plumber_name": "Trempealeau Plumbing",
        "plumber_license": "222614-222", "plumber_license_expires": VALID_UNTIL.isoformat(),
        "wastes": "domestic sewage from a single-family dwelling", "connection_kind": "gravity",
        "connection_size_in": 6,
    }
    body.update(changes)
    return body


#: The steps to each state after ``applied``: (event, role, body).
PATHS: dict[str, list[tuple[str, str, dict]]] = {
    "applied": [],
    "under_review": [("review", "clerk", {})],
}
PATHS["approved"] = PATHS["under_review"] + [("approve", "superintendent", {})]
PATHS["issued"] = PATHS["approved"] + [("pay", "clerk", {"receipt_number": "R-1001"}), ("issue", "clerk", {})]
PATHS["scheduled"] = PATHS["issued"] + [("schedule", "clerk", {"work_on": THAWED_DAY.isoformat()})]
PATHS["inspection_requested"] = PATHS["scheduled"] + [
    ("request_inspection", "clerk", {"earliest": "2099-06-15T08:00:00-05:00", "contact": "Dana, 608-555-0110"})]
PATHS["passed"] = PATHS["inspection_requested"] + [("pass", "inspector", {})]
PATHS["connected"] = PATHS["passed"] + [("connect", "inspector", {})]
PATHS["closed"] = PATHS["connected"] + [("close", "clerk", {})]


def apply(client, auth, parcel_id: int, **changes) -> dict:
    response = client.post("/api/v1/permits", json=application(parcel_id, **changes), headers=auth["clerk"])
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def walk(client, auth, permit_id: int, state: str) -> dict:
    """Take a permit from ``applied`` to ``state`` through the API."""
    body = None
    for event, role, data in PATHS[state]:
        response = client.post(f"/api/v1/permits/{permit_id}/{event}", json=data, headers=auth[role])
        assert response.status_code == 200, (event, response.get_json())
        body = response.get_json()
    return body or client.get(f"/api/v1/permits/{permit_id}", headers=auth["clerk"]).get_json()


def applied_and_issued(client, auth, parcel_id: int) -> tuple[dict, dict]:
    """Two permits on the parcel: a new connection just applied for (the applicant's email
    ``dana@example.org``), and a tap permit issued."""
    first = apply(client, auth, parcel_id, applicant_email="dana@example.org")
    second = apply(client, auth, parcel_id, kind="tap")
    walk(client, auth, second["id"], "issued")
    return first, second


def issue_tap_permit(client, headers, parcel_id: int) -> int:
    """Apply for, approve, pay and issue a tap permit on the parcel as one role that may take
    every step (an administrator): a tap recorded there is then under a permit (TAP-PERMIT)."""
    response = client.post("/api/v1/permits", json=application(parcel_id, kind="tap"), headers=headers)
    assert response.status_code == 201, response.get_json()
    permit_id = response.get_json()["id"]
    for event, _role, data in PATHS["issued"]:
        step = client.post(f"/api/v1/permits/{permit_id}/{event}", json=data, headers=headers)
        assert step.status_code == 200, (event, step.get_json())
    return permit_id


def issue_tap_permit_as(actor, parcel_id: int) -> None:
    """The same in the caller's app context, through the services, as ``actor`` (a
    superintendent or administrator may take every step)."""
    from server.permits import workflow

    body = application(parcel_id, kind="tap")
    body["plumber_license_expires"] = VALID_UNTIL
    permit = workflow.apply(actor, **body)
    for event, _role, data in PATHS["issued"]:
        workflow.step(permit, event, actor, **data)
