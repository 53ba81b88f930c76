"""Permits that lapse: the daily tick expires a permit still issued or scheduled past its
last day, audited and dated, and tells its holder; others are left as they are."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import pytest
from sqlalchemy import select

from server.core import city, mail, settings
from server.core.audit.models import AuditEvent
from server.core.extensions import db
from server.permits import expiry
from server.permits.models import Permit, PermitEvent
from tests.support.permits import apply, walk


def _permit_in(client, auth, parcel, state: str, last_day_ago: int, **changes) -> Permit:
    """A permit walked to ``state`` whose last day in force was ``last_day_ago`` days ago."""
    permit = apply(client, auth, parcel.id, **changes)
    walk(client, auth, permit["id"], state)
    row = db.session.get(Permit, permit["id"])
    row.expires_on = city.current().today() - timedelta(days=last_day_ago)
    db.session.flush()
    return row


@pytest.mark.parametrize("state", ["issued", "scheduled"])
def test_a_permit_not_inspected_past_its_last_day_expires(client, auth, parcel, state):
    permit = _permit_in(client, auth, parcel, state, last_day_ago=1)
    today = city.current().today()
    assert expiry.expire_lapsed(today) == [permit.id]
    assert permit.state == "expired"
    event = db.session.scalars(select(PermitEvent).filter_by(permit_id=permit.id).order_by(PermitEvent.id.desc())
                               ).first()
    assert (event.event, event.from_state, event.on, event.actor_id) == ("expire", state, today, None)
    assert "not inspected within 180 days of issue" in event.note
    audit = db.session.scalars(select(AuditEvent).filter_by(subject_type="permit", subject_id=permit.id)
                               .order_by(AuditEvent.id.desc())).first()
    assert (audit.action, audit.user_id, audit.after["state"]) == ("permit_expire", None, "expired")


@pytest.mark.parametrize(("state", "last_day_ago"), [
    ("issued", 0),  # its last day is today: still in force
    ("inspection_requested", 30),  # the city's to inspect
    ("passed", 30),  # inspected
    ("approved", 30),  # never issued: no last day
])
def test_other_permits_are_left_as_they_are(client, auth, parcel, state, last_day_ago):
    permit = _permit_in(client, auth, parcel, state, last_day_ago)
    assert expiry.expire_lapsed(city.current().today()) == []
    assert permit.state == state


def test_a_frozen_day_decides_what_has_lapsed(client, auth, parcel):
    permit = _permit_in(client, auth, parcel, "issued", last_day_ago=10)
    ten_days_ago = city.current().today() - timedelta(days=10)
    assert expiry.expire_lapsed(ten_days_ago) == []  # on its last day it was still in force
    assert expiry.expire_lapsed(ten_days_ago + timedelta(days=1)) == [permit.id]
    assert db.session.scalars(select(PermitEvent).filter_by(permit_id=permit.id, event="expire")).one().on \
        == ten_days_ago + timedelta(days=1)


def test_the_daily_tick_expires_and_tells_the_holder(app, client, auth, parcel, monkeypatch):
    permit = _permit_in(client, auth, parcel, "issued", last_day_ago=3, applicant_email="dana@example.org")
    quiet = _permit_in(client, auth, parcel, "scheduled", last_day_ago=3)  # no address: not told
    monkeypatch.setitem(app.extensions, settings.EXTENSION, replace(settings.of(app), smtp_host="mail.example"))
    sent = []
    monkeypatch.setattr(mail, "send", lambda message: sent.append(message) or True)
    result = app.test_cli_runner().invoke(args=["notices", "tick"])
    assert result.exit_code == 0, result.output
    assert f"permits_expired: 2 ({permit.id}, {quiet.id})" in result.output
    assert "permit_holders_told: 1" in result.output
    [message] = sent
    assert message["To"] == "dana@example.org" and message["Subject"] == f"Permit {permit.number} has expired"
    assert "apply for a new permit" in message.get_content()
    assert db.session.get(Permit, permit.id).state == "expired"
