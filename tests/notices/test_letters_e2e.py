"""From the database to the post office: letters, mailing book, return receipts, audit."""

from __future__ import annotations

import hashlib
import io
from datetime import date

import pdfplumber
import pytest
from pypdf import PdfReader
from sqlalchemy import select

from server.core.audit.models import AuditEvent
from server.core.extensions import db
from server.notices.article_numbers import human_readable, is_valid
from server.notices.letters.notice import long_date
from server.notices.models import Notice
from tests.support.notices import ADDRESS, OWNER, add_parcel, add_violation, draft_one, mail, post, walk

IN = 72.0
WINDOW_TOP, WINDOW_BOTTOM = (11 / 3 - 0.5 - 1.125) * IN, (11 / 3 - 0.5) * IN  # below the page top
WINDOW_X0, WINDOW_X1 = 0.875 * IN, (0.875 + 4.5) * IN


def _text(pdf: bytes) -> str:
    return " ".join(" ".join(p.extract_text() for p in PdfReader(io.BytesIO(pdf)).pages).split())


@pytest.fixture
def mailed(client, auth):
    """Two parcels' notices approved and mailed in one batch: (batch, notices, parcels)."""
    parcels = [add_parcel(), add_parcel()]
    for p in parcels:
        add_violation(p)
    r = post(client, auth, "superintendent", "/notices/draft")
    ids = [n["id"] for n in r.get_json()]
    for notice_id in ids:
        walk(client, auth, notice_id, "approved")
    r = mail(client, auth, ids)
    assert r.status_code == 200, r.get_json()
    notices = [client.get(f"/api/v1/notices/{i}", headers=auth["clerk"]).get_json() for i in ids]
    return r.get_json(), notices, parcels


def test_letter_from_the_database_names_owner_parcel_section_deadline_article(client, auth, mailed):
    _, notices, parcels = mailed
    notice = notices[0]
    r = client.get(f"/api/v1/notices/{notice['id']}/letter.pdf", headers=auth["clerk"])
    assert r.status_code == 200 and r.mimetype == "application/pdf"
    text = _text(r.data)
    assert OWNER in text
    assert parcels[0].parcel_number in text
    assert "§ 315-13D" in text
    assert long_date(date.fromisoformat(notice["deadline_printed"])) in text
    assert human_readable(notice["article_number"]) in text
    assert "Sump pump discharges to the floor drain" in text


def test_the_address_block_sits_in_the_envelope_window(client, auth, mailed):
    _, notices, _ = mailed
    pdf = client.get(f"/api/v1/notices/{notices[0]['id']}/letter.pdf", headers=auth["clerk"]).data
    with pdfplumber.open(io.BytesIO(pdf)) as doc:
        words = doc.pages[0].extract_words()
    street = [w for w in words if w["text"] == "DETTLOFF"]
    assert street, "street line missing"
    for w in street:
        assert WINDOW_TOP < w["top"] and w["bottom"] < WINDOW_BOTTOM
        assert WINDOW_X0 < w["x0"] and w["x1"] < WINDOW_X1
    in_window = {w["text"] for w in words
                 if w["top"] < WINDOW_BOTTOM and w["bottom"] > WINDOW_TOP and w["x0"] < WINDOW_X1}
    expected = set(" ".join([OWNER, ADDRESS["mailing_street"], ADDRESS["mailing_city"], ADDRESS["mailing_state"],
                             ADDRESS["mailing_zip"]]).split())
    assert in_window == expected


def test_article_numbers_are_valid_distinct_and_from_the_configured_mailer(mailed):
    batch, notices, _ = mailed
    numbers = [n["article_number"] for n in notices]
    assert numbers == batch["article_numbers"] and len(set(numbers)) == 2
    assert all(is_valid(n) and len(n) == 22 and n[5:14] == "902358909" for n in numbers)
    assert int(numbers[1][14:21]) == int(numbers[0][14:21]) + 1


def test_the_letters_sha256_is_in_the_audit_trail_and_matches_the_pdf(client, auth, mailed):
    _, notices, _ = mailed
    for notice in notices:
        pdf = client.get(f"/api/v1/notices/{notice['id']}/letter.pdf", headers=auth["clerk"]).data
        digest = hashlib.sha256(pdf).hexdigest()
        assert notice["letter_sha256"] == digest
        event = db.session.scalar(select(AuditEvent).where(
            AuditEvent.subject_type == "notice", AuditEvent.subject_id == notice["id"], AuditEvent.action == "mail"))
        assert event.after["letter_sha256"] == digest and event.after["article_number"] == notice["article_number"]


