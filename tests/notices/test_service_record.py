"""Issue 14, proof of service: "The letter and the book record what was done."

A reprinted letter (``letter.pdf?reprint=true``) says how the notice was served: certified
mail delivered (per the return receipt or USPS tracking), or refused / unclaimed and then
each substitute step with its date, and the day the clock started from. The reprinted
mailing book (``mailing-book.pdf?reprint=true``) lists each second mailing on its own
First-Class Mail sheet (not certified) and each posting on its own sheet. Checked by the
text of the PDFs; both databases.
"""

from __future__ import annotations

import hashlib
import io
from datetime import date, timedelta

import pdfplumber
import pytest

from gis.rulebook import RULEBOOK_DIR, load_rulebook
from server.core import city
from server.core.city import City
from server.core.extensions import db
from server.notices.article_numbers import human_readable
from server.notices.calendar import deadline_for
from tests.support.notices import MAILED_ON, add_parcel, add_violation, approved_by, draft_one, mail, post, walk

ARCADIA = load_rulebook("arcadia")  # the test apps' rulebook; pure code is always told which

KIND = "CW-DISCONNECT-60"


def _fmt(d: date) -> str:
    return f"{d:%a} {d.isoformat()}"


def _pages(data: bytes) -> list[str]:
    with pdfplumber.open(io.BytesIO(data)) as pdf:
        return [" ".join((page.extract_text() or "").split()) for page in pdf.pages]


def _text(data: bytes) -> str:
    return " ".join(_pages(data))


def _ok(r) -> dict:
    assert r.status_code == 200, r.get_json()
    return r.get_json()


def _came_back_and_served(client, auth, event: str = "unclaimed") -> tuple[dict, date, date, date]:
    notice = walk(client, auth, draft_one(client, auth)["id"], "mailed")
    back, remailed, posted = (MAILED_ON + timedelta(days=d) for d in (15, 16, 17))
    _ok(post(client, auth, "clerk", f"/notices/{notice['id']}/{event}", {"on": back.isoformat()}))
    _ok(post(client, auth, "clerk", f"/notices/{notice['id']}/substitute",
             {"step": "first_class_mailing", "on": remailed.isoformat()}))
    notice = _ok(post(client, auth, "clerk", f"/notices/{notice['id']}/substitute",
                      {"step": "posting", "on": posted.isoformat()}))
    return notice, back, remailed, posted


def _letter(client, auth, notice_id: int, reprint: bool = True):
    r = client.get(f"/api/v1/notices/{notice_id}/letter.pdf" + ("?reprint=true" if reprint else ""),
                   headers=auth["clerk"])
    assert r.status_code == 200 and r.mimetype == "application/pdf"
    return r


@pytest.mark.parametrize("event", ["unclaimed", "refuse"])
def test_reprinted_letter_says_the_mail_came_back_then_each_step_and_when_the_clock_started(
        client, auth, violation, event):
    notice, back, remailed, posted = _came_back_and_served(client, auth, event)
    text = _text(_letter(client, auth, notice["id"]).data)
    word = {"unclaimed": "unclaimed", "refuse": "refused"}[event]
    deadline = deadline_for(KIND, posted, ARCADIA).date
    assert "How this notice was served (as recorded on" in text
    assert (f"Sent by certified mail, return receipt requested, on {_fmt(MAILED_ON)}, article number "
            f"{human_readable(notice['article_number'])}.") in text
    assert f"The certified letter came back {word} on {_fmt(back)}; it did not serve the notice." in text
    # In the order done: the first-class mailing, then the posting; the clock from the last.
    assert text.index(f"Mailed again by first-class mail on {_fmt(remailed)}.") \
        < text.index(f"Posted at the premises on {_fmt(posted)}.")
    assert f"The time to act runs from {_fmt(posted)}, the last of these steps." in text
    assert f"The last day to act is {_fmt(deadline)}, later than the date printed above, which it replaces." in text
    # Arcadia's rulebook states no statute or ordinance for substitute service: none is printed.
    assert "Service under" not in text and "Jones v. Flowers" not in text


def test_the_letter_as_mailed_is_unchanged_by_the_record(client, auth, violation):
    notice, *_ = _came_back_and_served(client, auth)
    r = _letter(client, auth, notice["id"], reprint=False)
    assert hashlib.sha256(r.data).hexdigest() == notice["letter_sha256"]
    assert "How this notice was served" not in _text(r.data)
    reprint = _letter(client, auth, notice["id"])
    assert reprint.headers["ETag"] != r.headers["ETag"]


def test_a_step_not_yet_taken_is_said_and_no_clock_is_claimed(client, auth, violation):
    notice = walk(client, auth, draft_one(client, auth)["id"], "mailed")
    back, posted = MAILED_ON + timedelta(days=15), MAILED_ON + timedelta(days=16)
    _ok(post(client, auth, "clerk", f"/notices/{notice['id']}/unclaimed", {"on": back.isoformat()}))
    _ok(post(client, auth, "clerk", f"/notices/{notice['id']}/substitute",
             {"step": "posting", "on": posted.isoformat()}))
    text = _text(_letter(client, auth, notice["id"]).data)
    assert f"Posted at the premises on {_fmt(posted)}." in text
    assert "Not yet done: a second mailing by first-class mail." in text
    assert "The time to act has not started yet." in text and "The last day to act is" not in text


@pytest.mark.parametrize(("source", "per"), [(None, "the return receipt (PS Form 3811)"),
                                            ("usps_tracking", "USPS tracking")])
