"""Notice letters: content, window-envelope geometry, barcode, bold deadline."""

from __future__ import annotations

import io
from dataclasses import replace

import pdfplumber
import pytest
from pypdf import PdfReader
from reportlab.graphics.barcode.code128 import Code128

from gis.rulebook import load_rulebook
from server.notices.article_numbers import human_readable
from server.notices.kinds import notice_kind
from server.notices.letters.documents import NOTICE_KINDS, Finding
from server.notices.letters.notice import gs1_128_value, long_date, render_letter, render_letters, write_letters
from server.notices.letters.samples import sample_letter, sample_photos

ARCADIA = load_rulebook("arcadia")  # the test apps' rulebook; pure code is always told which

IN = 72.0
# #10 window envelope, measured independently of server/notices/letters/layout.py:
# window 4.5 x 1.125 in, 0.875 in from the left, 0.5 in from the bottom; the
# tri-folded sheet's top panel is 11/3 in tall and rests on the envelope bottom.
WINDOW_TOP = (11 / 3 - 0.5 - 1.125) * IN  # 2.042 in below the page top
WINDOW_BOTTOM = (11 / 3 - 0.5) * IN  # 3.167 in
WINDOW_X0, WINDOW_X1 = 0.875 * IN, (0.875 + 4.5) * IN


@pytest.fixture(scope="module")
def photos(tmp_path_factory):
    return tuple(sample_photos(tmp_path_factory.mktemp("photos"), 2))


@pytest.fixture(scope="module")
def letter(photos):
    return sample_letter(0, "CW-DISCONNECT-60", photos, rulebook=ARCADIA)


@pytest.fixture(scope="module")
def letter_page(letter):
    with pdfplumber.open(io.BytesIO(render_letter(letter, ARCADIA))) as pdf:
        yield pdf.pages[0]


def _text(pdf_bytes: bytes) -> str:
    """All text, with line breaks and runs of spaces collapsed to one space."""
    pages = PdfReader(io.BytesIO(pdf_bytes)).pages
    return " ".join(" ".join(p.extract_text() for p in pages).split())


@pytest.mark.parametrize("kind", NOTICE_KINDS)
def test_letter_names_owner_parcel_section_deadline_and_article(kind, photos):
    letter = sample_letter(3, kind, photos, rulebook=ARCADIA)
    text = _text(render_letter(letter, ARCADIA))
    assert letter.addressee.names[0] in text
    assert letter.parcel_number in text
    assert letter.deadline.section in text
    assert long_date(letter.deadline.date) in text
    assert human_readable(letter.article_number) in text
    assert ("§ 315-21H" in text) == notice_kind(kind).appeal  # appeal right (not Art. I's)


def test_disconnect_letter_has_its_deadline_and_forfeiture(letter):
    text = _text(render_letter(letter, ARCADIA))
    # Mailed Mon 2026-09-21, served Thu 2026-09-24; + 60 days = Mon 2026-11-23.
    assert "no later than Monday, November 23, 2026" in text
    assert "not less than $50 nor more than $500" in text
    assert "not less than $500, each day a separate offense" in text
    assert "(608) 555-0147" in text


def test_article_i_letter_quotes_art_i_forfeiture(photos):
    text = _text(render_letter(sample_letter(1, "CW-REMOVE-150", photos, rulebook=ARCADIA), ARCADIA))
    assert "not less than $25 nor more than $300" in text
    assert "each day of violation is a separate offense" in text


def test_address_block_sits_in_the_envelope_window(letter, letter_page):
    for line in letter.addressee.lines():
        hit = min(letter_page.search(line, regex=False), key=lambda h: h["top"])  # not the body's
        assert WINDOW_TOP + 9 <= hit["top"] and hit["bottom"] <= WINDOW_BOTTOM - 9, line
        assert WINDOW_X0 + 9 <= hit["x0"] and hit["x1"] <= WINDOW_X1 - 9, line


def test_address_block_starts_where_window_letters_put_it(letter, letter_page):
    first = min(letter_page.search(letter.addressee.names[0], regex=False), key=lambda h: h["top"])
    assert 2.0 * IN <= first["top"] <= 2.5 * IN
    assert 0.875 * IN <= first["x0"] <= 1.0 * IN + 0.5