def test_a_mailed_letter_cannot_be_changed(mailed):
    _, notices, _ = mailed
    notice = db.session.get(Notice, notices[0]["id"])
    with pytest.raises(ValueError, match="cannot change"):
        notice.letter_pdf = b"%PDF-forged"
    with pytest.raises(ValueError, match="cannot change"):
        notice.letter_sha256 = "0" * 64
    with pytest.raises(ValueError, match="cannot change"):
        notice.article_number = "9207190235890900000018"


def test_letter_is_served_the_same_every_time(client, auth, mailed):
    _, notices, _ = mailed
    path = f"/api/v1/notices/{notices[0]['id']}/letter.pdf"
    first = client.get(path, headers=auth["clerk"])
    assert first.data == client.get(path, headers=auth["inspector"]).data
    assert first.headers["ETag"] == f'"{notices[0]["letter_sha256"]}"'


def test_batch_letters_and_mailing_book(client, auth, mailed):
    batch, notices, parcels = mailed
    letters = client.get(f"/api/v1/mailings/{batch['id']}/letters.pdf", headers=auth["clerk"])
    assert hashlib.sha256(letters.data).hexdigest() == batch["letters_sha256"]
    text = _text(letters.data)
    assert all(p.parcel_number in text for p in parcels)
    book = client.get(f"/api/v1/mailings/{batch['id']}/mailing-book.pdf", headers=auth["clerk"])
    assert hashlib.sha256(book.data).hexdigest() == batch["mailing_book_sha256"]
    book_text = _text(book.data)
    assert "Firm Mailing Book" in book_text and "Total number of pieces listed by sender: 2" in book_text
    assert all(human_readable(n["article_number"]) in book_text for n in notices)
    event = db.session.scalar(select(AuditEvent).where(AuditEvent.subject_type == "mailing_batch",
                                                       AuditEvent.subject_id == batch["id"]))
    assert event.after["mailing_book_sha256"] == batch["mailing_book_sha256"]


def test_return_receipt_rows(client, auth, mailed):
    batch, notices, _ = mailed
    rows = client.get(f"/api/v1/mailings/{batch['id']}/return-receipts", headers=auth["clerk"]).get_json()
    assert [r["notice_id"] for r in rows] == [n["id"] for n in notices]
    assert rows[0]["article_number"] == human_readable(notices[0]["article_number"])
    assert rows[0]["article_addressed_to"] == [OWNER, ADDRESS["mailing_street"], "ARCADIA WI 54612-1123"]
    assert rows[0]["service_type"].startswith("Certified Mail")


def test_an_unmailed_notice_has_no_letter(client, auth, violation):
    notice = draft_one(client, auth)
    r = client.get(f"/api/v1/notices/{notice['id']}/letter.pdf", headers=auth["clerk"])
    assert r.status_code == 404 and r.get_json()["error"]["code"] == "not_mailed"


def test_a_batch_with_one_unapproved_notice_mails_nothing(client, auth):
    for _ in range(2):
        add_violation(add_parcel())
    ids = [n["id"] for n in post(client, auth, "superintendent", "/notices/draft").get_json()]
    walk(client, auth, ids[0], "approved")
    r = post(client, auth, "clerk", "/mailings", {"notice_ids": ids})
    assert r.status_code == 409 and r.get_json()["error"]["details"]["state"] == "draft"
    assert client.get(f"/api/v1/notices/{ids[0]}", headers=auth["clerk"]).get_json()["state"] == "approved"
    assert db.session.scalar(select(Notice.article_number).where(Notice.id == ids[0])) is None


