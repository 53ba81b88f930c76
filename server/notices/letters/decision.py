"""The written decision on an appeal (§ 315-21H), mailed to the owner like a notice.

A plain one-page letter: who decided (the Utility Commission, or the Common Council),
at which meeting, what (upheld, modified, overturned), the terms, the new last day to
comply with how it was counted, and the further appeal still open. It is certified mail
in a #10 window envelope like a notice: the deciding body's letterhead, the owner's
address in the window and the article number with its barcode right of it, drawn by the
notice letter's own code (:func:`server.notices.letters.notice.draw_address_block`,
``draw_certified_barcode``; geometry in :mod:`server.notices.letters.layout`). Text from
the database goes into ReportLab ``Paragraph`` markup escaped, never as markup.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from datetime import date
from xml.sax.saxutils import escape

from reportlab.lib.pagesizes import LETTER
from reportlab.lib.styles import getSampleStyleSheet
from reportlab.lib.units import inch
from reportlab.platypus import BaseDocTemplate, Frame, NextPageTemplate, PageTemplate, Paragraph, Spacer

from server.notices.article_numbers import human_readable
from server.notices.calendar import fmt
from server.notices.letters import layout as L
from server.notices.letters.documents import Addressee, Municipality
from server.notices.letters.notice import BOLD, FONT, draw_address_block, draw_certified_barcode
from server.notices.letters.texts import notice_cited

BODIES = {"commission": "Utility Commission", "council": "Common Council"}
OUTCOMES = {
    "upheld": "upheld the notice. The violation it describes stands",
    "modified": "modified the notice. The terms below replace those of the notice",
    "overturned": "overturned the notice. The matter is closed and nothing further is required of you",
}


@dataclass(frozen=True)
class DecisionLetter:
    """What a decision letter says; plain values the server fills in.

    Attributes:
        level: ``commission`` or ``council``.
        decision: ``upheld``, ``modified`` or ``overturned``.
        meeting_on: the day of the meeting at which the body decided.
        appeal_filed_on: the day the written appeal was received.
        terms: the decision's words, as recorded.
        deadline: the new last day to comply (upheld or modified), else None.
        deadline_steps: how that day was counted.
        further_appeal: a sentence on the appeal still open (to the Council), or "".
        signed_by: the deciding body's officer who signs, "name, title".
        upheld_period: for an upheld notice, which time to comply applies and on
            whose choice (the Commission's resolution), or "".
        notice_article_number: the certified article number of the notice appealed
            (the letter cites the notice by its date and article, not by a record id).
        late_due_on: for an appeal received after its 10 days, the day it was due.
        heard: for a late appeal, whether the body heard it.
    """

    municipality: Municipality
    addressee: Addressee
    parcel_number: str
    site_address: str
    notice_id: int
    notice_mailed_on: date
    level: str
    decision: str
    meeting_on: date
    appeal_filed_on: date
    terms: str
    mailed_on: date
    article_number: str
    deadline: date | None = None
    deadline_steps: tuple[str, ...] = ()
    further_appeal: str = ""
    signed_by: str = ""
    upheld_period: str = ""
    notice_article_number: str = ""
    late_due_on: date | None = None
    heard: bool | None = None


def _p(text: str, style) -> Paragraph:
    return Paragraph(escape(text), style)


def _outcome(letter: DecisionLetter, body_name: str) -> str:
    """What the body did, and for a late appeal whether it heard it (§ 315-21H)."""
    meeting = f"At its meeting of {fmt(letter.meeting_on)} the {body_name}"
    if letter.late_due_on is None:
        return f"{meeting} {OUTCOMES[letter.decision]} (§ 315-21H)."
    late = (f"It was received after the 10 days for an appeal under § 315-21H, which ended "
            f"{fmt(letter.late_due_on)}. ")
    if letter.heard is False:
        return late + f"{meeting} did not hear the appeal for that reason. The notice stands as mailed."
    return late + f"{meeting} heard the appeal nonetheless and {OUTCOMES[letter.decision]} (§ 315-21H)."


def _letterhead(c, letter: DecisionLetter) -> None:
    """The deciding body's letterhead, "Certified Mail", the mailing day, and the owner's
    address in the envelope window with the article number beside it."""
    m = letter.municipality
    # The Commission's return address, or the Common Council of the municipality at the
    # same street address.
    head = (m.return_address if letter.level == "commission"
            else (f"Common Council, {m.name}", *m.return_address[1:]))
    c.saveState()
    c.setFillColorRGB(0.08, 0.22, 0.42)
    c.setFont(BOLD, 14)
    c.drawString(L.MARGIN_LEFT, L.from_top(0.72 * inch), head[0])
    c.setFillColorRGB(0, 0, 0)
    c.setFont(FONT, 8.5)
    c.drawString(L.MARGIN_LEFT, L.from_top(0.95 * inch), "  |  ".join(head[1:]))
    c.drawString(L.MARGIN_LEFT, L.from_top(1.10 * inch), f"Telephone {m.phone}")
    c.setStrokeColorRGB(0.08, 0.22, 0.42)
    c.setLineWidth(1.2)
    c.line(L.MARGIN_LEFT, L.from_top(1.38 * inch), L.PAGE_WIDTH - L.MARGIN_RIGHT, L.from_top(1.38 * inch))
    c.setFont(BOLD, 8.5)
    c.drawRightString(L.PAGE_WIDTH - L.MARGIN_RIGHT, L.from_top(0.72 * inch), "CERTIFIED MAIL")
    c.setFont(FONT, 8)
    c.drawRightString(L.PAGE_WIDTH - L.MARGIN_RIGHT, L.from_top(0.88 * inch), "Return receipt requested")
    c.setFont(FONT, 9)
    c.drawRightString(L.PAGE_WIDTH - L.MARGIN_RIGHT, L.from_top(1.10 * inch), f"Mailed {fmt(letter.mailed_on)}")
    c.restoreState()
    draw_address_block(c, letter.addressee)
    draw_certified_barcode(c, letter.article_number, letter.addressee)


def _continued(c, letter: DecisionLetter) -> None:
    c.saveState()
    c.setFont(FONT, 7)
    c.drawString(L.MARGIN_LEFT, L.MARGIN_BOTTOM - 14,
                 f"{'; '.join(letter.addressee.names)}  |  parcel {letter.parcel_number}  |  "
                 f"article {human_readable(letter.article_number)}  |  page {c.getPageNumber()}")
    c.restoreState()


def render_decision_letter(letter: DecisionLetter) -> bytes:
    """The letter as PDF bytes (deterministic for the same input)."""
    styles = getSampleStyleSheet()
    body, small, bold = styles["BodyText"], styles["Italic"], styles["Heading4"]
    m = letter.municipality
    body_name = BODIES[letter.level] if letter.level != "commission" else m.commission
    story = [NextPageTemplate("later"),
             _p(f"Decision on your appeal of {notice_cited(letter.notice_mailed_on, letter.notice_article_number)}, "
                f"parcel {letter.parcel_number}, {letter.site_address}", bold),
             _p(f"Your written appeal was received on {fmt(letter.appeal_filed_on)}. " + _outcome(letter, body_name),
                body)]
    if letter.terms:
        story.append(_p(f"Terms of the decision: {letter.terms}", body))
    if letter.upheld_period:
        story.append(_p(letter.upheld_period, body))
    if letter.deadline is not None:
        story += [Spacer(1, 0.1 * inch),
                  _p(f"You must comply on or before {fmt(letter.deadline)}.", bold),
                  _p("How this day was counted: " + "; ".join(letter.deadline_steps) + ".", small)]
    if letter.further_appeal:
        story.append(_p(letter.further_appeal, body))
    story += [Spacer(1, 0.2 * inch), _p(f"Questions: {m.phone}", body), Spacer(1, 0.4 * inch),
              _p("_" * 40, body), _p(letter.signed_by, body), _p(f"for the {body_name}", body)]
    buf = io.BytesIO()
    doc = BaseDocTemplate(buf, pagesize=LETTER, title=f"Decision on appeal, notice {letter.notice_id}",
                          author=m.name, creator="Lateral", invariant=1)
    # The first page's text starts below the window band, as a notice letter's body does.
    first = Frame(L.MARGIN_LEFT, L.MARGIN_BOTTOM, L.TEXT_WIDTH,
                  L.from_top(L.BODY_TOP_FROM_PAGE_TOP) - L.MARGIN_BOTTOM, id="first")
    later = Frame(L.MARGIN_LEFT, L.MARGIN_BOTTOM, L.TEXT_WIDTH, L.from_top(0.9 * inch) - L.MARGIN_BOTTOM, id="later")
    doc.addPageTemplates([
        PageTemplate("first", [first], onPage=lambda c, _doc: _first_page(c, letter)),
        PageTemplate("later", [later], onPage=lambda c, _doc: _continued(c, letter)),
    ])
    doc.build(story)
    return buf.getvalue()


def _first_page(c, letter) -> None:
    """The first page's letterhead and its "continued" line."""
    _letterhead(c, letter)
    _continued(c, letter)
