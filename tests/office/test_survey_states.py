"""The survey states the field and the desk lead to: access refused, a clear-water
finding open or resolved, any other open violation, a failed inspection, a visit
assigned, notices outranking them all; the state filter and the dashboard's counts per
state, true to the database on both engines."""

from __future__ import annotations

from collections import Counter, defaultdict
from datetime import UTC, datetime
from uuid import uuid4

import pytest
from geoalchemy2.shape import from_shape
from shapely.geometry import Point
from sqlalchemy import select

from server.core.accounts.models import User
from server.core.extensions import db
from server.field.models import Assignment, Inspection
from server.network.models import ClearWaterFinding, Parcel
from server.notices.models import Notice
from server.notices.tick import tick
from server.office import survey
from server.rules.models import Violation
from server.rules.run import PREDATES
from tests.support.notices import add_violation, post
from tests.support.survey import CITY_BBOX, inspect, notice_for, unvisited_parcels
from tests.support.sync import sump_pump


def _states(client, auth, query: str = "") -> dict[int, str]:
    r = client.get(f"/api/v1/survey/parcels?bbox={CITY_BBOX}{query}", headers=auth["superintendent"])
    assert r.status_code == 200, r.get_json()
    return {f["id"]: f["properties"]["survey_state"] for f in r.get_json()["features"]}


def _state(client, auth, pid: int) -> str:
    r = client.get(f"/api/v1/survey/parcels/{pid}", headers=auth["clerk"])
    assert r.status_code == 200, r.get_json()
    return r.get_json()["survey_state"]


def _open_violation(pid: int, rule_id: str) -> Violation:
    return db.session.execute(select(Violation).filter_by(parcel_id=pid, rule_id=rule_id, status="open")).scalar_one()


def _waive(client, auth, violation: Violation) -> None:
    r = post(client, auth, "superintendent", f"/violations/{violation.id}/waive", {"reason": "owner disconnected"})
    assert r.status_code == 200, r.get_json()


def _summary(client, auth) -> dict:
    return client.get("/api/v1/survey/summary", headers=auth["superintendent"]).get_json()


# ---------------------------------------------------------------- through the services


def test_refused_access_colours_the_parcel_access_refused(client, auth, seeded_city, templates):
    pid = unvisited_parcels(1)[0].id
    inspect(client, auth, pid, access="refused")
    assert _open_violation(pid, survey.ACCESS_RULE).source == "inspection"
    assert _state(client, auth, pid) == "access_refused"
    assert _states(client, auth)[pid] == "access_refused"


def test_a_mailed_notice_outranks_refused_access(client, auth, seeded_city, templates):
    pid = unvisited_parcels(1)[0].id
    inspect(client, auth, pid, access="refused")
    notice_for(client, auth, pid, mailed_days_ago=2)
    assert _open_violation(pid, survey.ACCESS_RULE).status == "open"
    assert _state(client, auth, pid) == "notice_sent"


def test_the_notice_complied_once_access_is_waived_leaves_the_parcel_resolved(client, auth, seeded_city, templates):
    pid = unvisited_parcels(1)[0].id
    inspect(client, auth, pid, access="refused")
    notice_id = notice_for(client, auth, pid, mailed_days_ago=2)
    _waive(client, auth, _open_violation(pid, survey.ACCESS_RULE))
    assert _state(client, auth, pid) == "notice_sent"  # until the daily run sees it cleared
    tick()
    assert db.session.get(Notice, notice_id).state == "complied"
    assert _state(client, auth, pid) == "resolved"


def test_a_connected_finding_with_its_violation_open_is_finding_open(client, auth, seeded_city, templates):
    pid = unvisited_parcels(1)[0].id
    inspect(client, auth, pid, sources=[sump_pump()])
    assert _open_violation(pid, "CW-DISCONNECT-60")
    assert _state(client, auth, pid) == "finding_open"


