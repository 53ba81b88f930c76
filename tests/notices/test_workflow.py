"""Every transition of the notice workflow, and every forbidden one (409)."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from server.core.extensions import db
from server.network.models import Parcel
from server.notices.models import STATES, Notice
from server.notices.tick import tick
from server.notices.workflow import EVIDENCE, SYSTEM, TRANSITIONS
from tests.support.city_calendar import city_today
from tests.support.notices import APPEAL, NO_STREET, PATHS, add_parcel, add_violation, draft_one, post, walk

# Events a person sends over the API (``overdue`` is the daily tick's alone; the
# decision letter has its own route, tests/notices/test_appeals.py; EVIDENCE is a
# passing inspection, not a person).
NOT_PEOPLE = {SYSTEM, EVIDENCE}
# Mailing is printed and recorded by batch (tests/notices/test_mailing_record.py).
API_EVENTS = sorted({event for (_, event), t in TRANSITIONS.items() if t.roles - NOT_PEOPLE}
                    - {"mail_decision", "mail"})
BODIES = {"decide": {"decision": "overturned"}, "mail": {"mailed_on": city_today().isoformat()},
          "substitute": {"step": "posting"}, "appeal": {**APPEAL, "on": None},
          "comply": {"note": "the owner's plumber disconnected the sump pump"}}


def _body(event: str, source: str) -> dict | None:
    """The event's body; an appeal is dated within its 10 days (from the decision letter
    for the Council, else from the notice's mailing)."""
    body = BODIES.get(event)
    if event == "appeal":
        return {**body, "on": city_today().isoformat() if source == "decided" else APPEAL["on"]}
    return body


def _role(event: str, source: str | None = None) -> str:
    roles = (TRANSITIONS[(source, event)].roles if source else
             set().union(*(t.roles for (_, e), t in TRANSITIONS.items() if e == event)))
    return sorted(roles - NOT_PEOPLE)[0]


def reach(client, auth, state: str) -> int:
    """A notice in ``state``, reached the way the workflow reaches it."""
    if state == "held":
        add_violation(add_parcel(NO_STREET))
        return draft_one(client, auth)["id"]
    add_violation(add_parcel())
    notice_id = draft_one(client, auth)["id"]
    if state in ("overdue", "escalated"):
        notice = walk(client, auth, notice_id, "delivered")
        tick(date.fromisoformat(notice["deadline"]) + timedelta(days=1))
        if state == "escalated":
            assert post(client, auth, "superintendent", f"/notices/{notice_id}/escalate").status_code == 200
        return notice_id
    walk(client, auth, notice_id, state)
    return notice_id


ALLOWED = sorted((s, e) for (s, e), t in TRANSITIONS.items() if t.roles - NOT_PEOPLE and e in API_EVENTS)


@pytest.mark.parametrize(("source", "event"), ALLOWED)
def test_allowed_transition_moves_the_notice(client, auth, source, event):
    notice_id = reach(client, auth, source)
    if event == "release":  # the tax roll now has the street
        db.session.get(Parcel, db.session.get(Notice, notice_id).parcel_id).mailing_street = "PO BOX 12"
        db.session.commit()
    r = post(client, auth, _role(event, source), f"/notices/{notice_id}/{event}", _body(event, source))
    assert r.status_code in (200, 201), r.get_json()
    state = client.get(f"/api/v1/notices/{notice_id}", headers=auth["clerk"]).get_json()["state"]
    assert state == TRANSITIONS[(source, event)].target


def test_tick_is_the_only_way_to_overdue(client, auth):
    notice_id = reach(client, auth, "overdue")
    notice = db.session.get(Notice, notice_id)
    assert notice.state == "overdue" and notice.overdue_on is not None


FORBIDDEN = [(s, e) for s in STATES for e in API_EVENTS if (s, e) not in TRANSITIONS]


@pytest.mark.parametrize(("state", "event"), FORBIDDEN)
def test_forbidden_transition_is_409_naming_state_and_allowed_events(client, auth, violation, state, event):
    notice_id = draft_one(client, auth)["id"]
    db.session.get(Notice, notice_id).state = state  # the table alone decides; how we got here does not matter
    db.session.commit()
    r = post(client, auth, _role(event), f"/notices/{notice_id}/{event}", _body(event, state))
    assert r.status_code == 409, r.get_json()
    error = r.get_json()["error"]
    assert error["code"] == "invalid_transition"
    assert error["details"]["state"] == state
    assert error["details"]["allowed_events"] == [e for (s, e) in TRANSITIONS if s == state]
    assert state in error["message"]
    assert db.session.get(Notice, notice_id).state == state


def test_a_mailed_notice_cannot_be_mailed_again(client, auth, notice_in):
    notice = notice_in("mailed")
    r = post(client, auth, "clerk", "/mailings", {"notice_ids": [notice["id"]]})
    assert r.status_code == 409
    assert r.get_json()["error"]["details"]["allowed_events"] == [
        e for (s, e) in TRANSITIONS if s == "mailed"]


def test_every_state_but_the_closed_ones_has_a_way_out():
    sources = {s for s, _ in TRANSITIONS}
    assert set(STATES) - sources == {"complied", "withdrawn"}


def test_paths_cover_every_state_the_api_can_reach():
    assert set(PATHS) | {"held", "overdue", "escalated"} == set(STATES)
