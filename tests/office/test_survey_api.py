"""The survey map's API: parcels by state, the parcel panel, search and progress."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from server.core.extensions import db
from server.network.models import ClearWaterFinding, Parcel
from server.office import survey
from server.rules.models import Violation
from tests.support.permits import apply, walk
from tests.support.survey import CITY_BBOX


def _states(client, auth) -> dict[int, str]:
    body = client.get(f"/api/v1/survey/parcels?bbox={CITY_BBOX}", headers=auth["clerk"]).get_json()
    return {f["id"]: f["properties"]["survey_state"] for f in body["features"]}


def test_every_parcel_gets_a_state_from_its_findings(client, auth, seeded_city):
    states = _states(client, auth)
    assert len(states) == db.session.scalar(select(func.count(Parcel.id)))
    connected = set(db.session.scalars(select(ClearWaterFinding.parcel_id).where(
        ClearWaterFinding.connected_to_sanitary == "yes")))
    visited = set(db.session.scalars(select(ClearWaterFinding.parcel_id)))
    assert connected and visited - connected
    for pid, state in states.items():
        expected = "finding_open" if pid in connected else "compliant" if pid in visited else "not_visited"
        assert state == expected, pid


def test_a_new_connected_finding_turns_the_parcel_red(client, auth, seeded_city):
    pid = next(p for p, s in _states(client, auth).items() if s == "not_visited")
    parcel = db.session.get(Parcel, pid)
    from geoalchemy2.shape import to_shape

    spot = to_shape(parcel.geom).representative_point()
    r = client.post("/api/v1/findings", headers=auth["inspector"], json={
        "type": "Feature", "geometry": {"type": "Point", "coordinates": [spot.x, spot.y]},
        "properties": {"parcel_id": pid, "source": "sump_pump", "connected_to_sanitary": "yes"}})
    assert r.status_code == 201, r.get_json()
    assert _states(client, auth)[pid] == "finding_open"


def test_survey_parcels_needs_a_bbox(client, auth):
    r = client.get("/api/v1/survey/parcels", headers=auth["clerk"])
    assert r.status_code == 422


def test_parcel_panel_lists_owner_findings_and_violations(client, auth, seeded_city):
    pid = db.session.scalar(select(ClearWaterFinding.parcel_id).where(
        ClearWaterFinding.connected_to_sanitary == "yes").order_by(ClearWaterFinding.id))
    db.session.add(Violation(rule_id="CLEAR-WATER", section="§ 315-13D", key=f"test:{pid}", subject_type="parcel",
                             subject_id=pid, subjects=[["parcels", pid]], parcel_id=pid, measured=1.0,
                             message="clear water enters the sanitary sewer"))
    db.session.flush()
    body = client.get(f"/api/v1/survey/parcels/{pid}", headers=auth["clerk"]).get_json()
    parcel = db.session.get(Parcel, pid)
    assert body["owner_name"] == parcel.owner_name and body["site_address"] == parcel.site_address
    assert body["survey_state"] == "finding_open"
    assert any(f["connected_to_sanitary"] == "yes" for f in body["findings"])
    assert [(v["rule_id"], v["section"], v["measured"]) for v in body["violations"]] == [
        ("CLEAR-WATER", "§ 315-13D", 1.0)]


def test_unknown_parcel_panel_is_404(client, auth):
    assert client.get("/api/v1/survey/parcels/987654", headers=auth["clerk"]).status_code == 404


@pytest.mark.parametrize("field", ["site_address", "parcel_number"])
def test_search_by_address_or_parcel_number(client, auth, seeded_city, field):
    parcel = db.session.scalar(select(Parcel).where(Parcel.site_address.is_not(None)).order_by(Parcel.id))
    query = getattr(parcel, field)[:12].upper() if field == "site_address" else parcel.parcel_number[:9]
    results = client.get(f"/api/v1/search?q={query}", headers=auth["inspector"]).get_json()["results"]
    assert parcel.id in [r["id"] for r in results]
    hit = next(r for r in results if r["id"] == parcel.id)
    minx, miny, maxx, maxy = hit["bbox"]
    assert minx < maxx and miny < maxy


def test_search_treats_wildcards_literally(client, auth, seeded_city):
    assert client.get("/api/v1/search?q=%25", headers=auth["inspector"]).get_json()["results"] == []


def test_search_needs_q(client, auth):
    assert client.get("/api/v1/search", headers=auth["inspector"]).status_code == 422


def test_summary_counts(client, auth, seeded_city):
    body = client.get("/api/v1/survey/summary", headers=auth["superintendent"]).get_json()
    total = db.session.scalar(select(func.count(Parcel.id)))
    visited = db.session.scalar(select(func.count(func.distinct(ClearWaterFinding.parcel_id))))
    assert body["parcels"] == total and body["surveyed"] == visited
    assert sum(s["count"] for s in body["by_state"]) == total
    assert sum(f["count"] for f in body["findings_by_source"]) == db.session.scalar(
        select(func.count(ClearWaterFinding.id)))
    assert [s["key"] for s in body["by_state"]] == [s.key for s in survey.SURVEY_STATES]


@pytest.mark.parametrize("path", ["/api/v1/search?q=1", "/api/v1/survey/summary",
                                  f"/api/v1/survey/parcels?bbox={CITY_BBOX}"])
def test_survey_api_needs_a_login(client, path):
    assert client.get(path).status_code == 401


@pytest.mark.parametrize("path", ["/map", "/dashboard"])
def test_pages_send_strangers_to_log_in(client, path):
    r = client.get(path)
    assert r.status_code == 302 and "/login" in r.headers["Location"]


def test_dashboard_draws_open_violations_by_rule(client, auth, seeded_city):
    for i, rule in enumerate(["TAP-SPACING-24IN", "TAP-SPACING-24IN", "TRACER-WIRE"]):
        db.session.add(Violation(rule_id=rule, section="§ 315-13B", key=f"dash:{i}", subject_type="tap",
                                 subject_id=i + 1, subjects=[["taps", i + 1]], message="test"))
    db.session.add(Violation(rule_id="BACKFLOW-VALVE", section="§ 315-13E", key="dash:resolved", status="resolved",
                             subject_type="lateral", subject_id=1, subjects=[["laterals", 1]], message="test"))
    db.session.flush()
    clerk = _user("clerk1")
    with client.session_transaction() as session:
        session.update(user_id=clerk.id, session_version=clerk.session_version)  # as the login keeps it
    html = client.get("/dashboard").get_data(as_text=True)
    assert 'data-figure="rule:TAP-SPACING-24IN">2<' in html
    assert 'data-figure="rule:TRACER-WIRE">1<' in html
    assert "BACKFLOW-VALVE" not in html


def _user(username: str):
    from server.core.accounts.models import User

    return db.session.scalar(select(User).where(User.username == username))


@pytest.mark.parametrize("notice_state, survey_state", [
    ("mailed", "notice_sent"), ("refused", "notice_sent"), ("overdue", "notice_overdue"),
    ("draft", "finding_open"), ("complied", "finding_open"),
])
def test_a_notice_outranks_the_finding(client, auth, seeded_city, notice_state, survey_state):
    from server.notices.models import Notice

    pid = db.session.scalar(select(ClearWaterFinding.parcel_id).where(
        ClearWaterFinding.connected_to_sanitary == "yes").order_by(ClearWaterFinding.id))
    parcel = db.session.get(Parcel, pid)
    db.session.add(Notice(kind=_a_notice_kind(), state=notice_state, parcel_id=pid,
                          parcel_number=parcel.parcel_number, owner_names=[parcel.owner_name],
                          sections=["§ 315-13D"], findings=[]))
    db.session.flush()
    assert _states(client, auth)[pid] == survey_state


def _a_notice_kind() -> str:
    from server.notices.letters.documents import NOTICE_KINDS

    return next(iter(NOTICE_KINDS))


def test_parcel_panel_lists_the_parcels_permits_newest_first(client, auth, parcel):
    first = apply(client, auth, parcel.id)
    walk(client, auth, first["id"], "closed")
    second = apply(client, auth, parcel.id, kind="tap")
    body = client.get(f"/api/v1/survey/parcels/{parcel.id}", headers=auth["inspector"]).get_json()
    assert [(p["id"], p["state"]) for p in body["permits"]] == [(second["id"], "applied"), (first["id"], "closed")]
    assert body["permits"][1]["closed_on"]
