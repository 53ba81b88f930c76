"""A notice closes through evidence, not an event an inspector sends (issue 15, row 2).

A passing reinspection complies it on its own (tests/field/test_resolutions.py,
tests/notices/test_tick.py); by hand only the superintendent may, with a reason
that the audit row keeps.
"""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from sqlalchemy import select

from server.core.audit.models import AuditEvent
from server.core.extensions import db
from server.notices.models import Notice
from server.notices.tick import tick
from tests.support.notices import post


def _overdue_or_escalated(client, auth, notice_in, state: str) -> dict:
    notice = notice_in("delivered")
    tick(date.fromisoformat(notice["deadline"]) + timedelta(days=1))
    if state == "escalated":
        assert post(client, auth, "superintendent", f"/notices/{notice['id']}/escalate").status_code == 200
    return notice


@pytest.mark.parametrize("state", ["mailed", "delivered", "overdue", "escalated"])
def test_an_inspector_cannot_comply_a_notice(client, auth, notice_in, state):
    if state in ("overdue", "escalated"):
        notice = _overdue_or_escalated(client, auth, notice_in, state)
    else:
        notice = notice_in(state)
    r = post(client, auth, "inspector", f"/notices/{notice['id']}/comply", {"note": "fixed, trust me"})
    assert r.status_code == 403, r.get_json()
    row = db.session.get(Notice, notice["id"])
    assert row.state == state and row.complied_reason is None
    assert db.session.scalars(select(AuditEvent).filter_by(action="comply")).all() == []


@pytest.mark.parametrize("role", ["clerk", "admin"])
def test_nor_may_the_clerk_or_the_administrator(client, auth, notice_in, role):
    notice = notice_in("delivered")
    assert post(client, auth, role, f"/notices/{notice['id']}/comply", {"note": "x"}).status_code == 403
    assert db.session.get(Notice, notice["id"]).state == "delivered"


def test_the_superintendent_complies_by_hand_only_with_a_reason(client, auth, notice_in):
    notice = notice_in("delivered")
    r = post(client, auth, "superintendent", f"/notices/{notice['id']}/comply", {})
    assert r.status_code == 422 and r.get_json()["error"]["code"] == "reason_required"
    assert db.session.get(Notice, notice["id"]).state == "delivered"


def test_the_superintendents_reason_is_audited(client, auth, notice_in):
    notice = notice_in("delivered")
    reason = "Owner's plumber disconnected the sump pump; photos in the file"
    r = post(client, auth, "superintendent", f"/notices/{notice['id']}/comply", {"note": reason})
    assert r.status_code == 200, r.get_json()
    assert (r.get_json()["state"], r.get_json()["complied_reason"]) == ("complied", "superintendent_decision")
    event = db.session.scalars(select(AuditEvent).filter_by(action="comply", subject_id=notice["id"])).one()
    assert event.after["note"] == reason and event.after["complied_reason"] == "superintendent_decision"
    assert event.user_id is not None
