"""A later inspection closes what it disproves, through the push: a survey let in resolves
refused access, a passing reinspection resolves what it names and complies the notice, a
failing one changes nothing; the parcel leaves the survey map as resolved."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from sqlalchemy import func, select

from server.core.audit.models import AuditEvent
from server.core.extensions import db
from server.network.models import Parcel
from server.notices.models import NoticeViolation
from server.notices.tick import tick
from tests.support.notices import add_violation, post
from tests.support.resolutions import (
    ACCESS,
    CW,
    at,
    day,
    notice,
    reinspection,
    send,
    status,
    sump_pump_notice,
    survey_state,
    violation_props,
    violations,
)
from tests.support.survey import notice_for
from tests.support.sync import push, record, sump_pump, survey

# ---------------------------------------------------------------- refused access (Art. I; § 315-12F)


@pytest.mark.parametrize("sources, state", [([], "resolved"), ([sump_pump()], "finding_open")])
def test_a_later_survey_let_in_resolves_refused_access(client, auth, templates, parcel_id, sources, state):
    send(client, auth, survey(parcel_id, access="refused", **at(10)))
    assert survey_state(client, auth, parcel_id) == "access_refused"
    visit = send(client, auth, survey(parcel_id, sources, **at(3)))
    [access] = [v.id for v in violations(parcel_id, ACCESS)]
    props = violation_props(client, auth, access)
    assert (props["status"], props["resolved_by_inspection_id"]) == ("resolved", visit["server_id"])
    assert props["resolved_at"] is not None
    body = client.get(f"/api/v1/inspections/{visit['uuid']}", headers=auth["superintendent"]).get_json()
    assert body["resolved_violation_ids"] == [access]
    assert survey_state(client, auth, parcel_id) == state  # a pump found is still news


def test_resolving_is_audited_with_the_inspection(client, auth, templates, parcel_id):
    send(client, auth, survey(parcel_id, access="refused", **at(10)))
    visit = send(client, auth, survey(parcel_id, [], **at(3)))
    [access] = violations(parcel_id, ACCESS)
    event = db.session.scalars(select(AuditEvent).filter_by(action="resolve", subject_type="violation",
                                                            subject_id=access.id)).one()
    assert event.after["inspection"] == visit["uuid"] and event.before == {"status": "open"}


def test_a_visit_made_before_the_refusal_but_synced_after_it_resolves_nothing(client, auth, templates, parcel_id):
    send(client, auth, survey(parcel_id, access="refused", **at(3)))
    send(client, auth, survey(parcel_id, [], **at(10)))  # the tablet was offline for a week
    assert [v.status for v in violations(parcel_id, ACCESS)] == ["open"]
    assert survey_state(client, auth, parcel_id) == "access_refused"


def test_a_refusal_synced_after_a_later_visit_let_in_is_resolved_by_that_visit(client, auth, templates, parcel_id):
    visit = send(client, auth, survey(parcel_id, [], **at(3)))
    refusal = send(client, auth, survey(parcel_id, access="refused", **at(10)))
    [(access, *settled)] = [(v.id, v.status, v.resolved_by_inspection_id) for v in violations(parcel_id, ACCESS)]
    assert settled == ["resolved", visit["server_id"]] and refusal["result"] == "fail"
    body = client.get(f"/api/v1/inspections/{refusal['uuid']}", headers=auth["superintendent"]).get_json()
    assert (body["violation_ids"], body["resolved_violation_ids"]) == ([access], [])
    assert survey_state(client, auth, parcel_id) == "resolved"


def test_refused_again_resolves_nothing(client, auth, templates, parcel_id):
    send(client, auth, survey(parcel_id, access="refused", **at(10)))
    send(client, auth, survey(parcel_id, access="refused", **at(3)))
    assert [v.status for v in violations(parcel_id, ACCESS)] == ["open"]


def test_a_reinspection_let_in_resolves_refused_access_and_complies_its_notice(client, auth, templates, parcel_id):
    send(client, auth, survey(parcel_id, access="refused", **at(30)))
    notice_id = notice_for(client, auth, parcel_id, mailed_days_ago=20, delivered_days_ago=18)
    assert notice(client, auth, notice_id)["kind"] == ACCESS
    visit = send(client, auth, reinspection(parcel_id, ACCESS))
    assert [(v.status, v.resolved_by_inspection_id) for v in violations(parcel_id, ACCESS)] == [
        ("resolved", visit["server_id"])]
    assert notice(client, auth, notice_id)["state"] == "complied"
    assert survey_state(client, auth, parcel_id) == "resolved"


# ---------------------------------------------------------------- the reinspection (§ 315-13D, § 315-21B)


def test_a_passing_reinspection_resolves_the_violation_and_complies_the_notice(client, auth, templates, parcel_id):
    vid, notice_id = sump_pump_notice(client, auth, parcel_id)
    assert survey_state(client, auth, parcel_id) == "notice_sent"
    visit = send(client, auth, reinspection(parcel_id, CW, days_ago=2))
    assert visit["result"] == "pass"
    props = violation_props(client, auth, vid)
    assert (props["status"], props["resolved_by_inspection_id"]) == ("resolved", visit["server_id"])
    after = notice(client, auth, notice_id)
    assert (after["state"], after["complied_on"], after["complied_reason"]) == (
        "complied", day(2).isoformat(), f"resolved by inspection {visit['server_id']}")
    assert db.session.scalars(select(NoticeViolation.closed).filter_by(notice_id=notice_id)).all() == [True]
    comply = db.session.scalars(select(AuditEvent).filter_by(action="comply", subject_type="notice",
                                                             subject_id=notice_id)).one()
    assert comply.after["state"] == "complied" and comply.before["state"] == "delivered"
    assert survey_state(client, auth, parcel_id) == "resolved"
    assert tick()["complied"] == []  # nothing left for the daily run


def test_a_failing_reinspection_changes_nothing(client, auth, templates, parcel_id):
    vid, notice_id = sump_pump_notice(client, auth, parcel_id)
    before = notice(client, auth, notice_id)
    visit = send(client, auth, reinspection(parcel_id, CW, corrected="no"))
    assert visit["result"] == "fail"
    assert [(v.id, v.status) for v in violations(parcel_id, CW)] == [(vid, "open")]
    after = notice(client, auth, notice_id)
    assert (after["state"], after["deadline"], after["version"]) == ("delivered", before["deadline"],
                                                                     before["version"])
    assert survey_state(client, auth, parcel_id) == "notice_sent"
    deadline = date.fromisoformat(after["deadline"])
    assert tick(deadline + timedelta(days=1))["overdue"] == [notice_id]  # the clock kept running


def test_a_reinspection_of_another_rule_resolves_nothing(client, auth, templates, parcel_id):
    vid, notice_id = sump_pump_notice(client, auth, parcel_id)
    send(client, auth, reinspection(parcel_id, "BACKFLOW-VALVE"))
    assert status(vid) == ("open", None)
    assert tick()["complied"] == []
    assert notice(client, auth, notice_id)["state"] == "delivered"


def test_resending_the_passing_reinspection_changes_nothing(client, auth, templates, parcel_id):
    vid, notice_id = sump_pump_notice(client, auth, parcel_id)
    rec = record(reinspection(parcel_id, CW))
    [first] = push(client, auth["inspector"], rec)
    state = (violation_props(client, auth, vid), notice(client, auth, notice_id),
             db.session.scalar(select(func.count()).select_from(AuditEvent)))
    [again] = push(client, auth["inspector"], rec)
    assert (again["status"], again["code"], again["server_id"]) == (200, "duplicate", first["server_id"])
    assert (violation_props(client, auth, vid), notice(client, auth, notice_id),
            db.session.scalar(select(func.count()).select_from(AuditEvent))) == state
    assert state[0]["status"] == "resolved" and state[1]["state"] == "complied"


def test_a_notice_cited_for_several_rules_complies_when_the_last_is_resolved(client, auth, templates, parcel_id):
    owner = db.session.get(Parcel, parcel_id)
    backflow = add_violation(owner, "BACKFLOW-VALVE", "§ 315-12D", "no backflow valve on the service").id
    wire = add_violation(owner, "TRACER-WIRE", "§ 315-13C(3)", "no tracer wire at the wall").id
    notice_id = notice_for(client, auth, parcel_id, mailed_days_ago=20, delivered_days_ago=18)
    assert notice(client, auth, notice_id)["kind"] == "GENERAL-VIOLATION"
    send(client, auth, reinspection(parcel_id, "BACKFLOW-VALVE", days_ago=3))
    assert (status(backflow)[0], status(wire)[0]) == ("resolved", "open")
    assert notice(client, auth, notice_id)["state"] == "delivered"
    # Naming the notice's own rule (§ 315-21B) checks all it cites.
    last = send(client, auth, reinspection(parcel_id, "CORRECTION", days_ago=2))
    assert status(wire) == ("resolved", last["server_id"])
    assert notice(client, auth, notice_id)["state"] == "complied"
    assert survey_state(client, auth, parcel_id) == "resolved"


def test_a_notice_not_yet_mailed_is_left_to_the_desk(client, auth, templates, parcel_id):
    send(client, auth, survey(parcel_id, [sump_pump()], **at(30)))
    notice_id = notice_for(client, auth, parcel_id, mailed_days_ago=None)
    send(client, auth, reinspection(parcel_id, CW))
    assert [v.status for v in violations(parcel_id, CW)] == ["resolved"]
    assert notice(client, auth, notice_id)["state"] == "draft"


def test_a_violation_the_rules_engine_found_is_left_to_the_rules_engine(client, auth, templates, parcel_id):
    found = add_violation(db.session.get(Parcel, parcel_id), "BACKFLOW-VALVE", "§ 315-12D", "no backflow valve")
    found.source = "rules"
    db.session.flush()
    found_id = found.id
    send(client, auth, reinspection(parcel_id, "BACKFLOW-VALVE"))
    assert status(found_id) == ("open", None)


def test_the_waived_stay_waived(client, auth, templates, parcel_id):
    send(client, auth, survey(parcel_id, access="refused", **at(10)))
    [access] = violations(parcel_id, ACCESS)
    r = post(client, auth, "superintendent", f"/violations/{access.id}/waive", {"reason": "tenant's refusal"})
    assert r.status_code == 200, r.get_json()
    send(client, auth, survey(parcel_id, [], **at(3)))
    assert [(v.status, v.resolved_by_inspection_id) for v in violations(parcel_id, ACCESS)] == [("waived", None)]
