"""A correction (``replaces``) replaces only one's own inspection (issue 15, row 5)."""

from __future__ import annotations

from server.core.extensions import db
from server.field.models import Inspection
from server.network.models import ClearWaterFinding
from tests.support.sync import push, record, sump_pump, survey


def _survey(client, auth, role, parcel, **extra) -> dict:
    [result] = push(client, auth[role], record(survey(parcel, [sump_pump()], **extra)))
    assert result["status"] == 201, result
    return result


def test_a_correction_of_another_inspectors_inspection_is_refused(client, auth, templates, parcel_id):
    theirs = _survey(client, auth, "superintendent", parcel_id)
    original = db.session.get(Inspection, theirs["server_id"])
    findings_before = list(original.finding_ids)
    [result] = push(client, auth["inspector"], record(survey(parcel_id, [], replaces=original.uuid)))
    assert (result["status"], result["code"]) == (403, "not_your_inspection")
    assert db.session.query(Inspection).filter_by(replaces_id=original.id).count() == 0
    assert all(db.session.get(ClearWaterFinding, fid) is not None for fid in findings_before)


def test_a_correction_of_ones_own_inspection_replaces_it(client, auth, templates, parcel_id):
    mine = _survey(client, auth, "inspector", parcel_id)
    original = db.session.get(Inspection, mine["server_id"])
    [result] = push(client, auth["inspector"], record(survey(parcel_id, [], replaces=original.uuid)))
    assert result["status"] == 201, result
    assert db.session.get(Inspection, result["server_id"]).replaces_id == original.id