def test_a_connected_finding_whose_violation_is_waived_is_resolved(client, auth, seeded_city, templates):
    pid = unvisited_parcels(1)[0].id
    inspect(client, auth, pid, sources=[sump_pump()])
    _waive(client, auth, _open_violation(pid, "CW-DISCONNECT-60"))
    assert db.session.scalar(select(ClearWaterFinding.connected_to_sanitary).filter_by(parcel_id=pid)) == "yes"
    assert _state(client, auth, pid) == "resolved"


def test_a_connected_finding_outranks_refused_access(client, auth, seeded_city, templates):
    """A sump pump found, then turned away on a second visit: both violations open."""
    pid = unvisited_parcels(1)[0].id
    inspect(client, auth, pid, sources=[sump_pump()])
    inspect(client, auth, pid, access="refused",
            started_at="2026-12-01T10:00:00-06:00", finished_at="2026-12-01T10:30:00-06:00")
    assert _open_violation(pid, survey.ACCESS_RULE) and _open_violation(pid, "CW-DISCONNECT-60")
    assert _state(client, auth, pid) == "finding_open"


def test_a_connected_finding_with_no_violation_is_finding_open(client, auth, seeded_city):
    pid = db.session.scalar(select(ClearWaterFinding.parcel_id).where(
        ClearWaterFinding.connected_to_sanitary == "yes").order_by(ClearWaterFinding.id))
    assert db.session.scalar(select(Violation.id).filter_by(parcel_id=pid)) is None
    assert _state(client, auth, pid) == "finding_open"


# ---------------------------------------------------------------- the rank, row by row


def _record(pid: int, violations, notices) -> None:
    from server.notices.letters.documents import NOTICE_KINDS

    parcel = db.session.get(Parcel, pid)
    for rule_id, status in violations:
        v = add_violation(parcel, rule_id)
        if status == "predates":  # a finding about a feature built before its rule
            v.status, v.waiver_reason = "waived", f"{PREDATES}: tap 7 installed 1984-06-01"
        else:
            v.status = status
    for state in notices:
        db.session.add(Notice(kind=next(iter(NOTICE_KINDS)), state=state, parcel_id=pid,
                              parcel_number=parcel.parcel_number, owner_names=[parcel.owner_name],
                              sections=["§ 315-13D"], findings=[]))
    db.session.flush()


CW, ACCESS, TAP = "CLEAR-WATER", "SURVEY-ACCESS", "TAP-QUADRANT"


@pytest.mark.parametrize("violations, notices, expected", [
    ([], [], "finding_open"),
    ([(CW, "open")], [], "finding_open"),
    ([(CW, "resolved")], [], "resolved"),
    ([(CW, "waived"), (CW, "resolved")], [], "resolved"),
    ([(CW, "resolved"), (ACCESS, "open")], [], "finding_open"),
    ([(CW, "resolved")], ["complied"], "resolved"),
    ([], ["complied"], "finding_open"),  # no violation ever recorded: the finding is news
    ([(CW, "resolved")], ["delivered"], "notice_sent"),
    ([(CW, "resolved")], ["escalated", "mailed"], "notice_overdue"),
])
def test_a_connected_finding_ranks(client, auth, seeded_city, violations, notices, expected):
    pid = db.session.scalar(select(ClearWaterFinding.parcel_id).where(
        ClearWaterFinding.connected_to_sanitary == "yes").order_by(ClearWaterFinding.id))
    _record(pid, violations, notices)
    assert _state(client, auth, pid) == expected


