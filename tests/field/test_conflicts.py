"""Edits to shared features name their base version; a stale one waits for the superintendent."""

from __future__ import annotations

from sqlalchemy import func, select

from server.core.extensions import db
from server.field.models import SyncConflict
from server.network.models import Tap
from tests.support.sync import assigned_tap, edit, make_feature, push, record


def test_edit_from_current_version_is_applied(client, auth, app):
    tap = assigned_tap()
    [result] = push(client, auth["inspector"], edit(tap, 1, clock_position=11.0))
    assert (result["status"], result["code"], result["version"]) == (201, "created", 2)
    assert db.session.get(Tap, tap).clock_position == 11.0


def test_stale_edit_is_held_as_a_conflict_and_not_applied(client, auth, app):
    tap = assigned_tap()
    push(client, auth["superintendent"], edit(tap, 1, clock_position=11.5))
    stale = edit(tap, 1, clock_position=10.0)
    [result] = push(client, auth["inspector"], stale)
    assert (result["status"], result["code"], result["current_version"]) == (409, "stale_version", 2)
    assert db.session.get(Tap, tap).clock_position == 11.5
    conflict = db.session.get(SyncConflict, result["conflict_id"])
    assert (conflict.status, conflict.base_version, conflict.proposed["properties"]) == (
        "open", 1, {"clock_position": 10.0})


def test_resending_a_stale_edit_does_not_hold_it_twice(client, auth, app):
    tap = assigned_tap()
    push(client, auth["superintendent"], edit(tap, 1, clock_position=11.5))
    stale = edit(tap, 1, clock_position=10.0)
    first = push(client, auth["inspector"], stale)[0]
    [again] = push(client, auth["inspector"], stale)
    assert (again["code"], again["outcome"], again["conflict_id"]) == ("duplicate", "stale_version",
                                                                       first["conflict_id"])
    assert db.session.scalar(select(func.count()).select_from(SyncConflict)) == 1


def test_superintendent_applies_a_conflict_on_top_of_the_current_version(client, auth, app):
    tap = assigned_tap()
    push(client, auth["superintendent"], edit(tap, 1, clock_position=11.5))
    conflict_id = push(client, auth["inspector"], edit(tap, 1, method="saddle"))[0]["conflict_id"]
    listed = client.get("/api/v1/sync/conflicts", headers=auth["superintendent"]).get_json()
    assert [c["id"] for c in listed] == [conflict_id]
    response = client.post(f"/api/v1/sync/conflicts/{conflict_id}/resolve", json={"decision": "apply"},
                           headers=auth["superintendent"])
    assert response.status_code == 200
    assert (response.get_json()["status"], response.get_json()["applied_version"]) == ("applied", 3)
    row = db.session.get(Tap, tap)
    assert (row.method, row.clock_position) == ("saddle", 11.5)


def test_discarded_conflict_changes_nothing_and_cannot_be_resolved_twice(client, auth, app):
    tap = assigned_tap()
    push(client, auth["superintendent"], edit(tap, 1, clock_position=11.5))
    conflict_id = push(client, auth["inspector"], edit(tap, 1, clock_position=3.0))[0]["conflict_id"]
    url = f"/api/v1/sync/conflicts/{conflict_id}/resolve"
    assert client.post(url, json={"decision": "discard"}, headers=auth["superintendent"]).status_code == 200
    again = client.post(url, json={"decision": "apply"}, headers=auth["superintendent"])
    assert (again.status_code, again.get_json()["error"]["code"]) == (409, "already_resolved")
    assert db.session.get(Tap, tap).clock_position == 11.5


def test_inspectors_do_not_resolve_conflicts(client, auth, app):
    assert client.get("/api/v1/sync/conflicts", headers=auth["inspector"]).status_code == 403


def test_inspectors_do_not_edit_mains_from_the_field(client, auth, app):
    main = make_feature("mains")
    rec = record({"layer": "mains", "id": main, "base_version": 1, "properties": {"diameter_in": 10}},
                 kind="feature_edit")
    [result] = push(client, auth["inspector"], rec)
    assert (result["status"], result["code"]) == (403, "forbidden")


def test_invalid_edit_is_refused_before_any_conflict(client, auth, app):
    tap = assigned_tap()
    push(client, auth["superintendent"], edit(tap, 1, clock_position=11.5))
    [result] = push(client, auth["inspector"], edit(tap, 1, method="glue"))
    assert (result["status"], result["code"]) == (422, "invalid")
    assert db.session.scalar(select(func.count()).select_from(SyncConflict)) == 0