def test_reprinted_letter_of_delivered_mail_names_the_source_of_the_date(client, auth, violation, source, per):
    notice = walk(client, auth, draft_one(client, auth)["id"], "mailed")
    on = MAILED_ON + timedelta(days=4)
    body = {"on": on.isoformat(), **({"source": source} if source else {})}
    _ok(post(client, auth, "clerk", f"/notices/{notice['id']}/deliver", body))
    text = _text(_letter(client, auth, notice["id"]).data)
    assert f"Delivered on {_fmt(on)}, per {per}." in text
    assert f"The time to act runs from {_fmt(on)}, the day of delivery." in text
    assert "came back" not in text and "first-class" not in text


def test_a_mailed_letter_with_no_result_yet_says_so(client, auth, violation):
    notice = walk(client, auth, draft_one(client, auth)["id"], "mailed")
    text = _text(_letter(client, auth, notice["id"]).data)
    assert "No return receipt or USPS tracking result is recorded yet." in text
    assert "The time to act has not started yet." in text


def test_an_unmailed_notice_has_no_reprint(client, auth, violation):
    notice = draft_one(client, auth)
    r = client.get(f"/api/v1/notices/{notice['id']}/letter.pdf?reprint=true", headers=auth["clerk"])
    assert r.status_code == 404 and r.get_json()["error"]["code"] == "not_mailed"


def test_the_book_lists_the_first_class_mailing_on_its_own_sheet_not_certified(client, auth):
    """Two letters in one batch: one came back and was served by substitute, one was delivered."""
    hostile = add_parcel(owner="Smith & <Sons")
    add_violation(hostile)
    add_violation(add_parcel())
    db.session.flush()
    drafts = post(client, auth, "superintendent", "/notices/draft").get_json()
    ids = sorted(d["id"] for d in drafts)
    for notice_id in ids:
        _ok(post(client, auth, "superintendent", f"/notices/{notice_id}/approve"))
    approved_by(ids, MAILED_ON)
    r = mail(client, auth, ids, MAILED_ON)
    assert r.status_code == 200, r.get_json()
    batch = r.get_json()
    served = next(d for d in drafts if d["owner_names"] == ["Smith & <Sons"])["id"]
    other = next(i for i in ids if i != served)
    back, remailed, posted = (MAILED_ON + timedelta(days=d) for d in (15, 16, 17))
    _ok(post(client, auth, "clerk", f"/notices/{served}/unclaimed", {"on": back.isoformat()}))
    _ok(post(client, auth, "clerk", f"/notices/{served}/substitute",
             {"step": "first_class_mailing", "on": remailed.isoformat()}))
    _ok(post(client, auth, "clerk", f"/notices/{served}/substitute", {"step": "posting", "on": posted.isoformat()}))
    _ok(post(client, auth, "clerk", f"/notices/{other}/deliver", {"on": (MAILED_ON + timedelta(days=3)).isoformat()}))
    article = human_readable(next(a for i, a in zip(batch["notice_ids"], batch["article_numbers"], strict=True)
                                  if i == served))

    signed = client.get(f"/api/v1/mailings/{batch['id']}/mailing-book.pdf", headers=auth["clerk"])
    assert hashlib.sha256(signed.data).hexdigest() == batch["mailing_book_sha256"]  # as the post office signed it
    assert "First-Class" not in _text(signed.data)

    r = client.get(f"/api/v1/mailings/{batch['id']}/mailing-book.pdf?reprint=true", headers=auth["clerk"])
    assert r.status_code == 200
    pages = _pages(r.data)
    certified, first_class, postings = pages[0], pages[1], pages[2]
    assert len(pages) == 3
    assert "[X] Certified Mail" in certified and "Total number of pieces listed by sender: 2" in certified
    assert "First-Class Mail: second mailings of notices whose certified letter came back" in first_class
    assert "[X] First-Class Mail [ ] Certified Mail [ ] Return Receipt" in first_class
    assert "[X] Certified" not in first_class
    assert f"1 {remailed.isoformat()} Smith & <Sons" in first_class
    assert "412 N DETTLOFF DR" in first_class and "First-Class Mail" in first_class
    assert f"Notice {served}" in first_class and article in first_class
    assert f"came back unclaimed {_fmt(back)}" in first_class
    assert f"Notice {other}" not in first_class  # delivered: no second mailing
    assert "Total listed on this sheet: 1" in first_class
    assert "Postings at the premises of notices whose certified letter came back" in postings
    assert f"1 {posted.isoformat()}" in postings and "Posted at premises" in postings
    assert "Smith & <Sons" in postings


@pytest.fixture
def stated_basis(app, tmp_path, monkeypatch):
    """A rulebook like Arcadia's whose [service] table states a basis (the city attorney's words)."""
    text = (RULEBOOK_DIR / "arcadia.toml").read_text()
    anchor = 'substitute_steps = ["first_class_mailing", "posting"]'
    assert anchor in text
    path = tmp_path / "basis.toml"
    path.write_text(text.replace(anchor, anchor + '\nbasis = "Resolution 2026-7 of the Utility Commission"'))
    monkeypatch.setitem(app.extensions, city.EXTENSION, City.from_config({"LATERAL_RULEBOOK": str(path)}))


def test_a_basis_is_printed_only_where_the_rulebook_states_one(client, auth, violation, stated_basis):
    notice, *_ = _came_back_and_served(client, auth)
    text = _text(_letter(client, auth, notice["id"]).data)
    assert "Service under Resolution 2026-7 of the Utility Commission." in text
