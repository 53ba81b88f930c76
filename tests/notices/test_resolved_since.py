"""A notice not yet mailed whose violations a later inspection resolved: the API says so,
for one notice and for a page of them, and mailing it is refused (withdrawing is not)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import event, select

from server.core.extensions import db
from server.notices.models import MailingBatch, Notice, NoticeViolation
from tests.support.city_calendar import city_today
from tests.support.notices import add_parcel, add_violation, draft_one, post, reinspect, walk


def get(client, auth, notice_id: int) -> dict:
    return client.get(f"/api/v1/notices/{notice_id}", headers=auth["clerk"]).get_json()


def flags(notice: dict) -> tuple:
    return (notice["violations_open"], notice["violations_all_resolved"], notice["violations_resolved_on"],
            notice["violations_resolved_by_inspection_id"])


@pytest.fixture
def general(client, auth, templates):
    """An approved general notice citing a backflow valve and a tracer wire: (notice, parcel id)."""
    parcel = add_parcel()
    add_violation(parcel, "BACKFLOW-VALVE", "§ 315-12D", "no backflow valve on the service")
    add_violation(parcel, "TRACER-WIRE", "§ 315-13C(3)", "no tracer wire at the wall")
    notice = walk(client, auth, draft_one(client, auth)["id"], "approved")
    assert notice["kind"] == "GENERAL-VIOLATION" and len(notice["violation_ids"]) == 2
    return notice, parcel.id


def test_a_fresh_notice_has_all_its_violations_open(general):
    notice, _ = general
    assert flags(notice) == (2, False, None, None)


def test_the_flag_stays_down_while_one_violation_is_open(client, auth, general):
    notice, parcel_id = general
    reinspect(client, auth, parcel_id, "BACKFLOW-VALVE", days_ago=3)
    assert flags(get(client, auth, notice["id"])) == (1, False, None, None)


def test_a_passing_reinspection_resolving_the_rest_raises_the_flag(client, auth, general):
    notice, parcel_id = general
    reinspect(client, auth, parcel_id, "BACKFLOW-VALVE", days_ago=3)
    last = reinspect(client, auth, parcel_id, "CORRECTION", days_ago=2)  # § 315-21B: checks all it cites
    after = get(client, auth, notice["id"])
    assert flags(after) == (0, True, (city_today() - timedelta(days=2)).isoformat(), last)
    assert after["state"] == "approved"  # nothing complies a notice never mailed: the desk decides


def test_the_list_page_carries_the_flag_of_each_notice(client, auth, templates):
    parcels = [add_parcel() for _ in range(3)]
    for parcel in parcels:
        add_violation(parcel, "BACKFLOW-VALVE", "§ 315-12D", "no backflow valve on the service")
    post(client, auth, "superintendent", "/notices/draft")
    inspection = reinspect(client, auth, parcels[1].id, "BACKFLOW-VALVE", days_ago=1)
    page = client.get("/api/v1/notices?state=draft", headers=auth["clerk"]).get_json()
    assert [(n["parcel_id"], n["violations_all_resolved"], n["violations_resolved_by_inspection_id"])
            for n in page] == [(parcels[0].id, False, None), (parcels[1].id, True, inspection),
                               (parcels[2].id, False, None)]


def _statements(client, auth, path: str) -> int:
    """How many SQL statements ``GET path`` runs."""
    count = 0

    def counted(*_):
        nonlocal count
        count += 1

    engine = db.session.get_bind().engine
    event.listen(engine, "before_cursor_execute", counted)
    try:
        r = client.get(path, headers=auth["clerk"])
    finally:
        event.remove(engine, "before_cursor_execute", counted)
    assert r.status_code == 200, r.get_json()
    return count


def test_the_list_page_costs_the_same_queries_for_many_notices(client, auth):
    def add_notices(n: int) -> None:
        for _ in range(n):
            add_violation(add_parcel())
        post(client, auth, "superintendent", "/notices/draft")

    add_notices(2)
    _statements(client, auth, "/api/v1/notices")  # the token's first use today is written once
    few = _statements(client, auth, "/api/v1/notices")
    add_notices(10)
    assert len(client.get("/api/v1/notices", headers=auth["clerk"]).get_json()) == 12
    assert _statements(client, auth, "/api/v1/notices") == few


# ---------------------------------------------------------------- mailing it is refused; withdrawing is not


@pytest.fixture
def resolved(client, auth, general) -> dict:
    """The approved general notice, both its violations resolved by reinspections."""
    notice, parcel_id = general
    reinspect(client, auth, parcel_id, "BACKFLOW-VALVE", days_ago=3)
    notice["inspection_id"] = reinspect(client, auth, parcel_id, "CORRECTION", days_ago=2)
    return notice


def test_mailing_a_notice_whose_violations_were_all_resolved_is_409(client, auth, resolved):
    r = post(client, auth, "clerk", "/mailings", {"notice_ids": [resolved["id"]]})
    assert r.status_code == 409
    error = r.get_json()["error"]
    assert error["code"] == "violations_resolved"
    assert f"notice {resolved['id']} cannot be mailed" in error["message"]
    assert f"by inspection #{resolved['inspection_id']}" in error["message"]
    assert "withdraw" in error["message"]
    assert error["details"]["notice_ids"] == [resolved["id"]]
    db.session.expire_all()
    stored = db.session.get(Notice, resolved["id"])
    assert (stored.state, stored.article_number) == ("approved", None)
    assert db.session.query(MailingBatch).count() == 0


def test_a_batch_with_one_such_notice_mails_nothing(client, auth, resolved):
    add_violation(add_parcel())
    other = walk(client, auth, draft_one(client, auth)["id"], "approved")
    r = post(client, auth, "clerk", "/mailings", {"notice_ids": [other["id"], resolved["id"]]})
    assert (r.status_code, r.get_json()["error"]["details"]["notice_ids"]) == (409, [resolved["id"]])
    assert get(client, auth, other["id"])["state"] == "approved"


def test_it_is_withdrawn_instead_of_mailed(client, auth, resolved):
    assert post(client, auth, "clerk", "/mailings", {"notice_ids": [resolved["id"]]}).status_code == 409
    r = post(client, auth, "superintendent", f"/notices/{resolved['id']}/withdraw", {"note": "fixed already"})
    assert r.status_code == 200, r.get_json()
    assert (r.get_json()["state"], r.get_json()["withdrawn_reason"]) == ("withdrawn", "fixed already")
    assert db.session.scalars(select(NoticeViolation.closed).filter_by(notice_id=resolved["id"])).all() == [
        True, True]