def _inspected_with_photos(app, parcel, violation, tmp_path) -> None:
    """A failed inspection of ``parcel`` citing ``violation``, with two photos in the blob store."""
    import uuid
    from datetime import UTC, datetime

    from geoalchemy2.shape import from_shape
    from shapely.geometry import Point

    from server.core.accounts.models import User
    from server.core.storage import sha256_of
    from server.field.models import Inspection, InspectionPhoto
    from server.notices.letters.samples import sample_photos

    store = app.extensions["lateral_blobs"]
    photos = sample_photos(tmp_path, 2)
    inspector = db.session.scalar(select(User).where(User.role == "inspector"))
    now = datetime.now(UTC)
    inspection = Inspection(uuid=str(uuid.uuid4()), template_id="clear-water-survey", template_version=1,
                            parcel_id=parcel.id, inspector_id=inspector.id,
                            geom=from_shape(Point(-91.5, 44.25), srid=4326), started_at=now, finished_at=now,
                            answers={}, result="fail", failures=[], violation_ids=[violation.id], finding_ids=[],
                            content_hash="1" * 64)
    db.session.add(inspection)
    db.session.flush()
    for i, path in enumerate(photos):
        store.put_file(path, sha256_of(path))
        db.session.add(InspectionPhoto(inspection_id=inspection.id, sha256=sha256_of(path), item_id=f"p{i}"))
    db.session.commit()


def test_the_inspectors_photos_are_printed_as_thumbnails(app, client, auth, parcel, violation, tmp_path):
    _inspected_with_photos(app, parcel, violation, tmp_path)
    notice = walk(client, auth, draft_one(client, auth)["id"], "mailed")
    pdf = client.get(f"/api/v1/notices/{notice['id']}/letter.pdf", headers=auth["clerk"]).data
    with pdfplumber.open(io.BytesIO(pdf)) as doc:
        images = [im for page in doc.pages for im in page.images]
        text = " ".join(page.extract_text() for page in doc.pages)
    assert len(images) == 2
    assert all(max(im["srcsize"]) <= 320 for im in images)  # thumbnails, not the 1200 px originals
    assert "Photo 1" in text and "Photo 2" in text and "Parcel in red" in text


@pytest.mark.parametrize("column", ["letter_sha256", "article_number", "mailed_on"])
def test_the_database_refuses_to_change_a_mailed_letter(mailed, column):
    import sqlalchemy as sa

    _, notices, _ = mailed
    value = {"letter_sha256": "0" * 64, "article_number": "9207190235890900000018", "mailed_on": date(2020, 1, 1)}
    with pytest.raises(sa.exc.DBAPIError, match="written once"), db.session.begin_nested():
        db.session.execute(sa.text(f"UPDATE notices SET {column} = :v WHERE id = :id"),
                           {"v": value[column], "id": notices[0]["id"]})


def test_the_database_lets_a_mailed_notice_move_on(client, auth, mailed):
    _, notices, _ = mailed
    r = post(client, auth, "clerk", f"/notices/{notices[0]['id']}/deliver")
    assert r.status_code == 200 and r.get_json()["letter_sha256"] == notices[0]["letter_sha256"]


@pytest.mark.parametrize(("rule_id", "section", "kind"), [
    ("CW-REMOVE-150", "Art. I (Ord. 112A, 1976)", "CW-REMOVE-150"),
    ("HOOKUP-365", "§ 315-11D", "HOOKUP-365"),
    ("SURVEY-ACCESS", "§ 315-12F", "SURVEY-ACCESS"),
    ("BACKFLOW-VALVE", "§ 315-12D", "GENERAL-VIOLATION"),
])
def test_every_kind_mails_a_letter_with_its_title_section_and_deadline(client, auth, rule_id, section, kind):
    from server.notices.kinds import KINDS

    add_violation(add_parcel(), rule_id, section, f"Finding for {rule_id}")
    notice = walk(client, auth, draft_one(client, auth)["id"], "mailed")
    assert notice["kind"] == kind
    text = _text(client.get(f"/api/v1/notices/{notice['id']}/letter.pdf", headers=auth["clerk"]).data)
    assert KINDS[kind].title.upper() in text
    assert f"Finding for {rule_id} ({section})" in text
    assert long_date(date.fromisoformat(notice["deadline_printed"])) in text


def test_the_photos_are_shrunk_in_the_thumbnail_folder_the_settings_name(app, client, auth, parcel, violation,
                                                                         tmp_path, monkeypatch):
    from dataclasses import replace

    from server.core import settings

    thumbs = tmp_path / "thumbs"
    monkeypatch.setitem(app.extensions, settings.EXTENSION, replace(settings.of(app), thumb_dir=thumbs))
    _inspected_with_photos(app, parcel, violation, tmp_path)
    walk(client, auth, draft_one(client, auth)["id"], "mailed")
    assert len(list(thumbs.glob("*.jpg"))) == 2