@pytest.mark.parametrize("violations, notices, expected", [
    ([], [], "not_visited"),
    ([(CW, "open")], [], "violation_open"),  # every open violation shows, visited or not
    ([(CW, "resolved")], [], "resolved"),
    ([(CW, "resolved"), (CW, "open")], [], "violation_open"),
    ([], ["complied"], "resolved"),
    ([], ["decided", "withdrawn"], "resolved"),
    ([(CW, "open")], ["withdrawn"], "violation_open"),
    ([(TAP, "open")], ["draft"], "violation_open"),
    ([(TAP, "open")], ["mailed"], "notice_sent"),
    ([(TAP, "open"), (ACCESS, "open")], [], "access_refused"),
    ([(TAP, "predates"), (TAP, "open")], [], "violation_open"),
    ([(ACCESS, "open")], [], "access_refused"),
    ([(ACCESS, "open")], ["withdrawn"], "access_refused"),
    ([(ACCESS, "waived")], [], "resolved"),
    ([(ACCESS, "open")], ["unclaimed"], "notice_sent"),
    ([(ACCESS, "open")], ["draft"], "access_refused"),
    ([(TAP, "predates")], [], "predates_rule"),
    ([(TAP, "predates"), (TAP, "waived")], [], "resolved"),
    ([(TAP, "predates"), (ACCESS, "open")], [], "access_refused"),
])
def test_a_parcel_without_a_finding_ranks(client, auth, seeded_city, violations, notices, expected):
    pid = unvisited_parcels(1)[0].id
    _record(pid, violations, notices)
    assert _state(client, auth, pid) == expected


def _visited_without_connection() -> int:
    return db.session.scalar(select(ClearWaterFinding.parcel_id).where(
        ClearWaterFinding.connected_to_sanitary != "yes",
        ClearWaterFinding.parcel_id.not_in(select(ClearWaterFinding.parcel_id).where(
            ClearWaterFinding.connected_to_sanitary == "yes"))).order_by(ClearWaterFinding.id))


def test_a_visited_parcel_with_an_open_violation_of_another_rule_is_violation_open(client, auth, seeded_city):
    pid = _visited_without_connection()
    _record(pid, [("TAP-SPACING-24IN", "open")], [])
    assert _state(client, auth, pid) == "violation_open"


# ---------------------------------------------------------------- inspections and assignments

DAY = {n: datetime(2026, 11, n, 15, 0, tzinfo=UTC) for n in range(1, 29)}


def _inspection(pid: int, result: str, day: int, template_id: str = "tap",
                replaces: Inspection | None = None) -> Inspection:
    """An inspection row as the sync stores it, finished on November ``day``."""
    inspector = db.session.scalar(select(User.id).order_by(User.id))
    row = Inspection(uuid=str(uuid4()), template_id=template_id, template_version=1, parcel_id=pid,
                     inspector_id=inspector, geom=from_shape(Point(-91.5, 44.25), srid=4326),
                     started_at=DAY[day], finished_at=DAY[day], answers={}, result=result,
                     failures=[{"item": "x", "rule_id": TAP, "message": "failed"}] if result == "fail" else [],
                     violation_ids=[], finding_ids=[], content_hash="0" * 64,
                     replaces_id=replaces.id if replaces else None)
    db.session.add(row)
    db.session.flush()
    return row


def _assign(pid: int, status: str = "open") -> None:
    inspector = db.session.scalar(select(User.id).order_by(User.id))
    db.session.add(Assignment(inspector_id=inspector, parcel_id=pid, template_id="tap", status=status))
    db.session.flush()


def _failed_then(pid: int, then: str) -> None:
    """A failed tap inspection on Nov 10, and what came after it."""
    failed = _inspection(pid, "fail", 10)
    if then == "passed later":
        _inspection(pid, "pass", 12)
    elif then == "passed earlier":
        _inspection(pid, "pass", 8)
    elif then == "other checklist passed later":
        _inspection(pid, "pass", 12, template_id="clear-water-survey")
    elif then == "corrected to pass":
        _inspection(pid, "pass", 10, replaces=failed)
    elif then == "failed again":
        _inspection(pid, "fail", 12)
    elif then == "violation open":
        _record(pid, [(TAP, "open")], [])
    elif then == "violation waived":
        _record(pid, [(TAP, "waived")], [])
    elif then == "violation resolved":
        _record(pid, [(TAP, "resolved")], [])
    elif then == "assigned again":
        _assign(pid)
    elif then == "notice mailed":
        _record(pid, [(TAP, "open")], ["mailed"])


