"""Page geometry of a notice letter: the #10 window envelope and the tri-fold.

All values in PDF points (1/72 in), origin at the bottom-left of a US Letter page.

A #10 window envelope (9.5 x 4.125 in) has its standard window 4.5 x 1.125 in,
0.875 in from the left edge and 0.5 in from the bottom edge. A US Letter sheet
tri-folded has a top panel 11/3 in (3.667 in) tall, which sits in the envelope
with up to 4.125 - 3.667 = 0.458 in of vertical play. With the fold resting on the
envelope's bottom edge, the window shows the band 2.042-3.167 in below the page top;
pushed up as far as it goes, 2.500-3.625 in. The address block goes at 2.2 in from
the page top, 1.0 in from the left (USPS asks for about 1/8 in clear around it),
inside the resting window. Horizontally the sheet (8.5 in) has 1 in of play in the
envelope (9.5 in); the block is kept 3.5 in wide so it stays in the 4.5-in window.
"""

from __future__ import annotations

from reportlab.lib.pagesizes import LETTER
from reportlab.lib.units import inch

PAGE_WIDTH, PAGE_HEIGHT = LETTER

ENVELOPE_HEIGHT = 4.125 * inch  # #10 envelope, 9.5 x 4.125 in
WINDOW_LEFT = 0.875 * inch  # from the envelope's left edge
WINDOW_BOTTOM = 0.5 * inch  # from the envelope's bottom edge
WINDOW_WIDTH = 4.5 * inch
WINDOW_HEIGHT = 1.125 * inch
FOLD_PANEL = PAGE_HEIGHT / 3  # top panel of a tri-folded letter (3.667 in)

#: The window band on the page (distance below the page top) with the folded
#: letter resting on the envelope's bottom edge.
WINDOW_TOP_FROM_PAGE_TOP = FOLD_PANEL - (WINDOW_BOTTOM + WINDOW_HEIGHT)  # 2.042 in
WINDOW_BOTTOM_FROM_PAGE_TOP = FOLD_PANEL - WINDOW_BOTTOM  # 3.167 in

ADDRESS_LEFT = 1.0 * inch
ADDRESS_TOP_FROM_PAGE_TOP = 2.2 * inch
ADDRESS_MAX_WIDTH = 3.5 * inch
ADDRESS_FONT_SIZE = 10
ADDRESS_LEADING = 12
ADDRESS_MAX_LINES = 5  # 2.2 in + 5 lines ends above 3.167 - 1/8 in

#: The GS1-128 barcode sits right of the window (never visible through it).
BARCODE_LEFT = 5.45 * inch
BARCODE_BAR_WIDTH = 0.0105 * inch
BARCODE_HEIGHT = 0.45 * inch

MARGIN_LEFT = 1.0 * inch
MARGIN_RIGHT = 0.75 * inch
MARGIN_BOTTOM = 0.6 * inch
TEXT_WIDTH = PAGE_WIDTH - MARGIN_LEFT - MARGIN_RIGHT
BODY_TOP_FROM_PAGE_TOP = 3.4 * inch


def from_top(distance: float) -> float:
    """PDF y coordinate of a distance measured down from the page top."""
    return PAGE_HEIGHT - distance
