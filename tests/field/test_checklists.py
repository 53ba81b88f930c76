"""Checklist templates: the data files, their checks, loading and answering them."""

from __future__ import annotations

import json

import pytest

from server.core.extensions import db
from server.field.checklist_templates import load_templates
from server.field.checklists import AnswerError, TemplateError, check_answers, check_template, evaluate, read_templates
from server.field.models import ChecklistTemplate

TEMPLATES = {t["id"]: t for t in read_templates()}
REQUIRED_IDS = ("new-lateral", "tap", "clear-water-survey", "backflow-valve", "reinspection", "pressure-sewer")


def test_every_required_checklist_ships():
    assert set(REQUIRED_IDS) <= set(TEMPLATES)


@pytest.mark.parametrize("template_id", REQUIRED_IDS)
def test_every_rule_item_cites_a_known_rule_and_section(template_id):
    from tests.support.env import SHARED_DIR

    rules_md = SHARED_DIR / "ordinance" / "RULES.md"
    known = rules_md.read_text() if rules_md.exists() else None
    items = [i for top in TEMPLATES[template_id]["items"] for i in [top, *top.get("items", [])]]
    cited = [i for i in items if i.get("rule")]
    assert cited or any(i.get("rule_from") for i in items)
    for item in cited:
        assert item["section"].startswith(("§", "Art."))
        if known is not None:
            assert f"`{item['rule']}`" in known


@pytest.mark.parametrize("item", [
    {"id": "x", "prompt": "p", "type": "colour"},
    {"id": "x", "prompt": "p", "type": "choice"},
    {"id": "x", "prompt": "p", "type": "yes_no", "pass": ["maybe"]},
    {"id": "x", "prompt": "p", "type": "yes_no", "rule": "TAP-FROZEN"},
    {"id": "x", "prompt": "p", "type": "text", "colour": "red"},
    {"id": "X Y", "prompt": "p", "type": "text"},
])
def test_malformed_items_are_refused(item):
    with pytest.raises(TemplateError):
        check_template({"id": "t", "version": 1, "title": "t", "items": [item]})


def test_file_name_must_match_the_id(tmp_path):
    (tmp_path / "other.json").write_text(json.dumps(TEMPLATES["tap"]))
    with pytest.raises(TemplateError, match="does not match the file name"):
        read_templates(tmp_path)


TAP = TEMPLATES["tap"]
GOOD_TAP = {"permit_number": "TP-26-014", "method": "wye", "material_matches_main": "yes", "clock_position": 12,
            "joint_distance_in": 18, "connection_distance_in": 60, "ground_frozen": "no"}


def test_a_good_tap_passes():
    check_answers(TAP, GOOD_TAP, set())
    assert evaluate(TAP, GOOD_TAP) == []


@pytest.mark.parametrize(("item", "value", "rule"), [
    ("clock_position", 9.0, "TAP-QUADRANT"),
    ("clock_position", 2.0, "TAP-QUADRANT"),
    ("joint_distance_in", 5.5, "TAP-JOINT-6IN"),
    ("connection_distance_in", 23, "TAP-SPACING-24IN"),
    ("ground_frozen", "yes", "TAP-FROZEN"),
    ("material_matches_main", "no", "TAP-METHOD"),
])
def test_a_failing_tap_answer_names_its_rule(item, value, rule):
    answers = {**GOOD_TAP, item: value}
    check_answers(TAP, answers, set())
    assert [(f.item_id, f.rule_id) for f in evaluate(TAP, answers)] == [(item, rule)]


@pytest.mark.parametrize("clock", [10.5, 11, 12, 0.5, 1.5])
def test_upper_quadrant_passes(clock):
    assert evaluate(TAP, {**GOOD_TAP, "clock_position": clock}) == []


@pytest.mark.parametrize(("answers", "field"), [
    ({**GOOD_TAP, "clock_position": 13}, "clock_position"),
    ({**GOOD_TAP, "joint_distance_in": "six"}, "joint_distance_in"),
    ({**GOOD_TAP, "joint_distance_in": True}, "joint_distance_in"),
    ({**GOOD_TAP, "method": "glue"}, "method"),
    ({k: v for k, v in GOOD_TAP.items() if k != "permit_number"}, "permit_number"),
    ({**GOOD_TAP, "tap_photo": ["f" * 64]}, "tap_photo"),
])
def test_bad_answers_name_the_item(answers, field):
    with pytest.raises(AnswerError) as raised:
        check_answers(TAP, answers, set())
    assert list(raised.value.fields) == [field]


def test_items_asked_only_after_another_answer_refuse_a_stale_answer():
    survey = TEMPLATES["clear-water-survey"]
    with pytest.raises(AnswerError) as raised:
        check_answers(survey, {"access": "refused", "sources": []}, set())
    assert list(raised.value.fields) == ["sources"]


def test_reinspection_failure_carries_the_notice_rule():
    template = TEMPLATES["reinspection"]
    answers = {"notice_reference": "N-2026-7", "violation_rule": "CW-REMOVE-150", "corrected": "no",
               "evidence_photo": ["e" * 64]}
    check_answers(template, answers, {"e" * 64})
    assert [f.rule_id for f in evaluate(template, answers)] == ["CW-REMOVE-150"]


def test_loading_twice_stores_each_version_once(app):
    load_templates()
    report = load_templates()
    assert all(line.endswith("already loaded") for line in report)
    assert db.session.query(ChecklistTemplate).count() == len(TEMPLATES)


def test_a_changed_file_under_a_loaded_version_is_refused(app, tmp_path):
    load_templates()
    changed = {**TEMPLATES["tap"], "title": "Tap (edited)"}
    (tmp_path / "tap.json").write_text(json.dumps(changed))
    with pytest.raises(TemplateError, match="raise its version"):
        load_templates(tmp_path)


def test_the_cli_loads_the_templates(app):
    result = app.test_cli_runner().invoke(args=["checklists", "load"])
    assert result.exit_code == 0, result.output
    assert "clear-water-survey v1" in result.output


def test_the_cli_purges_expired_uploads(app, client, auth):
    from server.field.api.photos import TUS

    tus = {"Tus-Resumable": "1.0.0"}
    created = client.post("/api/v1/uploads", headers={**auth["inspector"], **tus, "Upload-Length": "100"})
    upload_id = created.headers["Location"].rsplit("/", 1)[1]
    [info_path] = app.extensions[TUS].staging_dir.glob(f"*{upload_id}.json")  # ids are kept per user
    info = json.loads(info_path.read_text())
    info_path.write_text(json.dumps({**info, "expires": 1.0}))
    result = app.test_cli_runner().invoke(args=["photos", "purge-uploads"])
    assert result.exit_code == 0, result.output
    assert "expired upload(s)" in result.output
    assert client.head(f"/api/v1/uploads/{upload_id}", headers={**auth["inspector"], **tus}).status_code == 404