@pytest.mark.parametrize("then, expected", [
    ("nothing", "inspection_failed"),
    ("passed later", "compliant"),
    ("passed earlier", "inspection_failed"),
    ("other checklist passed later", "inspection_failed"),
    ("corrected to pass", "compliant"),
    ("failed again", "inspection_failed"),
    ("violation open", "violation_open"),  # the parcel: an open violation and a failed inspection
    ("violation waived", "resolved"),
    ("violation resolved", "resolved"),
    ("assigned again", "inspection_failed"),
    ("notice mailed", "notice_sent"),
])
def test_a_failed_inspection_ranks(client, auth, seeded_city, then, expected):
    pid = unvisited_parcels(1)[0].id
    _failed_then(pid, then)
    assert _state(client, auth, pid) == expected
    assert _states(client, auth)[pid] == expected


@pytest.mark.parametrize("visited, status, violations, expected", [
    (False, "open", [], "visit_assigned"),
    (True, "open", [], "visit_assigned"),  # a reinspection due outranks "compliant"
    (False, "done", [], "not_visited"),
    (False, "cancelled", [], "not_visited"),
    (True, "done", [], "compliant"),
    (False, "open", [(TAP, "open")], "violation_open"),
    (False, "open", [(TAP, "resolved")], "resolved"),
])
def test_an_assignment_ranks(client, auth, seeded_city, visited, status, violations, expected):
    pid = _visited_without_connection() if visited else unvisited_parcels(1)[0].id
    _assign(pid, status)
    _record(pid, violations, [])
    assert _state(client, auth, pid) == expected


def test_no_parcel_with_an_open_violation_or_a_standing_failure_is_compliant(client, auth, every_state):
    states = _states(client, auth)
    open_on = set(db.session.scalars(select(Violation.parcel_id).filter_by(status="open")))
    failed_on = set(db.session.scalars(select(Inspection.parcel_id).filter_by(result="fail")))
    assert open_on and failed_on
    assert not {pid for pid in open_on | failed_on if states[pid] in ("compliant", "not_visited")}


# ---------------------------------------------------------------- a city with every state


@pytest.fixture
def every_state(client, auth, seeded_city, templates) -> dict[str, int]:
    """Beside the demo city's findings: a parcel in each state the field and the desk reach."""
    refused, sent, overdue, found, resolved, predates, violated, failed, assigned = (
        p.id for p in unvisited_parcels(9))
    _record(predates, [(TAP, "predates")], [])
    _failed_then(violated, "violation open")
    _failed_then(failed, "nothing")
    _assign(assigned)
    for pid in (refused, sent, overdue):
        inspect(client, auth, pid, access="refused")
    notice_for(client, auth, sent, mailed_days_ago=2)
    notice_for(client, auth, overdue, mailed_days_ago=40, delivered_days_ago=38)  # 10 days to let them in
    tick()
    for pid in (found, resolved):
        inspect(client, auth, pid, sources=[sump_pump()])
    _waive(client, auth, _open_violation(resolved, "CW-DISCONNECT-60"))
    return {"access_refused": refused, "notice_sent": sent, "notice_overdue": overdue, "finding_open": found,
            "resolved": resolved, "predates_rule": predates, "violation_open": violated,
            "inspection_failed": failed, "visit_assigned": assigned}


