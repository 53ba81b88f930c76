"""The dashboard's notice figures: notices by state, deadlines in the next 14 days and
the overdue list, true to the database on both engines."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import func, select

from server.core.accounts.models import User
from server.core.extensions import db
from server.notices.models import Notice
from server.notices.tick import tick
from server.office.survey_notices import OVERDUE, RUNNING, UPCOMING_DAYS
from tests.support.city_calendar import city_today
from tests.support.survey import notice_through, unvisited_parcels


@pytest.fixture
def notices(client, auth, seeded_city) -> dict[str, int]:
    """Notices at each point of the clock, walked through the real workflow.

    The 60-day clock (CW-DISCONNECT-60) from a delivery 53 days ago ends within two
    weeks; from 18 days ago it does not; from 118 days ago it has passed.
    """
    parcels = iter(unvisited_parcels(5))
    marked = notice_through(client, auth, next(parcels), mailed_days_ago=120, delivered_days_ago=118)
    tick()  # the daily run marks it overdue
    return {
        "marked_overdue": marked,
        "unmarked_overdue": notice_through(client, auth, next(parcels), mailed_days_ago=110, delivered_days_ago=108),
        "soon": notice_through(client, auth, next(parcels), mailed_days_ago=55, delivered_days_ago=53),
        "later": notice_through(client, auth, next(parcels), mailed_days_ago=20, delivered_days_ago=18),
        "draft": notice_through(client, auth, next(parcels), mailed_days_ago=None),
    }


def _summary(client, auth) -> dict:
    return client.get("/api/v1/survey/summary", headers=auth["superintendent"]).get_json()


def test_notices_by_state_are_the_database_counts(client, auth, notices):
    counts = dict(db.session.execute(select(Notice.state, func.count()).group_by(Notice.state)).all())
    shown = {row["state"]: row["count"] for row in _summary(client, auth)["notices_by_state"]}
    assert shown == counts
    assert shown == {"overdue": 1, "delivered": 3, "draft": 1}


def test_deadlines_in_the_next_14_days(client, auth, notices):
    today = city_today()
    expected = db.session.scalars(select(Notice.id).where(
        Notice.state.in_(RUNNING), Notice.deadline.between(today, today + timedelta(days=UPCOMING_DAYS)))
        .order_by(Notice.deadline, Notice.id)).all()
    rows = _summary(client, auth)["deadlines_soon"]
    assert [r["id"] for r in rows] == expected == [notices["soon"]]
    deadline = db.session.get(Notice, notices["soon"]).deadline
    assert rows[0]["deadline"] == deadline.isoformat() and rows[0]["days_left"] == (deadline - today).days


def test_overdue_lists_marked_and_not_yet_marked_notices(client, auth, notices):
    today = city_today()
    past = db.session.scalars(select(Notice.id).where(
        Notice.state.in_(OVERDUE) | (Notice.state.in_(RUNNING) & (Notice.deadline < today)))).all()
    rows = _summary(client, auth)["past_deadline"]
    assert sorted(r["id"] for r in rows) == sorted(past) == sorted(
        [notices["marked_overdue"], notices["unmarked_overdue"]])
    by_id = {r["id"]: r for r in rows}
    assert by_id[notices["marked_overdue"]]["state"] == "overdue"
    assert by_id[notices["unmarked_overdue"]]["state"] == "delivered"
    assert all(r["overdue"] and r["days_left"] < 0 for r in rows)
    assert rows == sorted(rows, key=lambda r: r["deadline"])  # the longest overdue first


def test_the_dashboard_page_shows_the_notice_figures(client, auth, notices):
    clerk = db.session.scalar(select(User).where(User.username == "clerk1"))
    with client.session_transaction() as session:
        session.update(user_id=clerk.id, session_version=clerk.session_version)  # as the login keeps it
    html = client.get("/dashboard").get_data(as_text=True)
    assert 'data-figure="notice-state:delivered">3<' in html
    assert 'data-figure="notice-state:overdue">1<' in html
    soon = html[html.index('id="deadlines-soon"'):html.index('id="overdue-notices"')]
    assert f'data-notice="{notices["soon"]}"' in soon and f'data-notice="{notices["later"]}"' not in soon
    late = html[html.index('id="overdue-notices"'):]
    assert f'data-notice="{notices["marked_overdue"]}"' in late
    assert f'data-notice="{notices["unmarked_overdue"]}"' in late
    assert f"/map?parcel={db.session.get(Notice, notices['soon']).parcel_id}" in soon


def test_no_notices_says_so(client, auth, seeded_city):
    body = _summary(client, auth)
    assert (body["notices_by_state"], body["deadlines_soon"], body["past_deadline"]) == ([], [], [])
