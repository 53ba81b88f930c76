"""Which day starts the clock: delivery, mailing, or the last substitute step after refused mail."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from gis.rulebook import RULEBOOK_DIR, load_rulebook
from server.core import city
from server.core.city import City
from server.notices.calendar import deadline_for
from tests.support.city_calendar import city_today
from tests.support.notices import MAILED_ON, draft_one, post, walk

ARCADIA = load_rulebook("arcadia")  # the test apps' rulebook; pure code is always told which

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
    printed = deadline_for(KIND, MAILED_ON + timedelta(days=FALLBACK), ARCADIA)
    assert notice["deadline_printed"] == printed.date.isoformat()


def test_delivery_starts_the_clock(client, auth, violation):
    notice = _mailed(client, auth)
    delivered = MAILED_ON + timedelta(days=9)
    notice = _event(client, auth, notice["id"], "deliver", delivered)
    assert notice["state"] == "delivered" and notice["served_on"] == delivered.isoformat()
    assert notice["deadline"] == deadline_for(KIND, delivered, ARCADIA).date.isoformat()
    assert notice["deadline_steps"][0].startswith("clock starts on delivery")


def test_early_delivery_never_moves_the_deadline_before_the_printed_one(client, auth, violation):
    notice = _mailed(client, auth)
    delivered = MAILED_ON + timedelta(days=1)
    notice = _event(client, auth, notice["id"], "deliver", delivered)
    assert notice["served_on"] == delivered.isoformat()
    assert notice["deadline"] == notice["deadline_printed"]
    assert deadline_for(KIND, delivered, ARCADIA).date.isoformat() < notice["deadline"]
    assert "the letter printed" in notice["deadline_steps"][-1]


@pytest.mark.parametrize("event", ["refuse", "unclaimed"])
def test_refused_or_unclaimed_mail_starts_no_clock(client, auth, violation, event):
    notice = _mailed(client, auth)
    notice = _event(client, auth, notice["id"], event, MAILED_ON + timedelta(days=15))
    assert notice["delivery_event"] == {"refuse": "refused", "unclaimed": "unclaimed"}[event]
    assert notice["served_on"] is None and notice["deadline"] is None
    assert notice["deadline_steps"][-1] == ("the clock waits for a second mailing by first-class mail and a "
                                            "posting at the premises")


def _substitute(client, auth, notice_id, step, on: date, role="clerk"):
    return post(client, auth, role, f"/notices/{notice_id}/substitute", {"step": step, "on": on.isoformat()})


@pytest.mark.parametrize("event", ["refuse", "unclaimed"])
def test_the_clock_starts_from_the_last_substitute_step(client, auth, violation, event):
    notice = _mailed(client, auth)
    _event(client, auth, notice["id"], event, MAILED_ON + timedelta(days=15))
    posted, remailed = MAILED_ON + timedelta(days=16), MAILED_ON + timedelta(days=15)
    r = _substitute(client, auth, notice["id"], "posting", posted)
    assert r.status_code == 200 and r.get_json()["deadline"] is None  # one step is not service
    r = _substitute(client, auth, notice["id"], "first_class_mailing", remailed)
    notice = r.get_json()
    assert notice["state"] == {"refuse": "refused", "unclaimed": "unclaimed"}[event]
    assert notice["served_on"] == posted.isoformat()  # the later of the two
    assert notice["deadline"] == deadline_for(KIND, posted, ARCADIA).date.isoformat()
    assert [(s["step"], s["done_on"]) for s in notice["service_steps"]] == [
        ("posting", posted.isoformat()), ("first_class_mailing", remailed.isoformat())]
    assert any("substitute service complete" in s for s in notice["deadline_steps"])


def test_a_substitute_step_is_recorded_once_and_not_before_the_mail_came_back(client, auth, violation):
    notice = _mailed(client, auth)
    _event(client, auth, notice["id"], "unclaimed", MAILED_ON + timedelta(days=15))
    early = _substitute(client, auth, notice["id"], "posting", MAILED_ON + timedelta(days=14))
    assert early.status_code == 422 and early.get_json()["error"]["code"] == "invalid_date"
    assert _substitute(client, auth, notice["id"], "posting", MAILED_ON + timedelta(days=15)).status_code == 200
    again = _substitute(client, auth, notice["id"], "posting", MAILED_ON + timedelta(days=16))
    assert again.status_code == 422 and again.get_json()["error"]["code"] == "step_recorded"
    unknown = _substitute(client, auth, notice["id"], "telegram", MAILED_ON + timedelta(days=16))
    assert unknown.status_code == 422


def test_substitute_service_is_only_for_mail_that_came_back(client, auth, violation):
    notice = _mailed(client, auth)
    r = _substitute(client, auth, notice["id"], "posting", MAILED_ON + timedelta(days=1))
    assert r.status_code == 409 and r.get_json()["error"]["code"] == "invalid_transition"


def test_delivery_per_usps_tracking_says_so(client, auth, violation):
    notice = _mailed(client, auth)
    on = MAILED_ON + timedelta(days=9)
    r = post(client, auth, "clerk", f"/notices/{notice['id']}/deliver",
             {"on": on.isoformat(), "source": "usps_tracking"})
    assert r.get_json()["deadline_steps"][0] == f"clock starts on delivery per USPS tracking, {on:%a} {on.isoformat()}"


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
    expected = deadline_for(KIND, MAILED_ON, ARCADIA).date.isoformat()
    assert notice["clock_starts"] == "mailing" and notice["served_on"] == MAILED_ON.isoformat()
    assert notice["deadline"] == notice["deadline_printed"] == expected
    notice = _event(client, auth, notice["id"], "deliver", MAILED_ON + timedelta(days=9))
    assert notice["deadline"] == expected


@pytest.mark.parametrize("when", ["before-mailing", "tomorrow"])
def test_a_receipt_dated_before_mailing_or_in_the_future_is_refused(client, auth, violation, when):
    # "Tomorrow" is read when the test runs, not when it is collected: the city's date
    # turns at its midnight (06:00 UTC in Arcadia), which a long run may cross.
    on = MAILED_ON - timedelta(days=1) if when == "before-mailing" else city_today() + timedelta(days=1)
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


def test_the_tick_reports_mail_whose_receipt_is_late(client, auth, violation):
    from server.notices.tick import tick

    notice = _mailed(client, auth)  # Arcadia waits 21 days for the receipt
    assert tick(MAILED_ON + timedelta(days=21))["awaiting_receipt"] == []
    report = tick(MAILED_ON + timedelta(days=22))
    assert report["awaiting_receipt"] == [notice["id"]] and report["overdue"] == []
