"""The daily tick: overdue with a reinspection assignment, escalation, penalties, compliance."""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

import pytest
from geoalchemy2.shape import from_shape
from shapely.geometry import Point
from sqlalchemy import select

from gis.rulebook import load_rulebook
from server.core.accounts.models import User
from server.core.extensions import db
from server.field.models import Assignment, Inspection
from server.notices.calendar import FrozenSeason
from server.notices.models import Notice, NoticeViolation
from server.notices.tick import tick
from tests.support.city_calendar import city_today
from tests.support.notices import MAILED_ON, add_parcel, add_violation, draft_one, post, walk


def _deadline(notice: dict) -> date:
    return date.fromisoformat(notice["deadline"])


def _get(client, auth, notice_id) -> dict:
    return client.get(f"/api/v1/notices/{notice_id}", headers=auth["clerk"]).get_json()


def test_nothing_happens_on_or_before_the_deadline(client, auth, notice_in):
    notice = notice_in("delivered")
    assert tick(_deadline(notice))["overdue"] == []
    assert _get(client, auth, notice["id"])["state"] == "delivered"


def test_past_the_deadline_is_overdue_with_one_reinspection_assignment(client, auth, notice_in):
    notice = notice_in("delivered")
    day = _deadline(notice) + timedelta(days=1)
    assert tick(day)["overdue"] == [notice["id"]]
    tick(day + timedelta(days=1))
    after = _get(client, auth, notice["id"])
    assert after["state"] == "overdue" and after["overdue_on"] == day.isoformat()
    assignments = db.session.scalars(select(Assignment).where(Assignment.parcel_id == notice["parcel_id"])).all()
    assert [a.id for a in assignments] == [after["reinspection_assignment_id"]]
    inspector = db.session.get(User, assignments[0].inspector_id)
    assert assignments[0].template_id == "reinspection" and inspector.role == "inspector"
    assert f"Notice {notice['id']}" in assignments[0].reason


def test_overdue_is_not_escalated_without_a_daily_penalty(client, auth, notice_in):
    notice = notice_in("delivered")
    report = tick(_deadline(notice) + timedelta(days=1))
    assert report["escalated"] == [] and _get(client, auth, notice["id"])["penalty_accrued"] is None


def _hookup_penalty_notice(client, auth) -> tuple[dict, dict]:
    """A HOOKUP-365 notice gone overdue and escalated, and its HOOKUP-PENALTY follow-up."""
    add_violation(add_parcel(), "HOOKUP-365", "§ 315-11D", "Occupied dwelling not connected; main 60 ft away")
    first = walk(client, auth, draft_one(client, auth)["id"], "delivered")
    tick(_deadline(first) + timedelta(days=1))
    r = post(client, auth, "superintendent", f"/notices/{first['id']}/escalate")
    assert r.status_code == 200 and r.get_json()["state"] == "escalated"
    [follow] = client.get("/api/v1/notices?kind=HOOKUP-PENALTY", headers=auth["clerk"]).get_json()
    return first, follow


def test_escalating_a_hookup_notice_drafts_the_ten_days_penalty_notice(client, auth):
    first, follow = _hookup_penalty_notice(client, auth)
    assert follow["follow_up_of_id"] == first["id"] and follow["state"] == "draft"
    assert follow["violation_ids"] == _get(client, auth, first["id"])["violation_ids"]
    open_links = db.session.scalars(select(NoticeViolation.notice_id).filter_by(closed=False)).all()
    assert open_links == [follow["id"]]


def test_hookup_penalty_accrues_five_dollars_a_day_after_its_deadline(client, auth):
    _, follow = _hookup_penalty_notice(client, auth)
    follow = walk(client, auth, follow["id"], "delivered")
    deadline = _deadline(follow)
    assert (deadline - date.fromisoformat(follow["served_on"])).days >= 10
    season = FrozenSeason.from_rulebook(load_rulebook("arcadia"))

    def owed(days: int) -> str:  # $5 a day, but not on the frozen-ground days (a street opening)
        return f"{5 * sum(1 for n in range(1, days + 1) if not season.contains(deadline + timedelta(days=n))):.2f}"

    report = tick(deadline + timedelta(days=3))
    assert report["overdue"] == [follow["id"]] and report["escalated"] == [follow["id"]]
    after = _get(client, auth, follow["id"])
    assert after["state"] == "escalated"
    assert (after["penalty_per_day"], after["penalty_accrued"]) == ("5.00", owed(3))
    tick(deadline + timedelta(days=150))
    after = _get(client, auth, follow["id"])
    assert after["penalty_accrued"] == owed(150) and Decimal(owed(150)) > Decimal(owed(3))
    assert after["penalty_through"] == (deadline + timedelta(days=150)).isoformat()
    assert db.session.get(Notice, follow["id"]).penalty_accrued == Decimal(owed(150))


