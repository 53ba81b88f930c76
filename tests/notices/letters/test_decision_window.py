"""A decision letter is certified mail in a #10 window envelope, as a notice letter is
(issue 29, "Decisions stand"): the owner's address shows in the window, nothing else does,
and the article number's barcode stays right of it. Pure: no database."""

from __future__ import annotations

import io
from datetime import date

import pdfplumber
import pytest

from gis.rulebook import load_rulebook
from server.notices.article_numbers import human_readable
from server.notices.letters.decision import DecisionLetter, render_decision_letter
from server.notices.letters.samples import sample_letter

ARCADIA = load_rulebook("arcadia")
IN = 72.0
# #10 window envelope, measured independently of server/notices/letters/layout.py (as
# tests/notices/letters/test_letters.py): window 4.5 x 1.125 in, 0.875 in from the left,
# 0.5 in from the bottom; the tri-folded sheet's top panel is 11/3 in tall.
WINDOW_TOP = (11 / 3 - 0.5 - 1.125) * IN
WINDOW_BOTTOM = (11 / 3 - 0.5) * IN
WINDOW_X0, WINDOW_X1 = 0.875 * IN, (0.875 + 4.5) * IN


@pytest.fixture(scope="module", params=["commission", "council"])
def decision(request):
    notice = sample_letter(0, "CW-DISCONNECT-60", (), rulebook=ARCADIA)
    return DecisionLetter(
        municipality=notice.municipality, addressee=notice.addressee, parcel_number=notice.parcel_number,
        site_address=notice.site_address, notice_id=7, notice_mailed_on=date(2026, 9, 21), level=request.param,
        decision="upheld", meeting_on=date(2026, 10, 13), appeal_filed_on=date(2026, 9, 28), terms="",
        mailed_on=date(2026, 10, 14), article_number=notice.article_number, deadline=date(2026, 12, 18),
        deadline_steps=("counted from the decision letter",), signed_by="Pat Lund, President",
        notice_article_number=notice.article_number)


@pytest.fixture(scope="module")
def decision_page(decision):
    with pdfplumber.open(io.BytesIO(render_decision_letter(decision))) as pdf:
        yield pdf.pages[0]


def test_the_decision_letter_s_address_sits_in_the_envelope_window(decision, decision_page):
    for line in decision.addressee.lines():
        hit = min(decision_page.search(line, regex=False), key=lambda h: h["top"])
        assert WINDOW_TOP + 9 <= hit["top"] and hit["bottom"] <= WINDOW_BOTTOM - 9, line
        assert WINDOW_X0 + 9 <= hit["x0"] and hit["x1"] <= WINDOW_X1 - 9, line


def test_nothing_else_of_the_decision_letter_shows_through_the_window(decision, decision_page):
    window_words = [w["text"] for w in decision_page.extract_words()
                    if w["top"] < WINDOW_BOTTOM and w["bottom"] > WINDOW_TOP
                    and w["x0"] < WINDOW_X1 and w["x1"] > WINDOW_X0]
    assert " ".join(window_words) == " ".join(" ".join(decision.addressee.lines()).split())


def test_the_decision_letter_prints_its_article_number_and_barcode_right_of_the_window(decision, decision_page):
    number = min(decision_page.search(human_readable(decision.article_number), regex=False), key=lambda h: h["top"])
    assert number["x0"] >= WINDOW_X1 - 0.5 * IN  # the sheet slides at most 1 in right in the envelope
    bars = [r for r in decision_page.rects if r["height"] > 0.3 * IN and r["top"] < WINDOW_BOTTOM]
    assert bars and min(r["x0"] for r in bars) >= WINDOW_X1 - 0.5 * IN
    text = decision_page.extract_text()
    assert "CERTIFIED MAIL" in text and "Return receipt requested" in text
    assert ("Common Council" in text.split("\n")[0]) == (decision.level == "council")
