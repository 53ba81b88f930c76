"""Firm mailing book (PS Form 3877 layout) and PS Form 3811 rows."""

from __future__ import annotations

import io
from datetime import date
from decimal import Decimal

import pytest
from pypdf import PdfReader

from gis.rulebook import load_rulebook
from server.notices.article_numbers import human_readable
from server.notices.letters.documents import MailPiece, Municipality
from server.notices.letters.mailing_book import render_mailing_book, return_receipt_rows, totals
from server.notices.letters.samples import sample_letter

ARCADIA = load_rulebook("arcadia")  # the test apps' rulebook; pure code is always told which

MAILED = date(2026, 9, 21)


@pytest.fixture(scope="module")
def pieces():
    mail = ARCADIA.section("mail")
    return [MailPiece.for_letter(sample_letter(i, rulebook=ARCADIA), mail) for i in range(13)]


@pytest.fixture(scope="module")
def pages(pieces):
    pdf = render_mailing_book(pieces, Municipality.from_rulebook(ARCADIA), MAILED)
    return [p.extract_text() for p in PdfReader(io.BytesIO(pdf)).pages]


def test_fees_come_from_the_rulebook(pieces):
    # [mail]: postage 0.78 + certified 5.30 + return receipt 4.40 = 10.48 a piece.
    assert pieces[0].total == Decimal("10.48")


def test_totals(pieces):
    t = totals(pieces)
    # 13 x 0.78 = 10.14; 13 x 5.30 = 68.90; 13 x 4.40 = 57.20; sum 136.24.
    assert (t.pieces, t.postage, t.certified_fees, t.return_receipt_fees, t.total) == (
        13, Decimal("10.14"), Decimal("68.90"), Decimal("57.20"), Decimal("136.24"))


def test_ten_lines_a_sheet(pages):
    assert len(pages) == 2
    assert "Total number of pieces listed by sender: 10" in pages[0]
    assert "Total number of pieces listed by sender: 3" in pages[1]


def test_sheet_and_batch_totals_printed(pages):
    assert "104.80" in pages[0]  # 10 x 10.48
    assert "$31.44" in pages[1]  # 3 x 10.48
    assert "13 pieces, total postage and fees $136.24" in pages[1]


def test_sender_on_every_sheet(pages):
    assert all("Arcadia Utility Commission" in p and "203 W Main St" in p for p in pages)


def test_signature_space_on_every_sheet(pages):
    assert all("name of receiving employee" in p for p in pages)


def test_lines_numbered_across_sheets_with_article_and_addressee(pages, pieces):
    assert human_readable(pieces[12].article_number) in pages[1]
    assert "\n13\n" + human_readable(pieces[12].article_number) in pages[1]
    assert pieces[12].addressee.names[0] in pages[1]


def test_return_receipt_rows(pieces):
    rows = return_receipt_rows(pieces)
    assert len(rows) == 13
    assert rows[0].article_number == human_readable(pieces[0].article_number)
    assert rows[0].article_addressed_to[-1] == "ARCADIA WI 54612-1328"
    assert rows[0].service_type == "Certified Mail, Return Receipt"
