"""Who may do what: only the superintendent approves; only clerk and admin mail and record delivery."""

from __future__ import annotations

import pytest

from tests.support.notices import draft_one, post, walk


@pytest.mark.parametrize("role", ["inspector", "clerk", "admin"])
def test_only_the_superintendent_approves(client, auth, violation, role):
    notice = draft_one(client, auth)
    r = post(client, auth, role, f"/notices/{notice['id']}/approve")
    assert r.status_code == 403
    assert r.get_json()["error"]["code"] == "forbidden"
    assert client.get(f"/api/v1/notices/{notice['id']}", headers=auth[role]).get_json()["state"] == "draft"


@pytest.mark.parametrize("role", ["inspector", "superintendent"])
def test_only_clerk_and_admin_mail(client, auth, violation, role):
    notice = walk(client, auth, draft_one(client, auth)["id"], "approved")
    assert post(client, auth, role, "/mailings", {"notice_ids": [notice["id"]]}).status_code == 403
    assert post(client, auth, role, "/mailings/1/record", {"count": 1}).status_code == 403
    assert post(client, auth, role, "/mailings/1/void", {"reason": "wrong day"}).status_code == 403


@pytest.mark.parametrize("role", ["clerk", "admin"])
def test_clerk_and_admin_mail(client, auth, violation, role):
    notice = walk(client, auth, draft_one(client, auth)["id"], "approved")
    r = post(client, auth, role, "/mailings", {"notice_ids": [notice["id"]]})
    assert r.status_code == 201
    assert r.get_json()["notice_ids"] == [notice["id"]]


@pytest.mark.parametrize("event", ["deliver", "refuse", "unclaimed"])
@pytest.mark.parametrize("role", ["inspector", "superintendent"])
def test_only_clerk_and_admin_record_the_return_receipt(client, auth, notice_in, event, role):
    notice = notice_in("mailed")
    r = post(client, auth, role, f"/notices/{notice['id']}/{event}")
    assert r.status_code == 403
    # The route's declaration (the gate, server/core/gate.py) refuses before the transition table is asked.
    assert r.get_json()["error"]["details"]["allowed_roles"] == ["admin", "clerk"]
    assert client.get(f"/api/v1/notices/{notice['id']}", headers=auth["clerk"]).get_json()["state"] == "mailed"


@pytest.mark.parametrize("role", ["inspector", "clerk"])
def test_drafting_needs_superintendent_or_admin(client, auth, violation, role):
    r = post(client, auth, role, "/notices/draft")
    assert r.status_code == 403
    assert client.get("/api/v1/notices", headers=auth[role]).get_json() == []


def test_a_draft_lists_the_events_people_may_send_and_roles_still_apply(client, auth, violation):
    notice = draft_one(client, auth)
    assert notice["allowed_events"] == ["approve", "withdraw"]
    r = post(client, auth, "clerk", f"/notices/{notice['id']}/approve")
    assert r.status_code == 403
