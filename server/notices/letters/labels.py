"""Article-number labels for self-issued IMpb numbers, to stick on the envelopes.

A clerk who mails with the utility's own IMpb numbers (``[mail]`` Mailer ID and serial
range) needs the number on the envelope to be the one in the letter, the firm mailing
book and the audit trail. One label per piece, in mailing-book order, on a sheet of
4 × 2 in labels (two across, five down, 0.5 in top margin, the common 10-up sheet):
"USPS CERTIFIED MAIL", the GS1-128 barcode (AI 420 + ZIP, then the article number), the
number in groups of four, and the addressee's first line, so the label goes on the right
envelope. This is not the USPS PS Form 3800 itself; the post office's postmark on the
firm mailing book is the receipt.
"""

from __future__ import annotations

import io
from collections.abc import Sequence

from reportlab.graphics.barcode.code128 import Code128
from reportlab.lib.pagesizes import LETTER
from reportlab.lib.units import inch
from reportlab.pdfgen.canvas import Canvas

from server.notices.article_numbers import human_readable
from server.notices.letters.documents import MailPiece
from server.notices.letters.notice import BOLD, FONT, gs1_128_value

ACROSS, DOWN = 2, 5
WIDTH, HEIGHT = 4 * inch, 2 * inch
LEFT, TOP = 0.156 * inch, 0.5 * inch  # the sheet's margins
PAD = 0.15 * inch


def _label(c: Canvas, piece: MailPiece, x: float, y: float) -> None:
    """One label with its lower-left corner at (x, y)."""
    top = y + HEIGHT - PAD
    c.setFont(BOLD, 8)
    c.drawString(x + PAD, top - 8, "USPS CERTIFIED MAIL")
    bc = Code128(gs1_128_value(piece.article_number, piece.addressee.zip_digits), barWidth=0.012 * inch,
                 barHeight=0.6 * inch, humanReadable=False, quiet=0)
    bc.drawOn(c, x + PAD, top - 14 - 0.6 * inch)
    c.setFont(FONT, 9)
    c.drawString(x + PAD, top - 26 - 0.6 * inch, human_readable(piece.article_number))
    c.setFont(FONT, 7.5)
    c.drawString(x + PAD, top - 38 - 0.6 * inch, f"To: {piece.addressee.names[0]}"[:70])


def render_labels(pieces: Sequence[MailPiece]) -> bytes:
    """The labels of a batch as PDF bytes, ten to a sheet."""
    buf = io.BytesIO()
    c = Canvas(buf, pagesize=LETTER, invariant=1)
    c.setTitle("Certified Mail article labels")
    c.setCreator("Lateral")
    page_height = LETTER[1]
    for i, piece in enumerate(pieces):
        slot = i % (ACROSS * DOWN)
        if i and slot == 0:
            c.showPage()
        col, row = slot % ACROSS, slot // ACROSS
        _label(c, piece, LEFT + col * (WIDTH + 0.188 * inch), page_height - TOP - (row + 1) * HEIGHT)
    if not pieces:
        c.drawString(LEFT, page_height - TOP, "No pieces.")
    c.showPage()
    c.save()
    return buf.getvalue()
