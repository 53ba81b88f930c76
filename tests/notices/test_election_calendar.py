"""The clerk keeps the election calendar: special elections and how far it is checked.

Hand counts: HOOKUP-PENALTY (10 days, the owner's act) served Sat 2027-03-06: Mar 7-16
is 10 days, a Tuesday. Arcadia's rulebook is checked through 2030-12-31.
"""

from __future__ import annotations

from server.core.audit.models import AuditEvent
from server.core.extensions import db
from server.notices.models import ElectionCalendarEntry

QUERY = "/api/v1/calendar/deadline?rule=HOOKUP-PENALTY&served=2027-03-06"


def _cli(app, *args):
    return app.test_cli_runner().invoke(args=["calendar", *args])


def test_a_special_election_the_clerk_records_moves_the_last_day(app, client, auth):
    assert client.get(QUERY, headers=auth["clerk"]).get_json()["deadline"] == "2027-03-16"
    result = _cli(app, "special-election", "--as", "clerk1", "2027-03-16", "Special election, Assembly District 92")
    assert result.exit_code == 0, result.output
    body = client.get(QUERY, headers=auth["clerk"]).get_json()
    assert body["deadline"] == "2027-03-17"
    assert any("special election recorded by the clerk" in s for s in body["steps"])
    audit = db.session.query(AuditEvent).filter_by(subject_type="election_calendar").one()
    assert audit.action == "record_special_election" and audit.after["day"] == "2027-03-16"


def test_a_last_day_past_the_checked_calendar_is_refused(client, auth):
    # CW-REMOVE-150 served 2030-08-04 ends Thu 2031-01-02: past 2030-12-31.
    r = client.get("/api/v1/calendar/deadline?rule=CW-REMOVE-150&served=2030-08-04", headers=auth["clerk"])
    assert r.status_code == 422
    error = r.get_json()["error"]
    assert error["code"] == "election_calendar_unchecked"
    assert error["details"] == {"rule": "CW-REMOVE-150", "served": "2030-08-04", "last_day": "2031-01-02",
                                "checked_through": "2030-12-31"}


def test_the_clerk_checking_further_lets_the_deadline_print(app, client, auth):
    assert _cli(app, "checked-through", "--as", "clerk1", "2031-06-30").exit_code == 0
    r = client.get("/api/v1/calendar/deadline?rule=CW-REMOVE-150&served=2030-08-04", headers=auth["clerk"])
    assert r.status_code == 200 and r.get_json()["deadline"] == "2031-01-02"
    assert "checked through Mon 2031-06-30" in _cli(app, "show").output


def test_only_the_clerk_keeps_the_calendar(app):
    result = _cli(app, "special-election", "--as", "inspector1", "2027-03-16", "x")
    assert result.exit_code != 0 and "forbidden" in result.output
    assert db.session.query(ElectionCalendarEntry).count() == 0


def test_a_special_election_needs_a_name(app):
    result = _cli(app, "special-election", "--as", "clerk1", "2027-03-16", " ")
    assert result.exit_code != 0 and "invalid_fields" in result.output


def test_the_appeal_deadline_says_the_saturday_rule_applied(client, auth):
    # APPEAL-10 served Wed 2027-04-21: Apr 22-30 = 9, May 1 = 10, a Saturday; a filing
    # with the city's office, closed on Saturdays -> Mon May 3.
    r = client.get("/api/v1/calendar/deadline?rule=APPEAL-10&served=2027-04-21", headers=auth["clerk"])
    body = r.get_json()
    assert body["deadline"] == "2027-05-03"
    assert any("§ 990.001(4)(c) applies" in s for s in body["steps"])
