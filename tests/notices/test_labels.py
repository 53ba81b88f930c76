"""PS 3800 support: labels for the self-issued article numbers, with their barcode, so the
number on the envelope is the one in the letter, the mailing book and the audit trail."""

from __future__ import annotations

import io

import pytest
from pypdf import PdfReader
from reportlab.graphics.barcode.code128 import Code128

from server.notices.article_numbers import human_readable
from server.notices.letters.notice import gs1_128_value
from tests.support.notices import add_parcel, add_violation, draft_one, post


def test_the_batch_prints_a_label_per_piece_with_the_letters_numbers(client, auth):
    for _ in range(12):  # more than a sheet of ten
        add_violation(add_parcel())
    ids = [n["id"] for n in post(client, auth, "superintendent", "/notices/draft").get_json()]
    for notice_id in ids:
        post(client, auth, "superintendent", f"/notices/{notice_id}/approve")
    batch = post(client, auth, "clerk", "/mailings", {"notice_ids": ids}).get_json()
    r = client.get(f"/api/v1/mailings/{batch['id']}/labels.pdf", headers=auth["clerk"])
    assert r.status_code == 200 and r.mimetype == "application/pdf"
    pages = PdfReader(io.BytesIO(r.data)).pages
    text = " ".join(p.extract_text() for p in pages)
    assert len(pages) == 2
    for number in batch["article_numbers"]:
        assert human_readable(number) in text
    assert text.count("USPS CERTIFIED MAIL") == 12


def test_the_label_barcode_encodes_routing_zip_and_article_number():
    # The value handed to Code 128 is GS1-128: FNC1, AI 420 + ZIP, FNC1, the number.
    value = gs1_128_value("9207190235890900000112", "546121123")
    assert value == "\xf1420546121123\xf19207190235890900000112"
    code = Code128(value)
    code.validate()
    code.encode()
    # Start C (105), FNC1 (102), then 42 05 46 12 11 23 in code set C: "420" + the ZIP9.
    assert code.encoded[:8] == [105, 102, 42, 5, 46, 12, 11, 23]
    assert code.encoded.count(102) == 2  # the second FNC1 ends the ZIP


def test_labels_of_an_unknown_batch_are_404(client, auth, violation):
    assert client.get("/api/v1/mailings/999/labels.pdf", headers=auth["clerk"]).status_code == 404
    assert draft_one(client, auth)  # the fixture's notice is untouched


# ---- or the post office's PS 3800 stickers, their numbers recorded against the letters

STICKER = "9400 1112 0108 0805 4830 16"  # a valid 22-digit number (legal-and-standards.md)


def _two_approved(client, auth) -> list[int]:
    for _ in range(2):
        add_violation(add_parcel())
    ids = [n["id"] for n in post(client, auth, "superintendent", "/notices/draft").get_json()]
    for notice_id in ids:
        post(client, auth, "superintendent", f"/notices/{notice_id}/approve")
    return ids


def test_sticker_numbers_go_on_the_letters_the_book_and_the_audit(client, auth):
    from server.core.audit.models import AuditEvent
    from server.core.extensions import db

    ids = _two_approved(client, auth)
    scanned = "420546121123\x1d" + "92071902358909000011275538"  # a wedge reader's GS1-128 digits
    r = post(client, auth, "clerk", "/mailings", {"notice_ids": ids, "stickers": [
        {"notice_id": ids[0], "article_number": STICKER}, {"notice_id": ids[1], "article_number": scanned}]})
    assert r.status_code == 201, r.get_json()
    assert r.get_json()["article_numbers"] == ["9400111201080805483016", "92071902358909000011275538"]
    book = client.get(f"/api/v1/mailings/{r.get_json()['id']}/mailing-book.pdf", headers=auth["clerk"])
    text = " ".join(p.extract_text() for p in PdfReader(io.BytesIO(book.data)).pages)
    assert human_readable("9400111201080805483016") in text
    audit = db.session.query(AuditEvent).filter_by(action="print", subject_type="mailing_batch").one()
    assert audit.after["article_numbers_from"] == "ps3800_stickers"


@pytest.mark.parametrize(("second", "problem"), [
    (None, "no sticker number"),
    ("9400 1112 0108 0805 4830 17", "not a valid USPS tracking number"),  # check digit off by one
    (STICKER, "given for two letters"),
])
def test_a_bad_or_missing_sticker_number_mails_nothing(client, auth, second, problem):
    from server.core.extensions import db
    from server.notices.models import MailingBatch

    ids = _two_approved(client, auth)
    stickers = [{"notice_id": ids[0], "article_number": STICKER}]
    if second is not None:
        stickers.append({"notice_id": ids[1], "article_number": second})
    r = post(client, auth, "clerk", "/mailings", {"notice_ids": ids, "stickers": stickers})
    assert r.status_code == 422
    assert problem in str(r.get_json()["error"]["details"]["fields"]["stickers"])
    assert db.session.query(MailingBatch).count() == 0
