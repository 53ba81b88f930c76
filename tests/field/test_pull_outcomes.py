"""What a pull tells the inspector of their work: results, violations, notices, limits."""

from __future__ import annotations

from server.core.extensions import db
from tests.support.permits import issue_tap_permit
from tests.support.sync import assign, pull, push, record, sump_pump, survey


def _last_page(client, headers) -> dict:
    page = pull(client, headers)
    while page["more"]:
        page = pull(client, headers, page["cursor"])
    return page


def test_a_failed_inspection_comes_back_with_its_result_and_the_violation_it_opened(
        client, auth, templates, parcel_id):
    assign(parcel_id, "clear-water-survey")
    data = survey(parcel_id, [sump_pump()])
    [sent] = push(client, auth["inspector"], rec := record(data))
    page = _last_page(client, auth["inspector"])
    [result] = [r for r in page["results"] if r["uuid"] == rec["uuid"]]
    assert result["result"] == "fail" and result["failures"]
    opened = result["violations_opened"]
    assert [v["id"] for v in opened] == sent_violation_ids(client, auth, rec["uuid"])
    assert opened[0]["section"] and opened[0]["rule_title"]
    details = page["parcels"][str(parcel_id)]
    assert [v["id"] for v in details["violations"]] == [v["id"] for v in opened]
    assert [i["uuid"] for i in details["inspections"]] == [rec["uuid"]]
    assert details["parcel"]["parcel_number"] == "206-00042-0000"


def sent_violation_ids(client, auth, uuid: str) -> list[int]:
    return client.get(f"/api/v1/inspections/{uuid}", headers=auth["inspector"]).get_json()["violation_ids"]


def test_someone_elses_inspection_of_the_parcel_stays_theirs(client, auth, templates, parcel_id):
    assign(parcel_id, "clear-water-survey")
    other = record(survey(parcel_id, []))
    push(client, auth["superintendent"], other)
    page = _last_page(client, auth["inspector"])
    assert other["uuid"] not in {r["uuid"] for r in page["results"]}
    assert page["parcels"][str(parcel_id)]["inspections"] == []


def test_the_limit_is_in_the_failure_and_on_the_item(client, auth, templates, parcel_id):
    tap = next(t for t in pull(client, auth["inspector"])["templates"] if t["id"] == "tap")
    joint = next(i for i in tap["items"] if i["id"] == "joint_distance_in")
    assert joint["requirement"] == "§ 315-13B(2) allows at least 6 in"
    quadrant = next(i for i in tap["items"] if i["id"] == "clock_position")
    assert quadrant["requirement"] == "§ 315-13B(2) allows 0 to 1.5 or 10.5 to 12 o'clock"
    permit = next(i for i in tap["items"] if i["id"] == "permit_number")
    assert permit["short"] is True and "requirement" not in permit
    issue_tap_permit(client, auth["admin"], parcel_id)  # a tap is recorded under its permit (TAP-PERMIT)
    answers = {"permit_number": "T-1", "method": "saddle", "material_matches_main": "na", "clock_position": 12,
               "joint_distance_in": 4, "connection_distance_in": 30, "ground_frozen": "no"}
    data = {**survey(parcel_id, []), "template_id": "tap", "template_version": tap["version"], "answers": answers}
    [sent] = push(client, auth["inspector"], rec := record(data))
    assert sent["result"] == "fail"
    failures = client.get(f"/api/v1/inspections/{rec['uuid']}", headers=auth["inspector"]).get_json()["failures"]
    assert [f["message"] for f in failures] == [
        "Measured distance to the nearest pipe joint: answered 4 in; § 315-13B(2) allows at least 6 in"]


def test_rule_choices_carry_names_and_sections(client, auth, templates):
    reinspection = next(t for t in pull(client, auth["inspector"])["templates"] if t["id"] == "reinspection")
    rule = next(i for i in reinspection["items"] if i["id"] == "violation_rule")
    labels = rule.get("option_labels") or {}
    assert labels["CW-DISCONNECT-60"] == "Notice to disconnect clear water from the sanitary sewer — § 315-13D"
    assert labels["BACKFLOW-VALVE"] == "Every sewer service has a backflow prevention valve. — § 315-12D"
    assert set(labels) == set(rule["options"])  # a rule no register names reads as its words


def test_the_stored_template_is_unchanged_by_the_labels(client, auth, templates):
    from server.field.models import ChecklistTemplate

    row = db.session.scalars(db.select(ChecklistTemplate).filter_by(template_id="tap")).first()
    assert all("requirement" not in item for item in row.content["items"])
