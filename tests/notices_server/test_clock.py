"""Which day starts the clock: delivery, mailing, or mailing + N days for refused mail."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from gis.rulebook import RULEBOOK_DIR
from server import city
from server.city import City
from server.notices.calendar import deadline_for
from tests.city_calendar import city_today
from tests.notices_server.conftest import MAILED_ON, draft_one, post, walk

KIND = "CW-DISCONNECT-60"
FALLBACK = 5  # arcadia.toml [calendar] undelivered_fallback_days


def _mailed(client, auth) -> dict:
    return walk(client, auth, draft_one(client, auth)["id"], "mailed")


def _event(client, auth, notice_id, event, on: date) -> dict:
    r = post(client, auth, "clerk", f"/notices/{notice_id}/{event}", {"on": on.isoformat()})
    assert r.status_code == 200, r.get_json()
    return r.get_json()


def test_mailed_under_the_delivery_clock_has_a_printed_deadline_and_no_clock_yet(client, auth, violation):
    notice = _mailed(client, auth)
    assert notice["clock_starts"] == "delivery" and notice["served_on"] is None and notice["deadline"] is None
    assert notice["deadline_printed"] == deadline_for(KIND, MAILED_ON + timedelta(days=FALLBACK)).date.isoformat()


def test_delivery_starts_the_clock(client, auth, violation):
    notice = _mailed(client, auth)
    delivered = MAILED_ON + timedelta(days=9)
    notice = _event(client, auth, notice["id"], "deliver", delivered)
    assert notice["state"] == "delivered" and notice["served_on"] == delivered.isoformat()
    assert notice["deadline"] == deadline_for(KIND, delivered).date.isoformat()
    assert notice["deadline_steps"][0].startswith("clock starts on delivery")


def test_early_delivery_never_moves_the_deadline_before_the_printed_one(client, auth, violation):
    notice = _mailed(client, auth)
    delivered = MAILED_ON + timedelta(days=1)
    notice = _event(client, auth, notice["id"], "deliver", delivered)
    assert notice["served_on"] == delivered.isoformat()
    assert notice["deadline"] == notice["deadline_printed"]
    assert deadline_for(KIND, delivered).date.isoformat() < notice["deadline"]
    assert "the letter printed" in notice["deadline_steps"][-1]


@pytest.mark.parametrize("event", ["refuse", "unclaimed"])
def test_refused_or_unclaimed_falls_back_to_mailing_plus_the_configured_days(client, auth, violation, event):
    notice = _mailed(client, auth)
    notice = _event(client, auth, notice["id"], event, MAILED_ON + timedelta(days=14))
    served = MAILED_ON + timedelta(days=FALLBACK)
    assert notice["delivery_event"] == {"refuse": "refused", "unclaimed": "unclaimed"}[event]
    assert notice["served_on"] == served.isoformat()
    assert notice["deadline"] == deadline_for(KIND, served).date.isoformat()


@pytest.fixture
def mailing_clock(app, tmp_path, monkeypatch):
    """A rulebook like Arcadia's whose clock starts on mailing."""
    text = (RULEBOOK_DIR / "arcadia.toml").read_text()
    assert 'clock_starts = "delivery"' in text
    path = tmp_path / "mailclock.toml"
    path.write_text(text.replace('clock_starts = "delivery"', 'clock_starts = "mailing"'))
    monkeypatch.setitem(app.extensions, city.EXTENSION, City.from_config({"LATERAL_RULEBOOK": str(path)}))


def test_mailing_clock_counts_from_the_mailing_day(client, auth, violation, mailing_clock):
    notice = _mailed(client, auth)
    expected = deadline_for(KIND, MAILED_ON).date.isoformat()
    assert notice["clock_starts"] == "mailing" and notice["served_on"] == MAILED_ON.isoformat()
    assert notice["deadline"] == notice["deadline_printed"] == expected
    notice = _event(client, auth, notice["id"], "deliver", MAILED_ON + timedelta(days=9))
    assert notice["deadline"] == expected


@pytest.mark.parametrize("on", [MAILED_ON - timedelta(days=1), city_today() + timedelta(days=1)])
def test_a_receipt_dated_before_mailing_or_in_the_future_is_refused(client, auth, violation, on):
    notice = _mailed(client, auth)
    r = post(client, auth, "clerk", f"/notices/{notice['id']}/deliver", {"on": on.isoformat()})
    assert r.status_code == 422 and r.get_json()["error"]["code"] == "invalid_date"


def test_calendar_endpoint_gives_the_date_and_the_steps(client, auth):
    r = client.get("/api/v1/calendar/deadline?rule=CW-DISCONNECT-60&served=2027-05-05", headers=auth["clerk"])
    assert r.status_code == 200
    body = r.get_json()
    assert body["deadline"] == "2027-07-06" and body["section"] == "§ 315-13D" and body["days"] == 60
    assert body["steps"][-1] == "deadline: Tue 2027-07-06"
    assert any("Independence Day" in s for s in body["steps"])


@pytest.mark.parametrize("query", ["rule=NOPE&served=2027-05-05", "rule=CW-DISCONNECT-60&served=May 5",
                                   "rule=CW-DISCONNECT-60"])
def test_calendar_endpoint_refuses_bad_input(client, auth, query):
    r = client.get(f"/api/v1/calendar/deadline?{query}", headers=auth["clerk"])
    assert r.status_code == 422 and r.get_json()["error"]["code"] == "invalid_fields"


def test_calendar_cli(app):
    result = app.test_cli_runner().invoke(args=["calendar", "deadline", "CW-DISCONNECT-60", "2027-05-05"])
    assert result.exit_code == 0, result.output
    assert "deadline 2027-07-06" in result.output and "§ 990.001(4)(b)" in result.output