def test_nothing_else_shows_through_the_window(letter, letter_page):
    window_words = [
        w["text"] for w in letter_page.extract_words()
        if w["top"] < WINDOW_BOTTOM and w["bottom"] > WINDOW_TOP
        and w["x0"] < WINDOW_X1 and w["x1"] > WINDOW_X0
    ]
    assert " ".join(window_words) == " ".join(" ".join(letter.addressee.lines()).split())


def test_barcode_bars_stay_right_of_the_window(letter_page):
    bars = [r for r in letter_page.rects if WINDOW_TOP - 20 < r["top"] < WINDOW_BOTTOM]
    assert len(bars) > 40
    # The sheet can only slide right in the envelope, which moves the window left on
    # the page: right of 5.375 in is never behind the window.
    assert min(r["x0"] for r in bars) > WINDOW_X1


def test_gs1_128_starts_with_code_c_and_fnc1():
    bc = Code128(gs1_128_value("9207190235890900000018", "546121328"))
    bc.validate()
    codes = bc.encode()
    assert codes[:2] == [105, 102]  # Start C, FNC1 = GS1-128
    assert codes[1:].count(102) == 2  # second FNC1 after the variable-length ZIP
    assert codes[2:4] == [42, 5]  # "42" "05..." : AI 420 then the ZIP, in pairs


def test_deadline_is_bold(letter, letter_page):
    words = letter_page.extract_words(extra_attrs=["fontname"])
    november = [w for w in words if w["text"] == "November" and "23," in
                [v["text"] for v in words if abs(v["top"] - w["top"]) < 1]]
    assert november and all("Bold" in w["fontname"] for w in november)


def test_deadline_explanation_is_printed(letter):
    text = _text(render_letter(letter, ARCADIA))
    assert "day of service not counted" in text
    assert "+ 60 days = Mon 2026-11-23" in text


def test_map_and_photos_are_drawn(letter_page):
    assert len(letter_page.images) == 2  # two photo thumbnails
    assert any(abs(r["width"] - 2.0 * IN) < 1 for r in letter_page.rects)  # the map frame


def test_long_letter_continues_on_a_second_page(photos):
    letter = sample_letter(0, "GENERAL-VIOLATION", photos, rulebook=ARCADIA)
    many = tuple(Finding(f"Finding number {i} with a long description of what was seen", "§ 315-12D")
                 for i in range(40))
    pdf = render_letter(replace(letter, findings=many), ARCADIA)
    reader = PdfReader(io.BytesIO(pdf))
    assert len(reader.pages) == 2
    assert "continued" in reader.pages[1].extract_text()


def test_many_letters_in_one_pdf(photos):
    letters = [sample_letter(i, photos=photos, rulebook=ARCADIA) for i in range(12)]
    reader = PdfReader(io.BytesIO(render_letters(letters, ARCADIA)))
    firsts = [p.extract_text() for p in reader.pages if "page 1 of" in p.extract_text()]
    assert len(firsts) == 12  # each letter starts on a page of its own
    assert letters[7].parcel_number in firsts[7]


def test_write_letters_one_file_each_over_two_processes(photos, tmp_path):
    letters = [sample_letter(i, photos=photos, rulebook=ARCADIA) for i in range(6)]
    paths = write_letters(letters, tmp_path, ARCADIA, processes=2)
    assert [p.exists() for p in paths] == [True] * 6
    assert letters[5].article_number in paths[5].name


def test_photos_are_shrunk_into_the_folder_the_letter_is_given(photos, tmp_path):
    render_letter(sample_letter(4, photos=photos, rulebook=ARCADIA), ARCADIA, thumb_dir=tmp_path / "thumbs")
    assert len(list((tmp_path / "thumbs").glob("*.jpg"))) == len(photos)


def test_unknown_kind_is_rejected(letter):
    with pytest.raises(ValueError, match="unknown notice kind"):
        replace(letter, kind="NOPE")
