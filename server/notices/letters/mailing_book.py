"""Firm mailing book for accountable mail (PS Form 3877 layout) and return receipts.

PS Form 3877 is the sender's list of three or more accountable pieces that the post
office signs as the receipt for mailing: the sender's name and address on each
sheet; one numbered line per piece with article number, addressee and address,
postage and fees; the number of pieces at the bottom; a space for the receiving
employee's signature. USPS does not publish exact column headings, so the headings
here follow the form's content, not a facsimile.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from reportlab.lib.pagesizes import LETTER, landscape
from reportlab.lib.units import inch
from reportlab.pdfgen.canvas import Canvas

from server.notices.article_numbers import human_readable
from server.notices.letters.documents import MailPiece, Municipality, ServiceStepLine

LINES_PER_SHEET = 10
PAGE_W, PAGE_H = landscape(LETTER)
MARGIN = 0.5 * inch
ROW_H = 0.46 * inch
#: column title, x offset from the left margin (points), right-aligned money column?
COLUMNS = (
    ("Line", 0, False),
    ("Article number", 0.45 * inch, False),
    ("Name of addressee, street and post office address", 2.55 * inch, False),
    ("Postage", 6.90 * inch, True),
    ("Certified fee", 7.75 * inch, True),
    ("Return receipt", 8.60 * inch, True),
    ("Total", 9.45 * inch, True),
)
MONEY_COL_W = 0.8 * inch


@dataclass(frozen=True)
class Totals:
    pieces: int
    postage: Decimal
    certified_fees: Decimal
    return_receipt_fees: Decimal

    @property
    def total(self) -> Decimal:
        return self.postage + self.certified_fees + self.return_receipt_fees


def totals(pieces: Sequence[MailPiece]) -> Totals:
    """Number of pieces and the sums of postage and each fee."""
    zero = Decimal("0.00")
    return Totals(
        pieces=len(pieces),
        postage=sum((p.postage for p in pieces), zero),
        certified_fees=sum((p.certified_fee for p in pieces), zero),
        return_receipt_fees=sum((p.return_receipt_fee for p in pieces), zero),
    )


def sheets(pieces: Sequence[MailPiece], per_sheet: int = LINES_PER_SHEET) -> list[Sequence[MailPiece]]:
    """The pieces split into sheets of ``per_sheet`` lines."""
    return [pieces[i : i + per_sheet] for i in range(0, len(pieces), per_sheet)] or [[]]


def _header(c: Canvas, sender: Municipality, mailed: date, sheet: int, n_sheets: int) -> float:
    top = PAGE_H - MARGIN
    c.setFont("Helvetica-Bold", 12)
    c.drawString(MARGIN, top - 12, "Firm Mailing Book for Accountable Mail")
    c.setFont("Helvetica", 8)
    c.drawString(MARGIN, top - 24, "Prepared in the layout of PS Form 3877. Complete in ink or print.")
    c.drawRightString(PAGE_W - MARGIN, top - 12, f"Sheet {sheet} of {n_sheets}")
    c.drawRightString(PAGE_W - MARGIN, top - 24, f"Date of mailing: {mailed.isoformat()}")
    c.rect(MARGIN, top - 88, 3.6 * inch, 56)
    c.setFont("Helvetica", 7)
    c.drawString(MARGIN + 4, top - 40, "Name and address of sender")
    t = c.beginText(MARGIN + 4, top - 52)
    t.setFont("Helvetica", 9, 10.5)
    for line in sender.return_address:
        t.textLine(line)
    c.drawText(t)
    c.setFont("Helvetica", 8)
    x = MARGIN + 3.9 * inch
    c.drawString(x, top - 44, "Type of mail or service:  [X] Certified Mail   [X] Return Receipt (PS Form 3811)")
    c.drawString(x, top - 58, f"Sender telephone: {sender.phone}")
    return top - 100


def _row(c: Canvas, y: float, line_no: int, piece: MailPiece | None) -> None:
    c.setLineWidth(0.4)
    c.line(MARGIN, y - ROW_H, PAGE_W - MARGIN, y - ROW_H)
    if piece is None:
        return
    c.setFont("Helvetica", 9)
    c.drawString(MARGIN + 2, y - 12, str(line_no))
    c.setFont("Courier", 8.5)
    c.drawString(MARGIN + COLUMNS[1][1], y - 12, human_readable(piece.article_number))
    a = piece.addressee
    t = c.beginText(MARGIN + COLUMNS[2][1], y - 10)
    t.setFont("Helvetica", 7.5, 8.5)
    t.textLine("; ".join(a.names))
    t.textLine(", ".join(a.street_lines))
    t.textLine(a.last_line)
    c.drawText(t)
    c.setFont("Helvetica", 9)
    for (_, x, _money), value in zip(
        COLUMNS[3:], (piece.postage, piece.certified_fee, piece.return_receipt_fee, piece.total), strict=True
    ):
        c.drawRightString(MARGIN + x + MONEY_COL_W - 4, y - 12, f"{value:.2f}")


def _column_heads(c: Canvas, y: float) -> float:
    c.setFont("Helvetica-Bold", 7.5)
    for title, x, money in COLUMNS:
        if money:
            c.drawRightString(MARGIN + x + MONEY_COL_W - 4, y - 10, title)
        else:
            c.drawString(MARGIN + x + 2, y - 10, title)
    c.setLineWidth(0.8)
    c.line(MARGIN, y - 14, PAGE_W - MARGIN, y - 14)
    return y - 14


def _footer(c: Canvas, sheet_totals: Totals, batch: Totals | None, y: float) -> None:
    c.setFont("Helvetica-Bold", 9)
    c.drawString(MARGIN, y - 14, f"Total number of pieces listed by sender: {sheet_totals.pieces}")
    money = (sheet_totals.postage, sheet_totals.certified_fees, sheet_totals.return_receipt_fees,
             sheet_totals.total)
    for (_, x, _m), value in zip(COLUMNS[3:], money, strict=True):
        c.drawRightString(MARGIN + x + MONEY_COL_W - 4, y - 14, f"{value:.2f}")
    c.setFont("Helvetica", 8)
    c.drawString(MARGIN, y - 30, "Total postage and fees on this sheet: "
                 f"${sheet_totals.total:.2f}")
    if batch is not None:
        c.setFont("Helvetica-Bold", 8)
        c.drawString(MARGIN, y - 44, f"Whole mailing: {batch.pieces} pieces, total postage and fees "
                     f"${batch.total:.2f} (postage {batch.postage:.2f}, certified fees "
                     f"{batch.certified_fees:.2f}, return receipt fees {batch.return_receipt_fees:.2f})")
    base = MARGIN + 30
    c.setFont("Helvetica", 8)
    c.drawString(MARGIN, base + 10, "Total number of pieces received at post office: ________")
    c.drawString(MARGIN + 4.0 * inch, base + 10,
                 "Postmaster, per (name of receiving employee): ______________________________")
    c.drawString(MARGIN + 4.0 * inch, base - 8, "Signature: __________________________   Postmark")
    c.rect(PAGE_W - MARGIN - 1.1 * inch, base - 20, 1.1 * inch, 0.6 * inch)


#: the record of substitute service: title, what the sheet is, column titles and x offsets.
STEP_SECTIONS = {
    "first_class_mailing": (
        "First-Class Mail: second mailings of notices whose certified letter came back",
        "Type of mail or service:  [X] First-Class Mail   [ ] Certified Mail   [ ] Return Receipt. "
        "Not accountable mail: no article number, no return receipt.",
        (("Line", 0), ("Date mailed", 0.45 * inch), ("Name of addressee, street and post office address", 1.55 * inch),
         ("Service", 5.25 * inch), ("Notice; certified article that came back", 6.55 * inch)),
    ),
    "posting": (
        "Postings at the premises of notices whose certified letter came back",
        "Not mail: each notice was posted at the premises on the date shown.",
        (("Line", 0), ("Date posted", 0.45 * inch), ("Premises posted; owner of record", 1.55 * inch),
         ("Service", 5.25 * inch), ("Notice; certified article that came back", 6.55 * inch)),
    ),
}


def _step_sheet(c: Canvas, sender: Municipality, step: str, lines: Sequence[ServiceStepLine], first_no: int,
                sheet: int, n_sheets: int) -> None:
    title, what, columns = STEP_SECTIONS[step]
    top = PAGE_H - MARGIN
    c.setFont("Helvetica-Bold", 12)
    c.drawString(MARGIN, top - 12, title)
    c.setFont("Helvetica", 8)
    c.drawString(MARGIN, top - 24, what)
    c.drawRightString(PAGE_W - MARGIN, top - 12, f"Sheet {sheet} of {n_sheets}")
    c.drawString(MARGIN, top - 36, "Sender: " + "; ".join(sender.return_address))
    y = top - 50
    c.setFont("Helvetica-Bold", 7.5)
    for name, x in columns:
        c.drawString(MARGIN + x + 2, y - 10, name)
    c.setLineWidth(0.8)
    c.line(MARGIN, y - 14, PAGE_W - MARGIN, y - 14)
    y -= 14
    for n, line in enumerate(lines, first_no):
        c.setLineWidth(0.4)
        c.line(MARGIN, y - ROW_H, PAGE_W - MARGIN, y - ROW_H)
        c.setFont("Helvetica", 9)
        c.drawString(MARGIN + 2, y - 12, str(n))
        c.drawString(MARGIN + columns[1][1], y - 12, line.done_on.isoformat())
        a = line.addressee
        t = c.beginText(MARGIN + columns[2][1], y - 10)
        t.setFont("Helvetica", 7.5, 8.5)
        if step == "posting":
            t.textLine(line.site_address)
            t.textLine("; ".join(a.names))
        else:
            t.textLine("; ".join(a.names))
            t.textLine(", ".join(a.street_lines))
            t.textLine(a.last_line)
        c.drawText(t)
        c.setFont("Helvetica", 8)
        c.drawString(MARGIN + columns[3][1], y - 12, "First-Class Mail" if step == "first_class_mailing"
                     else "Posted at premises")
        t = c.beginText(MARGIN + columns[4][1], y - 10)
        t.setFont("Helvetica", 7.5, 8.5)
        t.textLine(f"Notice {line.notice_id}")
        t.textLine(f"Certified {human_readable(line.article_number)}")
        t.textLine(f"came back {line.came_back}")
        c.drawText(t)
        y -= ROW_H
    c.setFont("Helvetica-Bold", 9)
    c.drawString(MARGIN, y - 14, f"Total listed on this sheet: {len(lines)}")


def render_mailing_book(
    pieces: Sequence[MailPiece],
    sender: Municipality,
    mailed: date,
    per_sheet: int = LINES_PER_SHEET,
    service_steps: Sequence[ServiceStepLine] = (),
) -> bytes:
    """The mailing book as PDF bytes: one landscape sheet per ``per_sheet`` pieces.

    Each sheet carries the sender, numbered lines (numbering runs on across sheets),
    the sheet's totals and the signature space; the last sheet also the batch totals.
    ``service_steps`` (a reprint after certified letters came back) add their own
    sheets after the certified ones: the second mailings by First-Class Mail, marked
    so and not certified, then the postings at the premises, each line with its date,
    the notice and the certified article that came back.
    """
    buf = io.BytesIO()
    c = Canvas(buf, pagesize=(PAGE_W, PAGE_H), pageCompression=1, invariant=1)
    c.setTitle(f"Firm mailing book {mailed.isoformat()}")
    parts = sheets(pieces, per_sheet)
    batch = totals(pieces)
    line_no = 0
    for n, part in enumerate(parts, 1):
        y = _column_heads(c, _header(c, sender, mailed, n, len(parts)))
        for piece in part:
            line_no += 1
            _row(c, y, line_no, piece)
            y -= ROW_H
        _footer(c, totals(part), batch if n == len(parts) else None, y)
        c.showPage()
    for step in STEP_SECTIONS:
        lines = sorted((s for s in service_steps if s.step == step), key=lambda s: (s.done_on, s.notice_id))
        if not lines:
            continue
        step_parts = [lines[i : i + per_sheet] for i in range(0, len(lines), per_sheet)]
        for n, step_part in enumerate(step_parts, 1):
            _step_sheet(c, sender, step, step_part, (n - 1) * per_sheet + 1, n, len(step_parts))
            c.showPage()
    c.save()
    return buf.getvalue()


@dataclass(frozen=True)
class ReturnReceiptRow:
    """What the sender fills in on a PS Form 3811 (domestic return receipt)."""

    article_addressed_to: tuple[str, ...]
    article_number: str
    service_type: str


def return_receipt_rows(pieces: Sequence[MailPiece]) -> list[ReturnReceiptRow]:
    """PS Form 3811 data per piece: 1 article addressed to, 2 article number, 3 service type."""
    return [
        ReturnReceiptRow(tuple(p.addressee.lines()), human_readable(p.article_number), p.service)
        for p in pieces
    ]
