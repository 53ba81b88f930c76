"""Push: idempotent by client UUID, each record whole or not at all, evaluated once."""

from __future__ import annotations

from sqlalchemy import func, select

from server.core.extensions import db
from server.field.models import Inspection, PushRecord
from server.network.models import ClearWaterFinding
from server.rules.models import Violation
from tests.support.sync import new_uuid, push, record, sump_pump, survey


def count(model, **where) -> int:
    return db.session.scalar(select(func.count()).select_from(model).filter_by(**where))


def test_new_inspection_is_created_with_missing_photos(client, auth, templates, parcel_id):
    [result] = push(client, auth["inspector"], record(survey(parcel_id, [sump_pump()])))
    assert (result["status"], result["code"]) == (201, "created")
    assert result["missing_photos"] == ["a" * 64]
    inspection = db.session.get(Inspection, result["server_id"])
    assert (inspection.parcel_id, inspection.result) == (parcel_id, "fail")


def test_resend_of_same_uuid_and_content_is_acknowledged_not_duplicated(client, auth, templates, parcel_id):
    rec = record(survey(parcel_id, [sump_pump(connected="no")]))
    first = push(client, auth["inspector"], rec)[0]
    again = push(client, auth["inspector"], rec)[0]
    assert (again["status"], again["code"], again["outcome"], again["result"]) == (200, "duplicate", "created",
                                                                                 "pass")
    assert again["server_id"] == first["server_id"]
    assert count(Inspection, uuid=rec["uuid"]) == 1


def test_same_uuid_with_other_content_is_409_uuid_reused(client, auth, templates, parcel_id):
    rec = record(survey(parcel_id, []))
    push(client, auth["inspector"], rec)
    changed = {**rec, "data": survey(parcel_id, [], access="refused")}
    [result] = push(client, auth["inspector"], changed)
    assert (result["status"], result["code"]) == (409, "uuid_reused")
    assert db.session.execute(select(Inspection.answers).filter_by(uuid=rec["uuid"])).scalar_one() == {
        "access": "granted", "sources": []}


def test_a_bad_record_does_not_spoil_the_others(client, auth, templates, parcel_id):
    good_before, bad, good_after = (record(survey(parcel_id, [])),
                                    record(survey(parcel_id, [{"source": "sump_pump"}])),
                                    record(survey(parcel_id, [], access="refused")))
    results = push(client, auth["inspector"], good_before, bad, good_after)
    assert [r["status"] for r in results] == [201, 422, 201]
    assert results[1]["code"] == "invalid"
    assert "answers.sources.0.connected_to_sanitary" in results[1]["details"]["fields"]
    assert count(Inspection, uuid=bad["uuid"]) == 0
    assert count(PushRecord, uuid=bad["uuid"]) == 0


def test_a_record_failing_half_way_leaves_nothing(client, auth, templates, parcel_id):
    # The violation and finding are written before the photo check of a later item would
    # fail; here the parcel is unknown, after the template was found: nothing stays.
    rec = record(survey(parcel_id + 1000, [sump_pump()]))
    [result] = push(client, auth["inspector"], rec)
    assert (result["status"], result["code"]) == (422, "unknown_parcel")
    assert (count(Inspection), count(ClearWaterFinding), count(Violation)) == (0, 0, 0)


def test_invalid_record_uuid_can_be_sent_again_once_fixed(client, auth, templates, parcel_id):
    uuid = new_uuid()
    push(client, auth["inspector"], record(survey(parcel_id, [{"source": "sump_pump"}]), uuid=uuid))
    [result] = push(client, auth["inspector"], record(survey(parcel_id, []), uuid=uuid))
    assert result["status"] == 201


def test_sump_pump_connected_opens_cw_disconnect_60_once(client, auth, templates, parcel_id):
    push(client, auth["inspector"], record(survey(parcel_id, [sump_pump(), sump_pump(photo="b" * 64)])))
    push(client, auth["inspector"], record(survey(parcel_id, [sump_pump()])))
    rows = db.session.execute(select(Violation).filter_by(rule_id="CW-DISCONNECT-60")).scalars().all()
    assert [(v.parcel_id, v.source, v.key, v.status) for v in rows] == [
        (parcel_id, "inspection", f"CW-DISCONNECT-60|inspection|parcel:{parcel_id}", "open")]
    assert rows[0].section == "§ 315-13D"
    assert count(ClearWaterFinding, parcel_id=parcel_id, source="sump_pump", connected_to_sanitary="yes") == 3