def _expected_states() -> dict[int, str]:
    """Each parcel's state worked out in Python from the rows, the ranking as the issue puts it."""
    notices, violations = defaultdict(set), defaultdict(list)
    for pid, state in db.session.execute(select(Notice.parcel_id, Notice.state)):
        notices[pid].add(state)
    for pid, rule_id, status, reason in db.session.execute(
            select(Violation.parcel_id, Violation.rule_id, Violation.status, Violation.waiver_reason)):
        violations[pid].append((rule_id, "predates" if (reason or "").startswith(PREDATES) else status))
    connected = set(db.session.scalars(select(ClearWaterFinding.parcel_id).filter_by(connected_to_sanitary="yes")))
    visited = set(db.session.scalars(select(ClearWaterFinding.parcel_id))) | set(
        db.session.scalars(select(Inspection.parcel_id)))
    assigned = set(db.session.scalars(select(Assignment.parcel_id).filter_by(status="open")))
    corrected = set(db.session.scalars(select(Inspection.replaces_id).where(Inspection.replaces_id.is_not(None))))
    standing = [i for i in db.session.scalars(select(Inspection)) if i.id not in corrected]
    failing = {i.parcel_id for i in standing if i.result == "fail" and not any(
        j.parcel_id == i.parcel_id and j.template_id == i.template_id and j.result == "pass"
        and j.finished_at > i.finished_at for j in standing)}
    states = {}
    for pid in db.session.scalars(select(Parcel.id)):
        n, v = notices[pid], violations[pid]
        still_open = {rule for rule, status in v if status == "open"}
        if n & {"overdue", "escalated"}:
            states[pid] = "notice_overdue"
        elif n & {"mailed", "delivered", "refused", "unclaimed", "appealed"}:
            states[pid] = "notice_sent"
        elif pid in connected and (still_open or not v):
            states[pid] = "finding_open"
        elif "SURVEY-ACCESS" in still_open:
            states[pid] = "access_refused"
        elif still_open:
            states[pid] = "violation_open"
        elif v and all(status == "predates" for _, status in v):
            states[pid] = "predates_rule"
        elif not still_open and (v or n & {"complied", "decided", "withdrawn"}):
            states[pid] = "resolved"
        elif pid in failing:
            states[pid] = "inspection_failed"
        elif pid in assigned:
            states[pid] = "visit_assigned"
        else:
            states[pid] = "compliant" if pid in visited else "not_visited"
    return states


def test_every_parcel_is_in_the_state_its_rows_say(client, auth, every_state):
    expected = _expected_states()
    assert _states(client, auth) == expected
    assert {key: expected[pid] for key, pid in every_state.items()} == {key: key for key in every_state}


@pytest.mark.parametrize("states", [("access_refused",), ("resolved",), ("access_refused", "resolved")])
def test_state_filter_draws_only_those_states(client, auth, every_state, states):
    drawn = _states(client, auth, "&state=" + ",".join(states))
    assert drawn == {pid: s for pid, s in _expected_states().items() if s in states}
    assert {every_state[s] for s in states} <= set(drawn)


def test_dashboard_counts_per_state_match_the_database(client, auth, every_state):
    body = _summary(client, auth)
    counts = Counter(_expected_states().values())
    assert [(s["key"], s["count"]) for s in body["by_state"]] == [(s.key, counts[s.key]) for s in survey.SURVEY_STATES]
    assert all(s["count"] > 0 for s in body["by_state"])


def test_dashboard_page_draws_a_bar_per_state(client, auth, every_state):
    clerk = db.session.scalar(select(User).where(User.username == "clerk1"))
    with client.session_transaction() as session:
        session.update(user_id=clerk.id, session_version=clerk.session_version)  # as the login keeps it
    html = client.get("/dashboard").get_data(as_text=True)
    counts = Counter(_expected_states().values())
    for s in survey.SURVEY_STATES:
        assert f'data-figure="state:{s.label}">{counts[s.key]:,}<' in html
        assert f'fill="{s.colour}"' in html


def test_surveyed_counts_visits_not_states(client, auth, seeded_city):
    """A violation resolved at the desk is no visit: the parcel is resolved, not surveyed."""
    before = _summary(client, auth)["surveyed"]
    pid = unvisited_parcels(1)[0].id
    _record(pid, [("HOOKUP-365", "resolved")], [])
    body = _summary(client, auth)
    assert _state(client, auth, pid) == "resolved"
    assert body["surveyed"] == before
    assert next(s["count"] for s in body["by_state"] if s["key"] == "resolved") == 1
