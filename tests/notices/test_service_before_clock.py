"""Issue 29, "Service comes before any clock".

Refused or unclaimed certified mail did not serve the notice: the 10 days to appeal
(§ 315-21H) count, like the owner's compliance period, from the last substitute-service
step, and the reprinted letter says so. USPS holds certified mail about 15 days, so mail
cannot come back "unclaimed" before mailing + ``[service] usps_hold_days``. A mailing
cannot be dated before its approval. Substitute service has its own one-page notice (the
original named, the dates that now apply, a poster's certificate) and a PS 3817
certificate of mailing. Both databases.
"""

from __future__ import annotations

import io
from datetime import date, timedelta

import pdfplumber

from gis.rulebook import load_rulebook
from server.core.extensions import db
from server.notices.article_numbers import human_readable
from server.notices.calendar import deadline_for, fmt
from server.notices.models import MailingBatch, Notice, NoticeAppeal
from tests.support.city_calendar import city_today
from tests.support.notices import APPEAL, MAILED_ON, draft_one, post, printed_back, walk

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
    batch = post(client, auth, "clerk", "/mailings", {"notice_ids": [notice["id"]]}).get_json()
    printed_back(batch["id"], yesterday)  # printed yesterday: only the approval stands in the way
    r = post(client, auth, "clerk", f"/mailings/{batch['id']}/record", {"count": 1, "mailed_on": yesterday.isoformat()})
    assert r.status_code == 422 and r.get_json()["error"]["code"] == "invalid_date", r.get_json()
    assert "before the notices were approved" in r.get_json()["error"]["message"]
    stored = db.session.get(Notice, notice["id"])
    assert stored.state == "approved" and stored.mailed_on is None and stored.deadline is None
    assert db.session.get(MailingBatch, batch["id"]).mailed_on is None
    r = post(client, auth, "clerk", f"/mailings/{batch['id']}/record", {"count": 1})
    assert r.status_code == 200, r.get_json()


def _substitute_text(client, auth, notice_id) -> str:
    r = client.get(f"/api/v1/notices/{notice_id}/substitute-notice.pdf", headers=auth["clerk"])
    assert r.status_code == 200 and r.mimetype == "application/pdf", r.get_data(as_text=True)
    with pdfplumber.open(io.BytesIO(r.data)) as pdf:
        return " ".join(" ".join((p.extract_text() or "").split()) for p in pdf.pages)


def _long(d) -> str:
    return f"{d:%A, %B} {d.day}, {d.year}"


def test_substitute_service_has_its_own_notice_with_the_dates_that_now_apply(client, auth, violation):
    notice = _served_by_substitute(client, auth)
    posted = MAILED_ON + timedelta(days=17)
    text = _substitute_text(client, auth, notice["id"])
    assert "FIRST-CLASS MAIL AND POSTED AT THE PREMISES" in text and "CERTIFIED MAIL" not in text
    assert (f"sent you the notice mailed to you on {_long(MAILED_ON)}, certified mail article "
            f"{human_readable(notice['article_number'])}") in text
    assert f"came back refused on {_long(MAILED_ON + timedelta(days=3))}" in text
    assert f"Service was complete on {_long(posted)}" in text
    assert f"The last day to act is {_long(date.fromisoformat(notice['deadline']))}." in text
    assert f"on or before {_long(deadline_for('APPEAL-10', posted, ARCADIA).date)}" in text
    for line in ("Posted by (name)", "Date", "Time", "Photo reference", "Signature"):
        assert line in text
    assert "Certificate of Mailing (PS Form 3817)" in text and "Postmark here" in text


def test_the_substitute_notice_printed_before_the_steps_says_how_the_time_will_count(client, auth, violation):
    notice = walk(client, auth, draft_one(client, auth)["id"], "refused")
    text = _substitute_text(client, auth, notice["id"])
    assert "counts from the day the later of this notice's first-class mailing and its posting" in text
    assert "The last day to act is" not in text


def test_a_delivered_notice_has_no_substitute_notice(client, auth, violation):
    notice = walk(client, auth, draft_one(client, auth)["id"], "delivered")
    r = client.get(f"/api/v1/notices/{notice['id']}/substitute-notice.pdf", headers=auth["clerk"])
    assert r.status_code == 409 and r.get_json()["error"]["code"] == "no_substitute_service"
