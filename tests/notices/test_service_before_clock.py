"""Issue 29, "Service comes before any clock".

Refused or unclaimed certified mail did not serve the notice: the 10 days to appeal
(§ 315-21H) count, like the owner's compliance period, from the last substitute-service
step, and the reprinted letter says so. USPS holds certified mail about 15 days, so mail
cannot come back "unclaimed" before mailing + ``[service] usps_hold_days``. Both databases.
"""

from __future__ import annotations

import io
from datetime import timedelta

import pdfplumber

from gis.rulebook import load_rulebook
from server.core.extensions import db
from server.notices.calendar import deadline_for, fmt
from server.notices.models import MailingBatch, Notice, NoticeAppeal
from tests.support.city_calendar import city_today
from tests.support.notices import APPEAL, MAILED_ON, draft_one, post, walk

ARCADIA = load_rulebook("arcadia")
HOLD = 15  # arcadia.toml [service] usps_hold_days


def _ok(r) -> dict:
    assert r.status_code == 200, r.get_json()
    return r.get_json()


def _appeal(client, auth, notice_id, filed):
    body = {"on": filed.isoformat(), "note": APPEAL["note"]}
    return post(client, auth, "clerk", f"/notices/{notice_id}/appeal", body)


def _served_by_substitute(client, auth, event="refuse", back=3, remailed=16, posted=17) -> dict:
    notice = walk(client, auth, draft_one(client, auth)["id"], "mailed")
    _ok(post(client, auth, "clerk", f"/notices/{notice['id']}/{event}",
             {"on": (MAILED_ON + timedelta(days=back)).isoformat()}))
    _ok(post(client, auth, "clerk", f"/notices/{notice['id']}/substitute",
             {"step": "first_class_mailing", "on": (MAILED_ON + timedelta(days=remailed)).isoformat()}))
    return _ok(post(client, auth, "clerk", f"/notices/{notice['id']}/substitute",
                    {"step": "posting", "on": (MAILED_ON + timedelta(days=posted)).isoformat()}))


def test_the_appeal_days_count_from_the_last_substitute_step_not_the_certified_mailing(client, auth, violation):
    notice = _served_by_substitute(client, auth)
    posted = MAILED_ON + timedelta(days=17)
    assert notice["served_on"] == posted.isoformat()
    filed = MAILED_ON + timedelta(days=20)  # 20 days after the certified letter, 3 after the posting
    r = _appeal(client, auth, notice["id"], filed)
    assert r.status_code == 200, r.get_json()
    (appeal,) = r.get_json()["appeals"]
    assert appeal["due_on"] == deadline_for("APPEAL-10", posted, ARCADIA).date.isoformat()
    assert appeal["late_reason"] is None


def test_an_appeal_before_substitute_service_is_complete_is_never_late(client, auth, violation):
    notice = walk(client, auth, draft_one(client, auth)["id"], "mailed")
    back = MAILED_ON + timedelta(days=3)
    _ok(post(client, auth, "clerk", f"/notices/{notice['id']}/refuse", {"on": back.isoformat()}))
    filed = MAILED_ON + timedelta(days=19)
    r = _appeal(client, auth, notice["id"], filed)
    assert r.status_code == 200, r.get_json()
    assert db.session.query(NoticeAppeal).count() == 1


def test_the_reprint_after_substitute_service_gives_the_appeal_days_from_it(client, auth, violation):
    notice = _served_by_substitute(client, auth)
    r = client.get(f"/api/v1/notices/{notice['id']}/letter.pdf?reprint=true", headers=auth["clerk"])
    assert r.status_code == 200
    with pdfplumber.open(io.BytesIO(r.data)) as pdf:
        text = " ".join(" ".join((p.extract_text() or "").split()) for p in pdf.pages)
    posted = MAILED_ON + timedelta(days=17)
    assert f"The days to appeal (§ 315-21H) also run from {fmt(posted)}" in text


def test_unclaimed_is_refused_before_usps_has_held_the_letter_its_days(client, auth, violation):
    notice = walk(client, auth, draft_one(client, auth)["id"], "mailed")
    for days in (0, HOLD - 1):
        r = post(client, auth, "clerk", f"/notices/{notice['id']}/unclaimed",
                 {"on": (MAILED_ON + timedelta(days=days)).isoformat()})
        assert r.status_code == 422 and r.get_json()["error"]["code"] == "invalid_date", r.get_json()
        assert (MAILED_ON + timedelta(days=HOLD)).isoformat() in r.get_json()["error"]["message"]
        again = client.get(f"/api/v1/notices/{notice['id']}", headers=auth["clerk"]).get_json()
        assert again["state"] == "mailed" and again["delivery_event"] is None
    r = post(client, auth, "clerk", f"/notices/{notice['id']}/unclaimed",
             {"on": (MAILED_ON + timedelta(days=HOLD)).isoformat()})
    assert r.status_code == 200 and r.get_json()["state"] == "unclaimed"


def test_refused_mail_may_come_back_any_day_after_mailing(client, auth, violation):
    notice = walk(client, auth, draft_one(client, auth)["id"], "mailed")
    r = post(client, auth, "clerk", f"/notices/{notice['id']}/refuse", {"on": MAILED_ON.isoformat()})
    assert r.status_code == 200 and r.get_json()["state"] == "refused"


def test_a_mailing_dated_before_the_approval_is_refused_and_nothing_is_mailed(client, auth, violation):
    notice = walk(client, auth, draft_one(client, auth)["id"], "approved")  # approved today
    yesterday = city_today() - timedelta(days=1)
    r = post(client, auth, "clerk", "/mailings", {"notice_ids": [notice["id"]], "mailed_on": yesterday.isoformat()})
    assert r.status_code == 422 and r.get_json()["error"]["code"] == "invalid_date", r.get_json()
    assert "before the notices were approved" in r.get_json()["error"]["message"]
    stored = db.session.get(Notice, notice["id"])
    assert stored.state == "approved" and stored.mailed_on is None and stored.article_number is None
    assert db.session.query(MailingBatch).count() == 0
    r = post(client, auth, "clerk", "/mailings", {"notice_ids": [notice["id"]], "mailed_on": city_today().isoformat()})
    assert r.status_code == 201, r.get_json()
