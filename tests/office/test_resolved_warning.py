"""The desk warns of a notice not yet mailed whose violations were all resolved since, and
offers the superintendent the way out: withdraw it."""

from __future__ import annotations

import re
from datetime import timedelta

from server.core.extensions import db
from server.notices.calendar import fmt
from server.notices.models import Notice
from tests.support.city_calendar import city_today
from tests.support.notices import draft_one, reinspect, walk


def _section(html: str, name: str) -> str:
    match = re.search(rf'<table class="grid" data-section="{name}">(.*?)</table>', html, re.S)
    return match.group(1) if match else ""


def _warning(html: str, notice_id: int) -> str:
    """The text of the notice's warning row, whitespace squeezed; empty if none."""
    match = re.search(rf'<tr class="resolved" data-resolved="{notice_id}">(.*?)</tr>', html, re.S)
    return " ".join(re.sub(r"<[^>]+>", " ", match.group(1)).split()) if match else ""


def _resolve(client, auth, notice: dict) -> int:
    """A passing reinspection of the notice's clear-water violation, two days ago; its id."""
    return reinspect(client, auth, notice["parcel_id"], "CW-DISCONNECT-60", days_ago=2)


def test_clerk_is_warned_once_an_approved_notices_violation_is_resolved(desk, client, auth, templates,
                                                                        notice_in):
    notice = notice_in("approved")
    d = desk("clerk1")
    assert _warning(d.page(), notice["id"]) == ""

    inspection = _resolve(client, auth, notice)
    html = d.page()

    assert _warning(html, notice["id"]) == (
        f"⚠ Notice {notice['id']}: The violation this notice cites was resolved on "
        f"{fmt(city_today() - timedelta(days=2))} by inspection #{inspection}. The letter would order a "
        "correction already made, so it cannot be mailed. Ask the superintendent to withdraw it.")
    box = re.search(rf'<input[^>]*name="notice_id" value="{notice["id"]}"[^>]*>', _section(html, "approved"))
    assert "disabled" in box.group(0) and "checked" not in box.group(0)


def test_superintendent_withdraws_a_resolved_draft_from_the_desk(desk, client, auth, templates,
                                                                 violation):
    notice = draft_one(client, auth)
    inspection = _resolve(client, auth, notice)
    d = desk("superintendent1")
    html = d.page()
    assert f'<button name="withdraw" form="withdraw-{notice["id"]}"' in _section(html, "drafts")
    assert f'id="withdraw-{notice["id"]}"' in html

    r = d.post(f"/desk/notices/{notice['id']}/withdraw", {"note": _warning(html, notice["id"])})

    assert f"Notice {notice['id']} ({notice['parcel_number']}) is now withdrawn." in r.get_data(as_text=True)
    db.session.expire_all()
    stored = db.session.get(Notice, notice["id"])
    assert stored.state == "withdrawn" and f"by inspection #{inspection}" in stored.withdrawn_reason


def test_mailing_it_from_the_desk_is_refused_with_the_reason(desk, client, auth, templates,
                                                             notice_in):
    notice = notice_in("approved")
    inspection = _resolve(client, auth, notice)

    r = desk("clerk1").post("/desk/mailings", {"notice_id": str(notice["id"])})

    text = r.get_data(as_text=True)
    assert f"notice {notice['id']} cannot be mailed. The violation this notice cites was resolved" in text
    assert f"by inspection #{inspection}; the superintendent may withdraw it instead" in text
    db.session.expire_all()
    assert db.session.get(Notice, notice["id"]).state == "approved"


def _partly(html: str, notice_id: int) -> str:
    """The text of the notice's partly-resolved note, whitespace squeezed; empty if none."""
    match = re.search(rf'<tr class="resolved partly" data-partly="{notice_id}">(.*?)</tr>', html, re.S)
    return " ".join(re.sub(r"<[^>]+>", " ", match.group(1)).split()) if match else ""


def test_a_notice_with_some_violations_closed_is_noted_and_still_mailable(desk, client, auth, parcel):
    from tests.support.notices import add_violation

    first, second = add_violation(parcel), add_violation(parcel, message="Downspout to the lateral")
    db.session.commit()
    notice = draft_one(client, auth)
    assert sorted(f["violation_id"] for f in notice["findings"]) == [first.id, second.id]
    notice = walk(client, auth, notice["id"], "approved")
    clerk = desk("clerk1")
    assert _partly(clerk.page(), notice["id"]) == ""

    r = client.post(f"/api/v1/violations/{second.id}/waive", json={"reason": "downspout moved in October"},
                    headers=auth["superintendent"])
    assert r.status_code == 200, r.get_json()
    html = clerk.page()

    assert _warning(html, notice["id"]) == ""  # not all: no refusal
    assert _partly(html, notice["id"]) == (
        f"Note on notice {notice['id']}: 1 of the 2 violations this notice cites was waived since it was drafted; "
        "its letter still lists it. It can be mailed as it stands; the superintendent may withdraw it and "
        "draft again for what is still open.")
    box = re.search(rf'<input[^>]*name="notice_id" value="{notice["id"]}"[^>]*>', _section(html, "approved"))
    assert "disabled" not in box.group(0) and "checked" in box.group(0)
    boss = desk("superintendent1").page()
    assert f'<button name="withdraw" form="withdraw-{notice["id"]}"' in _section(boss, "approved")
    assert "1 of the 2 violations this notice cites was waived" in re.search(
        rf'<form id="withdraw-{notice["id"]}".*?</form>', boss, re.S).group(0)
