"""Issue 29, "A desk that cannot act by mistake": printing is not mailing.

Printing a batch (``POST /mailings``) produces the letters and the PS 3877 book and
records the print, but mails nothing and starts no clock. Recording it as mailed
(``POST /mailings/<id>/record``) needs the clerk's count of the letters, refuses a date
before the print, prints the true mailing date when the entry is late, and makes the
letters and article numbers write-once. A recording made by mistake is voided the same
day with a reason, not after. Both databases.
"""

from __future__ import annotations

import io
from datetime import timedelta

import pytest
from pypdf import PdfReader
from sqlalchemy import select

from server.core.audit.models import AuditEvent
from server.core.extensions import db
from server.notices.letters.notice import long_date
from server.notices.models import MailingBatch, Notice
from tests.support.city_calendar import city_today
from tests.support.notices import add_parcel, add_violation, approved_by, post, printed_back


def _approved(client, auth, n: int = 2) -> list[int]:
    for _ in range(n):
        add_violation(add_parcel())
    ids = sorted(d["id"] for d in post(client, auth, "superintendent", "/notices/draft").get_json())
    for notice_id in ids:
        assert post(client, auth, "superintendent", f"/notices/{notice_id}/approve").status_code == 200
    return ids


def _print(client, auth, ids) -> dict:
    r = post(client, auth, "clerk", "/mailings", {"notice_ids": ids})
    assert r.status_code == 201, r.get_json()
    return r.get_json()


def _record(client, auth, batch_id: int, count: int, mailed_on=None):
    body = {"count": count, **({"mailed_on": mailed_on.isoformat()} if mailed_on else {})}
    return post(client, auth, "clerk", f"/mailings/{batch_id}/record", body)


def _text(data: bytes) -> str:
    return " ".join(" ".join((p.extract_text() or "").split()) for p in PdfReader(io.BytesIO(data)).pages)


def test_printing_mails_nothing_and_starts_no_clock(client, auth):
    ids = _approved(client, auth)
    batch = _print(client, auth, ids)
    assert (batch["state"], batch["mailed_on"], batch["printed_on"]) == ("printed", None, city_today().isoformat())
    for notice_id in ids:
        notice = db.session.get(Notice, notice_id)
        assert notice.state == "approved" and notice.mailed_on is None
        assert notice.deadline is None and notice.deadline_printed is None and notice.served_on is None
    for pdf in ("letters.pdf", "mailing-book.pdf", "labels.pdf"):
        assert client.get(f"/api/v1/mailings/{batch['id']}/{pdf}", headers=auth["clerk"]).status_code == 200
    printed = db.session.scalars(select(AuditEvent).filter_by(action="print", subject_type="mailing_batch")).one()
    assert printed.after["notice_ids"] == ids


def test_printing_again_replaces_the_first_print_which_cannot_be_recorded(client, auth):
    ids = _approved(client, auth)
    first, second = _print(client, auth, ids), _print(client, auth, ids)
    assert set(first["article_numbers"]).isdisjoint(second["article_numbers"])
    r = _record(client, auth, first["id"], 2)
    assert (r.status_code, r.get_json()["error"]["code"]) == (409, "mailing_superseded")
    assert _record(client, auth, second["id"], 2).status_code == 200


@pytest.mark.parametrize("count", [1, 3])
def test_a_count_that_is_not_the_batch_s_records_nothing(client, auth, count):
    ids = _approved(client, auth)
    batch = _print(client, auth, ids)
    r = _record(client, auth, batch["id"], count)
    assert r.status_code == 422 and r.get_json()["error"]["code"] == "count_mismatch", r.get_json()
    assert r.get_json()["error"]["details"]["pieces"] == 2
    assert [db.session.get(Notice, i).state for i in ids] == ["approved", "approved"]
    assert db.session.get(MailingBatch, batch["id"]).mailed_on is None


def test_recording_needs_the_count(client, auth):
    batch = _print(client, auth, _approved(client, auth, 1))
    r = post(client, auth, "clerk", f"/mailings/{batch['id']}/record", {})
    assert r.status_code == 422 and "count" in r.get_json()["error"]["details"]["fields"]


def test_recording_mails_the_notices_and_starts_their_clocks(client, auth):
    ids = _approved(client, auth)
    batch = _print(client, auth, ids)
    r = _record(client, auth, batch["id"], 2)
    assert r.status_code == 200, r.get_json()
    assert (r.get_json()["state"], r.get_json()["mailed_on"]) == ("mailed", city_today().isoformat())
    for notice_id in ids:
        notice = db.session.get(Notice, notice_id)
        assert notice.state == "mailed" and notice.mailed_on == city_today() and notice.deadline_printed is not None
    again = _record(client, auth, batch["id"], 2)
    assert (again.status_code, again.get_json()["error"]["code"]) == (409, "mailing_recorded")


