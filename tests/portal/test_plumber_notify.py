"""Email to a plumber about the permits they applied for online, read from a local SMTP sink:
each step they wait for, the reason and the corrections in the words, a plain-text part and
the way to stop; nothing for a step refused or rolled back, nor once stopped."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import select

from server.core.accounts.models import User
from server.core.extensions import db
from server.permits.models import Permit
from tests.support.permits import THAWED_DAY, apply, walk
from tests.support.plumbers import apply_on_page, logged_in, token

CORRECTION = {"item": "sdr", "section": "§ 315-13C(3)", "measured": "SDR 35", "note": "The pipe is not SDR 26"}


def _plain(message) -> str:
    return message.get_body(preferencelist=("plain",)).get_content()


@pytest.fixture
def applied_online(app, plumber, parcel, smtp_sink) -> Permit:
    """A permit the plumber applied for online, the SMTP sink listening from the start."""
    r = apply_on_page(logged_in(app, plumber), parcel.parcel_number)
    assert r.status_code == 302, r.get_data(as_text=True)
    return db.session.scalar(select(Permit).filter_by(plumber_user_id=plumber.id))


def _last(sink) -> tuple[str, str]:
    message = sink.messages[-1]
    return message["Subject"], _plain(message)


def test_the_application_received_is_emailed_in_plain_text_with_the_way_to_stop(applied_online, smtp_sink):
    [message] = smtp_sink.messages
    assert message["To"] == "dkulig@example.org"
    assert f"We received your application for permit {applied_online.number}" in message["Subject"]
    text = _plain(message)
    assert "Fees: $600.00" in text and "To stop getting these emails" in text
    assert re.search(r"/portal/plumbers/stop/\S+", text) and message["List-Unsubscribe"].startswith("<")
    assert f"/portal/plumbers/permits/{applied_online.id}" in text


@pytest.mark.parametrize(("state", "subject"), [("approved", "is approved"), ("issued", "is issued")])
def test_approval_and_issue_are_emailed(client, auth, applied_online, smtp_sink, state, subject):
    walk(client, auth, applied_online.id, state)
    assert subject in smtp_sink.messages[-1]["Subject"]


def test_a_rejection_says_why(client, auth, applied_online, smtp_sink):
    r = client.post(f"/api/v1/permits/{applied_online.id}/reject", json={"reason": "The parcel has no main in front."},
                    headers=auth["clerk"])
    assert r.status_code == 200
    subject, text = _last(smtp_sink)
    assert "is not approved" in subject and "The reason: The parcel has no main in front." in text


def test_a_step_refused_sends_nothing(client, auth, applied_online, smtp_sink):
    walk(client, auth, applied_online.id, "approved")
    sent = len(smtp_sink.messages)
    assert client.post(f"/api/v1/permits/{applied_online.id}/issue", json={}, headers=auth["clerk"]).status_code == 409
    assert len(smtp_sink.messages) == sent


def test_the_inspection_scheduled_names_the_day(app, client, auth, templates, applied_online, plumber, smtp_sink):
    walk(client, auth, applied_online.id, "scheduled")
    browser = logged_in(app, plumber)
    r = browser.post(f"/portal/plumbers/permits/{applied_online.id}/inspection",
                     data={"csrf_token": token(browser), "earliest": f"{THAWED_DAY.isoformat()}T08:00",
                           "contact": "Dana, 608-555-0190"})
    assert r.status_code == 302
    inspector = db.session.scalar(select(User).filter_by(role="inspector"))
    assert client.post(f"/api/v1/permits/{applied_online.id}/assign", json={"inspector_id": inspector.id},
                       headers=auth["superintendent"]).status_code == 200
    subject, text = _last(smtp_sink)
    assert "is scheduled" in subject and f"will come on {THAWED_DAY.isoformat()}" in text


def test_a_passed_inspection_is_emailed(client, auth, applied_online, smtp_sink):
    walk(client, auth, applied_online.id, "passed")
    assert "the inspection passed" in smtp_sink.messages[-1]["Subject"]


def test_a_failed_inspection_lists_the_corrections(client, auth, applied_online, smtp_sink):
    walk(client, auth, applied_online.id, "inspection_requested")
    r = client.post(f"/api/v1/permits/{applied_online.id}/fail", json={"corrections": [CORRECTION]},
                    headers=auth["inspector"])
    assert r.status_code == 200
    subject, text = _last(smtp_sink)
    assert "the inspection failed" in subject
    assert "- The pipe is not SDR 26 (§ 315-13C(3), measured SDR 35)" in text and "reinspection" in text


def test_once_stopped_no_more_email(app, client, auth, applied_online, smtp_sink):
    link = re.search(r"(/portal/plumbers/stop/\S+)", _plain(smtp_sink.messages[0])).group(1)
    browser = app.test_client()
    assert browser.get(link).status_code == 200 and len(smtp_sink.messages) == 1  # a GET changes nothing
    r = browser.post(link, data={"csrf_token": token(browser)})
    assert r.status_code == 200 and "We will not send you more emails" in r.get_data(as_text=True)
    walk(client, auth, applied_online.id, "issued")
    assert len(smtp_sink.messages) == 1


def test_a_forged_stop_link_is_refused(client):
    assert client.get("/portal/plumbers/stop/not-a-token").status_code == 404


def test_a_permit_taken_at_the_counter_emails_no_one(client, auth, parcel, smtp_sink):
    permit = apply(client, auth, parcel.id)
    walk(client, auth, permit["id"], "issued")
    assert smtp_sink.messages == []