def test_refused_access_opens_survey_access_once_and_no_finding(client, auth, templates, parcel_id):
    [result] = push(client, auth["inspector"], record(survey(parcel_id, access="refused")))
    assert result["result"] == "fail"
    push(client, auth["inspector"], record(survey(parcel_id, access="refused")))  # refused again next visit
    [violation] = db.session.execute(select(Violation).filter_by(parcel_id=parcel_id)).scalars().all()
    assert violation.rule_id == "SURVEY-ACCESS"
    assert count(ClearWaterFinding) == 0


def test_passing_survey_opens_nothing(client, auth, templates, parcel_id):
    [result] = push(client, auth["inspector"], record(survey(parcel_id, [sump_pump(connected="no")])))
    assert result["result"] == "pass"
    assert count(Violation) == 0
    assert count(ClearWaterFinding, connected_to_sanitary="no") == 1


def test_answers_outside_the_template_are_refused(client, auth, templates, parcel_id):
    data = survey(parcel_id, [])
    data["answers"]["colour_of_door"] = "red"
    [result] = push(client, auth["inspector"], record(data))
    assert result["status"] == 422
    assert result["details"]["fields"] == {"answers.colour_of_door": ["not an item of this checklist"]}


def test_unknown_template_version_is_422(client, auth, templates, parcel_id):
    [result] = push(client, auth["inspector"], record(survey(parcel_id, [], template_version=9)))
    assert (result["status"], result["code"]) == (422, "unknown_template")


def test_correction_replaces_and_takes_over_the_findings(client, auth, templates, parcel_id):
    original = record(survey(parcel_id, [sump_pump()]))
    push(client, auth["inspector"], original)
    correction = record(survey(parcel_id, [sump_pump(connected="no")], replaces=original["uuid"]))
    [result] = push(client, auth["inspector"], correction)
    assert result["status"] == 201
    body = client.get(f"/api/v1/inspections/{original['uuid']}", headers=auth["inspector"]).get_json()
    assert body["superseded_by"] == correction["uuid"]
    assert body["answers"]["sources"][0]["connected_to_sanitary"] == "yes"  # unchanged
    assert [f.connected_to_sanitary for f in db.session.execute(select(ClearWaterFinding)).scalars()] == ["no"]


def test_second_correction_of_the_same_inspection_is_409(client, auth, templates, parcel_id):
    original = record(survey(parcel_id, []))
    push(client, auth["inspector"], original)
    push(client, auth["inspector"], record(survey(parcel_id, [], access="refused", replaces=original["uuid"])))
    [result] = push(client, auth["inspector"], record(survey(parcel_id, [sump_pump()], replaces=original["uuid"])))
    assert (result["status"], result["code"]) == (409, "already_replaced")


def test_clerks_cannot_push(client, auth, templates, parcel_id):
    response = client.post("/api/v1/sync/push", json={"records": []}, headers=auth["clerk"])
    assert response.status_code == 403


def test_malformed_batch_is_422_as_a_whole(client, auth, templates):
    response = client.post("/api/v1/sync/push", json={"records": [{"uuid": "x", "kind": "inspection"}]},
                           headers=auth["inspector"])
    assert response.status_code == 422
    assert response.get_json()["error"]["code"] == "invalid_fields"


def test_device_times_keep_their_instant_and_the_finding_its_local_day(client, auth, templates, parcel_id):
    data = survey(parcel_id, [sump_pump()], started_at="2026-11-30T23:10:00-06:00",
                  finished_at="2026-11-30T23:40:00-06:00")
    rec = record(data)
    push(client, auth["inspector"], rec)
    body = client.get(f"/api/v1/inspections/{rec['uuid']}", headers=auth["inspector"]).get_json()
    assert body["finished_at"] == "2026-12-01T05:40:00+00:00"
    finding = db.session.execute(select(ClearWaterFinding)).scalar_one()
    assert finding.observed_on.isoformat() == "2026-11-30"
