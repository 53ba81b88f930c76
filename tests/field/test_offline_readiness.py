"""Each tablet's offline readiness, as its last sync reported it (issue 31, item 6).

A tablet whose browser never installed the service worker (a certificate it does not
trust) cannot open the field app without signal. The app says so on the tablet, and its
sync tells the server, on the token that tablet syncs with; the superintendent sees it
per device, on the Assign page and in ``GET /api/v1/sync/devices``.
"""

from __future__ import annotations

import pytest
from sqlalchemy import select

from server.core.accounts.models import ApiToken, User
from server.core.accounts.service import issue_token
from server.core.extensions import db

REASON = "An SSL certificate error occurred when fetching the script."


@pytest.fixture
def tablets(app):
    """Two tablets of one inspector: bearer headers by device name."""
    inspector = db.session.scalar(select(User).where(User.username == "inspector1"))
    made = {name: issue_token(inspector, name)[0] for name in ("tablet A", "tablet B")}
    db.session.commit()
    return {name: {"Authorization": f"Bearer {token}"} for name, token in made.items()}


def _report(client, headers, body):
    return client.post("/api/v1/sync/device", json=body, headers=headers)


def _devices(client, auth) -> dict[str, dict]:
    r = client.get("/api/v1/sync/devices", headers=auth["superintendent"])
    assert r.status_code == 200, r.get_data(as_text=True)
    return {d["device"]: d for d in r.get_json() if d["device"].startswith("tablet ")}


def test_the_superintendent_sees_each_tablets_last_report(client, auth, tablets):
    assert _report(client, tablets["tablet A"], {"offline_ready": False, "reason": REASON}).status_code == 200
    assert _report(client, tablets["tablet B"], {"offline_ready": True}).status_code == 200

    devices = _devices(client, auth)

    assert devices["tablet A"]["offline_ready"] is False and devices["tablet A"]["offline_reason"] == REASON
    assert devices["tablet B"]["offline_ready"] is True and devices["tablet B"]["offline_reason"] is None
    assert devices["tablet A"]["username"] == "inspector1" and devices["tablet A"]["offline_reported_at"]


def test_a_later_sync_replaces_the_report(client, auth, tablets):
    _report(client, tablets["tablet A"], {"offline_ready": False, "reason": REASON})
    _report(client, tablets["tablet A"], {"offline_ready": True, "reason": None})  # the certificate now trusted

    assert _devices(client, auth)["tablet A"]["offline_ready"] is True
    assert _devices(client, auth)["tablet A"]["offline_reason"] is None


def test_the_assign_page_lists_the_tablets(client, auth, tablets):
    _report(client, tablets["tablet A"], {"offline_ready": False, "reason": REASON})
    client.post("/login", data={"username": "superintendent1", "password": "correct horse battery"})

    html = client.get("/assign/").get_data(as_text=True)

    section = html[html.index('id="devices-heading"'):]
    assert "tablet A" in section and f"no: {REASON}" in section
    assert "tablet B" in section and "not reported yet" in section


@pytest.mark.parametrize("body", [
    {},
    {"offline_ready": "maybe"},
    {"offline_ready": False, "reason": "x" * 301},
    {"offline_ready": False, "extra": 1},
])
def test_a_bad_report_is_refused_and_nothing_written(client, tablets, body):
    r = _report(client, tablets["tablet A"], body)

    assert r.status_code == 422, r.get_data(as_text=True)
    token = db.session.scalar(select(ApiToken).where(ApiToken.name == "tablet A"))
    assert token.offline_ready is None and token.offline_reported_at is None


def test_only_supervisors_see_the_devices(client, auth):
    assert client.get("/api/v1/sync/devices", headers=auth["inspector"]).status_code == 403
    assert client.get("/api/v1/sync/devices", headers=auth["clerk"]).status_code == 403