def test_a_mailing_date_before_the_print_is_refused(client, auth):
    ids = _approved(client, auth, 1)
    approved_by(ids, city_today() - timedelta(days=5))
    batch = _print(client, auth, ids)
    r = _record(client, auth, batch["id"], 1, city_today() - timedelta(days=1))
    assert r.status_code == 422 and r.get_json()["error"]["code"] == "invalid_date", r.get_json()
    assert "before the letters and the mailing book were printed" in r.get_json()["error"]["message"]
    assert db.session.get(Notice, ids[0]).state == "approved"


def test_a_late_entry_prints_the_true_mailing_date_not_the_print_day(client, auth):
    ids = _approved(client, auth, 1)
    printed_day, mailed_day = city_today() - timedelta(days=4), city_today() - timedelta(days=2)
    approved_by(ids, printed_day)
    batch = _print(client, auth, ids)
    printed_back(batch["id"], printed_day)
    db.session.get(MailingBatch, batch["id"]).dated_on = printed_day  # the letters as printed that day
    db.session.commit()
    r = _record(client, auth, batch["id"], 1, mailed_day)
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["dated_on"] == mailed_day.isoformat()
    book = client.get(f"/api/v1/mailings/{batch['id']}/mailing-book.pdf", headers=auth["clerk"]).data
    assert f"Date of mailing: {mailed_day.isoformat()}" in _text(book)
    assert printed_day.isoformat() not in _text(book)
    letter = client.get(f"/api/v1/notices/{ids[0]}/letter.pdf", headers=auth["clerk"]).data
    assert f"Mailed {long_date(mailed_day)}" in _text(letter)
    assert long_date(printed_day) not in _text(letter)
    assert db.session.get(Notice, ids[0]).mailed_on == mailed_day


def test_the_recorded_letter_and_article_number_are_written_once(client, auth):
    ids = _approved(client, auth, 1)
    batch = _print(client, auth, ids)
    notice = db.session.get(Notice, ids[0])
    notice.article_number = "9207190235890900000018"  # printed only: may still change (printed again)
    db.session.rollback()
    assert _record(client, auth, batch["id"], 1).status_code == 200
    notice = db.session.get(Notice, ids[0])
    with pytest.raises(ValueError, match="cannot change"):
        notice.article_number = "9207190235890900000018"


def test_a_mistaken_recording_is_voided_the_same_day_with_its_reason(client, auth):
    ids = _approved(client, auth)
    batch = _print(client, auth, ids)
    assert _record(client, auth, batch["id"], 2).status_code == 200
    r = post(client, auth, "clerk", f"/mailings/{batch['id']}/void", {"reason": "ticked the wrong notices"})
    assert r.status_code == 200, r.get_json()
    assert (r.get_json()["state"], r.get_json()["void_reason"]) == ("printed", "ticked the wrong notices")
    for notice_id in ids:
        notice = db.session.get(Notice, notice_id)
        assert (notice.state, notice.mailed_on, notice.deadline, notice.deadline_printed) == (
            "approved", None, None, None)
        assert notice.article_number is not None  # the printed letter stays, to be recorded again
    rows = db.session.scalars(select(AuditEvent).filter_by(action="void_mailing")).all()
    assert {r.subject_type for r in rows} == {"mailing_batch", "notice"}
    assert all(r.after["reason"] == "ticked the wrong notices" for r in rows)
    assert _record(client, auth, batch["id"], 2).status_code == 200  # recorded again, rightly


def test_a_void_needs_a_reason(client, auth):
    batch = _print(client, auth, _approved(client, auth, 1))
    assert _record(client, auth, batch["id"], 1).status_code == 200
    r = post(client, auth, "clerk", f"/mailings/{batch['id']}/void", {"reason": ""})
    assert r.status_code == 422
    assert db.session.get(MailingBatch, batch["id"]).mailed_on == city_today()


def test_a_mailing_recorded_on_an_earlier_day_cannot_be_voided(client, auth):
    ids = _approved(client, auth, 1)
    batch = _print(client, auth, ids)
    assert _record(client, auth, batch["id"], 1).status_code == 200
    stored = db.session.get(MailingBatch, batch["id"])
    stored.recorded_at = stored.recorded_at - timedelta(days=1)
    db.session.commit()
    r = post(client, auth, "clerk", f"/mailings/{batch['id']}/void", {"reason": "too late"})
    assert r.status_code == 409 and r.get_json()["error"]["code"] == "void_too_late", r.get_json()
    assert "before the post office signs" in r.get_json()["error"]["message"]
    assert db.session.get(Notice, ids[0]).state == "mailed"


def test_a_printed_batch_cannot_be_voided(client, auth):
    batch = _print(client, auth, _approved(client, auth, 1))
    r = post(client, auth, "clerk", f"/mailings/{batch['id']}/void", {"reason": "nothing to void"})
    assert (r.status_code, r.get_json()["error"]["code"]) == (404, "not_mailed")