def test_resolved_violations_comply_the_notice_and_free_them(client, auth, notice_in, violation):
    notice = notice_in("delivered")
    violation.status = "resolved"
    db.session.flush()
    assert tick()["complied"] == [notice["id"]]
    after = _get(client, auth, notice["id"])
    assert after["state"] == "complied" and after["complied_reason"] == "violations_resolved"
    assert db.session.scalars(select(NoticeViolation.closed)).all() == [True]


def _passed_reinspection(parcel_id: int, rule: str) -> Inspection:
    """A stored passing reinspection naming ``rule`` (the row only: nothing it resolves)."""
    inspector = db.session.scalar(select(User).where(User.role == "inspector"))
    # The parcel is theirs to visit: only then does their visit count (reinspections.on_assignment).
    db.session.add(Assignment(inspector_id=inspector.id, parcel_id=parcel_id, template_id="reinspection"))
    when = datetime.combine(MAILED_ON + timedelta(days=10), datetime.min.time(), tzinfo=UTC)
    inspection = Inspection(uuid=str(uuid.uuid4()), template_id="reinspection", template_version=2,
                            parcel_id=parcel_id, inspector_id=inspector.id,
                            geom=from_shape(Point(-91.5, 44.25), srid=4326), started_at=when, finished_at=when,
                            answers={"notice_reference": "N-1", "violation_rule": rule, "corrected": "yes",
                                     "evidence_photo": ["e" * 64]},
                            result="pass", failures=[], violation_ids=[], finding_ids=[], content_hash="0" * 64)
    db.session.add(inspection)
    db.session.flush()
    return inspection


@pytest.mark.parametrize("rule", ["CW-DISCONNECT-60", "CLEAR-WATER"])  # the notice's own rule, its violation's
def test_a_passing_reinspection_of_the_notices_rule_complies_the_notice(client, auth, notice_in, rule):
    notice = notice_in("delivered")
    inspection = _passed_reinspection(notice["parcel_id"], rule)
    assert tick()["complied"] == [notice["id"]]
    assert _get(client, auth, notice["id"])["complied_reason"] == f"inspection {inspection.id} passed"


def test_a_passing_reinspection_of_another_rule_leaves_the_notice(client, auth, notice_in):
    notice = notice_in("delivered")
    _passed_reinspection(notice["parcel_id"], "BACKFLOW-VALVE")
    assert tick()["complied"] == []
    assert _get(client, auth, notice["id"])["state"] == "delivered"


def test_tick_cli_reports_what_it_did(app, client, auth, notice_in):
    from server.core.extensions import db
    from server.notices.models import Notice

    notice = notice_in("delivered")
    db.session.get(Notice, notice["id"]).deadline = city_today() - timedelta(days=2)  # its days ran out
    yesterday = (city_today() - timedelta(days=1)).isoformat()
    result = app.test_cli_runner().invoke(args=["notices", "tick", "--on", yesterday])
    assert result.exit_code == 0, result.output
    assert f"overdue: 1 ({notice['id']})" in result.output


def test_tick_cli_refuses_a_day_in_the_future(app, client, auth, notice_in):
    notice = notice_in("delivered")
    day = (_deadline(notice) + timedelta(days=1)).isoformat()
    result = app.test_cli_runner().invoke(args=["notices", "tick", "--on", day])
    assert result.exit_code != 0 and "invalid_date" in result.output and "is in the future" in result.output
    assert _get(client, auth, notice["id"])["state"] == "delivered"


def test_the_penalty_notice_letter_states_five_dollars_a_day(client, auth):
    import io

    from pypdf import PdfReader

    _, follow = _hookup_penalty_notice(client, auth)
    follow = walk(client, auth, follow["id"], "mailed")
    pdf = client.get(f"/api/v1/notices/{follow['id']}/letter.pdf", headers=auth["clerk"]).data
    text = " ".join(" ".join(p.extract_text() for p in PdfReader(io.BytesIO(pdf)).pages).split())
    assert "penalty of $5.00 per day" in text and "§ 315-11D" in text
