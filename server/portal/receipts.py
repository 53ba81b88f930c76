"""The receipt of an appeal filed online, as a PDF. Pure: plain strings in, bytes out
(nothing from the database is read as markup: each line is drawn as text)."""

from __future__ import annotations

import io
from collections.abc import Sequence

from reportlab.lib.pagesizes import LETTER
from reportlab.lib.utils import simpleSplit
from reportlab.pdfgen.canvas import Canvas

MARGIN = 72
WIDTH = LETTER[0] - 2 * MARGIN


def render_receipt(title: str, heading: Sequence[str], rows: Sequence[tuple[str, str]],
                   closing: Sequence[str]) -> bytes:
    """One page (more if the facts are long): ``heading`` lines, ``rows`` of label and value,
    ``closing`` paragraphs."""
    buf = io.BytesIO()
    c = Canvas(buf, pagesize=LETTER, invariant=1)
    c.setTitle(title)
    y = LETTER[1] - MARGIN

    def line(text: str, font: str = "Helvetica", size: float = 10, indent: float = 0) -> None:
        nonlocal y
        for part in simpleSplit(text, font, size, WIDTH - indent) or [""]:
            if y < MARGIN:
                c.showPage()
                y = LETTER[1] - MARGIN
            c.setFont(font, size)
            c.drawString(MARGIN + indent, y, part)
            y -= size * 1.3

    for n, text in enumerate(heading):
        line(text, "Helvetica-Bold" if n == 0 else "Helvetica", 13 if n == 0 else 10)
    y -= 8
    line(title, "Helvetica-Bold", 12)
    y -= 4
    for label, value in rows:
        line(label, "Helvetica-Bold", 9.5)
        for paragraph in value.splitlines() or [""]:
            line(paragraph, indent=12)
        y -= 3
    y -= 6
    for text in closing:
        line(text, size=9.5)
        y -= 3
    c.showPage()
    c.save()
    return buf.getvalue()
