"""An inspector's field edit outside their assigned parcels is a proposal, not a change
(issue 15, row 3): the superintendent accepts or rejects it."""

from __future__ import annotations

from sqlalchemy import select

from server.core.accounts.models import User
from server.core.audit.models import AuditEvent
from server.core.extensions import db
from server.field.models import Assignment, PushRecord, SyncConflict
from server.network.models import Lateral
from tests.support.sync import make_feature, push, record


def _edit(layer: str, fid: int, base_version: int = 1, **props) -> dict:
    return record({"layer": layer, "id": fid, "base_version": base_version, "properties": props},
                  kind="feature_edit")


def _lateral(number: str, assigned_to: str | None = None) -> int:
    parcel = make_feature("parcels", parcel_number=number)
    if assigned_to:
        inspector = db.session.scalar(select(User.id).filter_by(username=assigned_to))
        db.session.add(Assignment(inspector_id=inspector, parcel_id=parcel, template_id="clear-water-survey"))
        db.session.commit()
    return make_feature("laterals", parcel_id=parcel, backflow_valve=False)


def test_a_backflow_valve_on_someone_elses_lateral_is_only_proposed(client, auth, app):
    lateral = _lateral("206-00911-0000")
    [result] = push(client, auth["inspector"], _edit("laterals", lateral, backflow_valve=True))
    assert (result["status"], result["code"]) == (202, "proposed"), result
    assert db.session.get(Lateral, lateral).backflow_valve is False
    conflict = db.session.get(SyncConflict, result["conflict_id"])
    assert (conflict.status, conflict.proposed["properties"]) == ("open", {"backflow_valve": True})
    held = db.session.scalars(select(AuditEvent).filter_by(action="hold", subject_id=conflict.id)).one()
    assert held.after["why"] == "proposed"
    assert db.session.scalars(select(PushRecord.outcome)).all() == ["proposed"]


def test_a_resent_proposal_is_not_held_twice(client, auth, app):
    lateral = _lateral("206-00912-0000")
    rec = _edit("laterals", lateral, backflow_valve=True)
    first = push(client, auth["inspector"], rec)[0]
    [again] = push(client, auth["inspector"], rec)
    assert (again["code"], again["outcome"], again["conflict_id"]) == ("duplicate", "proposed", first["conflict_id"])
    assert len(db.session.scalars(select(SyncConflict)).all()) == 1


def test_an_edit_on_an_assigned_parcel_is_applied(client, auth, app):
    lateral = _lateral("206-00913-0000", assigned_to="inspector1")
    [result] = push(client, auth["inspector"], _edit("laterals", lateral, backflow_valve=True))
    assert (result["status"], result["code"]) == (201, "created"), result
    assert db.session.get(Lateral, lateral).backflow_valve is True


def test_a_manhole_is_shared_network_and_always_a_proposal(client, auth, app):
    manhole = make_feature("manholes")
    [result] = push(client, auth["inspector"], _edit("manholes", manhole, rim_elev_ft=700.0))
    assert (result["status"], result["code"]) == (202, "proposed")


def test_the_superintendents_edits_apply_anywhere(client, auth, app):
    lateral = _lateral("206-00914-0000")
    [result] = push(client, auth["superintendent"], _edit("laterals", lateral, backflow_valve=True))
    assert result["status"] == 201


def test_the_superintendent_accepts_a_proposal(client, auth, app):
    lateral = _lateral("206-00915-0000")
    conflict_id = push(client, auth["inspector"], _edit("laterals", lateral, backflow_valve=True))[0]["conflict_id"]
    assert client.post(f"/api/v1/sync/conflicts/{conflict_id}/resolve", json={"decision": "apply"},
                       headers=auth["inspector"]).status_code == 403
    r = client.post(f"/api/v1/sync/conflicts/{conflict_id}/resolve", json={"decision": "apply"},
                    headers=auth["superintendent"])
    assert (r.status_code, r.get_json()["status"]) == (200, "applied")
    assert db.session.get(Lateral, lateral).backflow_valve is True
    boss = db.session.scalar(select(User.id).filter_by(username="superintendent1"))
    update = db.session.scalars(select(AuditEvent).filter_by(action="update", subject_type="lateral",
                                                             subject_id=lateral)).one()
    assert update.user_id == boss


def test_the_superintendent_rejects_a_proposal(client, auth, app):
    lateral = _lateral("206-00916-0000")
    conflict_id = push(client, auth["inspector"], _edit("laterals", lateral, backflow_valve=True))[0]["conflict_id"]
    r = client.post(f"/api/v1/sync/conflicts/{conflict_id}/resolve", json={"decision": "discard"},
                    headers=auth["superintendent"])
    assert (r.status_code, r.get_json()["status"]) == (200, "discarded")
    assert db.session.get(Lateral, lateral).backflow_valve is False
