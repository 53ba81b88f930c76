"""Notice letters as PDF (reportlab), laid out for a #10 window envelope.

One letter: letterhead, the owner's address in the envelope window, the article
number (human-readable and GS1-128), what was found and where, the deadline in bold
with how it was computed, photos and a small map, the appeal right, the forfeiture
range and whom to call. The words per notice kind live in :mod:`server.notices.letters.texts`;
the page geometry in :mod:`server.notices.letters.layout`.

Rendering many letters: :func:`render_letters` puts them in one PDF (the letterhead
is drawn once as a form XObject and photos are embedded once);
:func:`write_letters` writes one file each, optionally over several processes.
"""

from __future__ import annotations

import hashlib
import io
import os
import tempfile
from collections.abc import Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from functools import lru_cache
from pathlib import Path

from PIL import Image
from reportlab.graphics import renderPDF
from reportlab.graphics.barcode.code128 import Code128
from reportlab.graphics.barcode.qr import QrCodeWidget
from reportlab.graphics.shapes import Drawing
from reportlab.lib.utils import simpleSplit
from reportlab.pdfgen.canvas import Canvas

from gis.rulebook import Rulebook, load_rulebook
from server.notices.article_numbers import human_readable
from server.notices.kinds import notice_kind
from server.notices.letters import layout as L
from server.notices.letters.documents import Addressee, NoticeLetter
from server.notices.letters.parcel_map import draw_parcel_map
from server.notices.letters.texts import (
    appeal_text,
    contact_text,
    delegation_text,
    forfeiture_text,
    portal_text,
    review_text,
    text_fields,
)

FONT, BOLD = "Helvetica", "Helvetica-Bold"
FNC1 = "\xf1"  # reportlab's Code128 encodes this character as the FNC1 symbol
THUMB_PX = 320  # longest side of an embedded photo (about 170 dpi at 1.9 in)
MAX_PHOTOS = 3
LETTERHEAD_FORM = "lateral_letterhead"


def gs1_128_value(article_number: str, zip_code: str) -> str:
    """The Code 128 input for the IMpb barcode: FNC1 420 ZIP FNC1 article number.

    reportlab's Code128 turns a leading ``\\xf1`` into Start C + FNC1, which is
    what makes the symbol GS1-128; the second FNC1 ends the variable-length ZIP.
    """
    return f"{FNC1}420{zip_code}{FNC1}{article_number}"


def thumbnail_dir(configured: os.PathLike | str | None = None) -> Path:
    """Where shrunk photos are kept: ``configured`` (the app's ``LATERAL_THUMB_DIR``), else the temp folder."""
    return Path(configured) if configured else Path(tempfile.gettempdir()) / "lateral-thumbs"


@lru_cache(maxsize=1024)
def _thumbnail(path: str, mtime_ns: int, size: int, folder: Path) -> tuple[str, int, int]:
    key = hashlib.sha1(f"{path}|{mtime_ns}|{size}|{THUMB_PX}".encode()).hexdigest()
    out = folder / f"{key}.jpg"
    with Image.open(path) as im:
        im = im.convert("RGB")
        im.thumbnail((THUMB_PX, THUMB_PX))
        if not out.exists():
            out.parent.mkdir(parents=True, exist_ok=True)
            tmp = out.with_suffix(f".{os.getpid()}.tmp")
            im.save(tmp, "JPEG", quality=80)
            os.replace(tmp, out)  # atomic: parallel workers may race here
        return str(out), im.width, im.height


def thumbnail(path: os.PathLike | str, thumb_dir: os.PathLike | str | None = None) -> tuple[str, int, int]:
    """A small JPEG of the photo on disk, kept in ``thumbnail_dir(thumb_dir)``: (path, width px, height px).

    Cached per file version (path, mtime, size). reportlab embeds a JPEG *file* as
    is (DCT pass-through), without decoding, hashing or re-compressing its pixels,
    which is what makes one-file-per-letter output fast and small.
    """
    st = os.stat(path)
    return _thumbnail(os.fspath(path), st.st_mtime_ns, st.st_size, thumbnail_dir(thumb_dir))


@lru_cache(maxsize=4096)
def _split(text: str, font: str, size: float, width: float) -> tuple[str, ...]:
    """Wrapped lines; cached because most paragraphs repeat from letter to letter."""
    return tuple(simpleSplit(text, font, size, width))


def _photo_form(c: Canvas, path: os.PathLike | str, thumb_dir: os.PathLike | str | None) -> tuple[str, int, int]:
    """The photo as a form XObject of this PDF: (form name, width px, height px).

    Drawing the image through a form embeds and hashes it once per PDF instead of
    once per letter; forms are numbered in order of first use, so output is stable.
    """
    forms: dict[str, tuple[str, int, int]] = c.__dict__.setdefault("_lateral_photo_forms", {})
    key = os.fspath(path)
    if key not in forms:
        img, iw, ih = thumbnail(path, thumb_dir)
        name = f"lateral_photo_{len(forms)}"
        c.beginForm(name, 0, 0, iw, ih)
        c.drawImage(img, 0, 0, iw, ih)
        c.endForm()
        forms[key] = (name, iw, ih)
    return forms[key]


def long_date(d) -> str:
    return f"{d:%A, %B} {d.day}, {d.year}"


class _Page:
    """A y cursor over the body of the letter that starts a new page when full.

    A letter is laid out twice: a dry pass (``dry=True``) that draws nothing and counts
    the pages, then the real pass, which numbers each page "page N of M" with the owner
    and parcel (a page that strays from its envelope still says whose it is).
    """

    def __init__(self, c: Canvas, letter: NoticeLetter, dry: bool = False, total: int | None = None,
                 thumb_dir: os.PathLike | str | None = None):
        self.c, self.letter, self.page, self.dry, self.total = c, letter, 1, dry, total
        self.thumb_dir = thumb_dir
        self.y = L.from_top(L.BODY_TOP_FROM_PAGE_TOP)

    def need(self, height: float) -> None:
        """Start a new page unless ``height`` more points fit on this one."""
        if self.y - height < L.MARGIN_BOTTOM + 14:
            if not self.dry:
                _footer(self.c, self.letter, self.page, self.total)
                self.c.showPage()
                self.c.setFont(FONT, 8)
                self.c.drawString(L.MARGIN_LEFT, L.from_top(0.6 * 72),
                                  f"{self.letter.municipality.commission} - {_owners(self.letter)} - parcel "
                                  f"{self.letter.parcel_number} - continued")
            self.page += 1
            self.y = L.from_top(0.9 * 72)

    @staticmethod
    def height(text: str, size: float = 9.5, font: str = FONT, leading: float | None = None,
               indent: float = 0, space_after: float = 5) -> float:
        """The height :meth:`para` takes for ``text``, space after included."""
        leading = leading or size * 1.22
        return leading * len(_split(text, font, size, L.TEXT_WIDTH - indent)) + space_after

    def para(self, text: str, size: float = 9.5, font: str = FONT, leading: float | None = None,
             indent: float = 0, space_after: float = 5) -> None:
        leading = leading or size * 1.22
        lines = _split(text, font, size, L.TEXT_WIDTH - indent)
        self.need(leading * len(lines))
        if not self.dry:
            t = self.c.beginText(L.MARGIN_LEFT + indent, self.y - size)
            t.setFont(font, size, leading)
            for line in lines:
                t.textLine(line)
            self.c.drawText(t)
        self.y -= leading * len(lines) + space_after

    def together(self, *paras: tuple[str, dict]) -> None:
        """Print paragraphs on one page: a new page first if they do not all fit here
        (so the signature never stands alone on a page)."""
        self.need(sum(self.height(text, **kw) for text, kw in paras))
        for text, kw in paras:
            self.para(text, **kw)


def _owners(letter: NoticeLetter) -> str:
    return "; ".join(letter.addressee.names)


def _letterhead(c: Canvas, letter: NoticeLetter) -> None:
    """The static top of every first page, drawn once per PDF as a form XObject."""
    m = letter.municipality
    if not c.hasForm(LETTERHEAD_FORM):
        c.beginForm(LETTERHEAD_FORM)
        c.setFillColorRGB(0.08, 0.22, 0.42)
        c.setFont(BOLD, 16)
        c.drawString(L.MARGIN_LEFT, L.from_top(0.72 * 72), m.name)
        c.setFont(FONT, 9)
        c.drawString(L.MARGIN_LEFT, L.from_top(0.92 * 72), f"{m.commission} - {m.utility}")
        c.setFillColorRGB(0, 0, 0)
        c.setFont(FONT, 8.5)
        c.drawString(L.MARGIN_LEFT, L.from_top(1.10 * 72), "  |  ".join(m.return_address[1:]))
        c.drawString(L.MARGIN_LEFT, L.from_top(1.25 * 72), f"Telephone {m.phone}")
        c.setStrokeColorRGB(0.08, 0.22, 0.42)
        c.setLineWidth(1.2)
        c.line(L.MARGIN_LEFT, L.from_top(1.38 * 72), L.PAGE_WIDTH - L.MARGIN_RIGHT, L.from_top(1.38 * 72))
        c.setFont(BOLD, 8.5)
        c.drawRightString(L.PAGE_WIDTH - L.MARGIN_RIGHT, L.from_top(0.72 * 72), "CERTIFIED MAIL")
        c.setFont(FONT, 8)
        c.drawRightString(L.PAGE_WIDTH - L.MARGIN_RIGHT, L.from_top(0.88 * 72), "Return receipt requested")
        c.endForm()
    c.doForm(LETTERHEAD_FORM)
    c.setFont(FONT, 9)
    c.drawRightString(L.PAGE_WIDTH - L.MARGIN_RIGHT, L.from_top(1.10 * 72), f"Mailed {long_date(letter.mailed)}")


def draw_address_block(c: Canvas, addressee: Addressee) -> None:
    """The owner's address where the #10 envelope's window shows it (:mod:`layout`); every
    certified letter the city mails (notices, decisions) puts it here."""
    lines = addressee.lines()[: L.ADDRESS_MAX_LINES]
    t = c.beginText(L.ADDRESS_LEFT, L.from_top(L.ADDRESS_TOP_FROM_PAGE_TOP) - L.ADDRESS_FONT_SIZE)
    t.setFont(FONT, L.ADDRESS_FONT_SIZE, L.ADDRESS_LEADING)
    for line in lines:
        while c.stringWidth(line, FONT, L.ADDRESS_FONT_SIZE) > L.ADDRESS_MAX_WIDTH and len(line) > 4:
            line = line[:-1]
        t.textLine(line)
    c.drawText(t)


def draw_certified_barcode(c: Canvas, article_number: str, addressee: Addressee) -> None:
    """The article number, human-readable and as the GS1-128 barcode, right of the window."""
    top = L.from_top(L.ADDRESS_TOP_FROM_PAGE_TOP)
    c.setFont(BOLD, 7)
    c.drawString(L.BARCODE_LEFT, top - 7, "USPS CERTIFIED MAIL")
    bc = Code128(gs1_128_value(article_number, addressee.zip_digits), barWidth=L.BARCODE_BAR_WIDTH,
                 barHeight=L.BARCODE_HEIGHT, humanReadable=False, quiet=0)
    bc.drawOn(c, L.BARCODE_LEFT, top - 10 - L.BARCODE_HEIGHT)
    c.setFont(FONT, 8.5)
    c.drawString(L.BARCODE_LEFT, top - 20 - L.BARCODE_HEIGHT, human_readable(article_number))


def _address_block(c: Canvas, letter: NoticeLetter) -> None:
    draw_address_block(c, letter.addressee)


def _barcode(c: Canvas, letter: NoticeLetter) -> None:
    draw_certified_barcode(c, letter.article_number, letter.addressee)


def _footer(c: Canvas, letter: NoticeLetter, page: int, total: int | None) -> None:
    c.setFont(FONT, 7)
    c.setFillColorRGB(0.35, 0.35, 0.35)
    of = f" of {total}" if total else ""
    c.drawString(L.MARGIN_LEFT, L.MARGIN_BOTTOM - 14,
                 f"{_owners(letter)}  |  parcel {letter.parcel_number}  |  "
                 f"article {human_readable(letter.article_number)}  |  page {page}{of}")
    c.setFillColorRGB(0, 0, 0)


def _pictures(p: _Page, letter: NoticeLetter) -> None:
    photos = list(letter.photos)[:MAX_PHOTOS]
    if letter.parcel_geometry is None and not photos:
        return
    h = 1.45 * 72
    p.need(h + 14)
    x, y = L.MARGIN_LEFT, p.y - h
    if p.dry:
        p.y = y - 16
        return
    c = p.c
    c.setFont(FONT, 6.5)
    if letter.parcel_geometry is not None:
        w = 2.0 * 72
        draw_parcel_map(c, letter.parcel_geometry, letter.nearby, x, y, w, h)
        c.drawString(x, y - 8, "Parcel in red; main blue; lateral green")
        x += w + 10
    for i, path in enumerate(photos, 1):
        name, iw, ih = _photo_form(c, path, p.thumb_dir)
        w = min(h * iw / ih, 1.9 * 72)
        ph = w * ih / iw
        c.saveState()
        c.translate(x, y + h - ph)
        c.scale(w / iw, ph / ih)
        c.doForm(name)
        c.restoreState()
        c.drawString(x, y - 8, f"Photo {i}")
        x += w + 8
    p.y = y - 16


def _finding_line(finding) -> str:
    """One finding and its section (not repeated when the words already cite it)."""
    cited = finding.section and finding.section in finding.text
    return f"-  {finding.text}" + ("" if cited else f" ({finding.section})")


def _findings(p: _Page, letter: NoticeLetter) -> None:
    """What was found, under the basis of each group: an inspection on a date by
    whom, or the city's records of the sewer network as of a date."""
    groups: dict[str, list] = {}
    for finding in letter.findings:
        groups.setdefault(finding.basis, []).append(finding)
    for basis, findings in groups.items():
        heading = f"Found by {basis}:" if basis else "What was found:"
        p.together((heading, {"font": BOLD, "size": 9.5, "space_after": 2}),
                   (_finding_line(findings[0]), {"size": 9.5, "indent": 10, "space_after": 2}))
        for finding in findings[1:]:
            p.para(_finding_line(finding), size=9.5, indent=10, space_after=2)
        p.y -= 3


def _service_record(p: _Page, letter: NoticeLetter) -> None:
    """On a reprint: how the notice was served, step by step, as recorded (plain text)."""
    if not letter.service_record:
        return
    as_of = f" (as recorded on {long_date(letter.service_as_of)})" if letter.service_as_of else ""
    p.together((f"How this notice was served{as_of}:", {"font": BOLD, "size": 9.5, "space_after": 2}),
               (letter.service_record[0], {"size": 9, "indent": 10, "space_after": 2}))
    for line in letter.service_record[1:]:
        p.para(line, size=9, indent=10, space_after=2)
    p.y -= 3


QR_SIDE = 0.85 * 72


def _portal(p: _Page, letter: NoticeLetter) -> None:
    """The lookup code and the portal's address, beside a QR code of the two."""
    if letter.portal is None:
        return
    text = portal_text(letter.portal.address, letter.portal.code)
    indent = QR_SIDE + 8
    lines = _split(text, FONT, 9, L.TEXT_WIDTH - indent)
    p.need(max(QR_SIDE, 11 * len(lines)) + 6)
    if not p.dry:
        widget = QrCodeWidget(letter.portal.qr, barLevel="M")
        x0, y0, x1, y1 = widget.getBounds()
        drawing = Drawing(QR_SIDE, QR_SIDE, transform=[QR_SIDE / (x1 - x0), 0, 0, QR_SIDE / (y1 - y0), 0, 0])
        drawing.add(widget)
        renderPDF.draw(drawing, p.c, L.MARGIN_LEFT, p.y - QR_SIDE)
        t = p.c.beginText(L.MARGIN_LEFT + indent, p.y - 9)
        t.setFont(FONT, 9, 11)
        for line in lines:
            t.textLine(line)
        p.c.drawText(t)
    p.y -= max(QR_SIDE, 11 * len(lines)) + 6


def _body(p: _Page, letter: NoticeLetter, rulebook: Rulebook) -> None:
    kind = notice_kind(letter.kind)
    f = text_fields(letter.kind, letter.municipality, rulebook)
    f["section"] = letter.deadline.section or f.get("section", "")
    p.para(kind.title.upper(), size=12, font=BOLD, space_after=4)
    p.para(f"Property: {letter.site_address}  |  Parcel number: {letter.parcel_number}",
           font=BOLD, size=9.5, space_after=1)
    p.para(f"Owner of record: {_owners(letter)}  |  "
           f"Article number: {human_readable(letter.article_number)}", size=9, space_after=7)
    _findings(p, letter)
    p.y -= 2
    p.para(kind.rule.format(**f), size=9.5)
    if letter.follows:
        p.para(letter.follows, size=9.5)
    action = kind.action.format(**f)
    p.together((f"{action} no later than {long_date(letter.deadline.date)}.",
                {"font": BOLD, "size": 11.5, "space_after": 2}),
               ("How this date was computed (Wis. Stat. § 990.001(4)): "
                + "; ".join(letter.deadline.steps) + ".", {"size": 7.5, "space_after": 5}))
    _service_record(p, letter)
    _portal(p, letter)
    if kind.consequence:
        p.para(kind.consequence.format(**f), size=9.5)
    _pictures(p, letter)
    if kind.appeal:
        p.para(appeal_text(f, long_date(letter.mailed)), size=9)
    else:
        p.para(review_text(rulebook, letter.kind, letter.municipality.commission), size=9)
    forfeiture = forfeiture_text(f)
    closing: list[tuple[str, dict]] = [(forfeiture, {"size": 9})] if forfeiture else []
    closing += [
        (contact_text(f), {"size": 9, "space_after": 14}),
        (letter.municipality.commission, {"size": 9.5, "space_after": 1}),
        (letter.signer or f"by the {letter.municipality.superintendent_title}", {"size": 9.5}),
    ]
    delegation = delegation_text(rulebook.municipality)
    if delegation:
        closing.append((delegation, {"size": 8}))
    p.together(*closing)


def draw_letter(c: Canvas, letter: NoticeLetter, rulebook: Rulebook,
                thumb_dir: os.PathLike | str | None = None) -> None:
    """Draw one letter on ``c``, starting on a fresh page and ending with showPage().

    ``thumb_dir``: where its photos are shrunk (see :func:`thumbnail_dir`).
    """
    dry = _Page(c, letter, dry=True)
    _body(dry, letter, rulebook)
    _letterhead(c, letter)
    _address_block(c, letter)
    _barcode(c, letter)
    page = _Page(c, letter, total=dry.page, thumb_dir=thumb_dir)
    _body(page, letter, rulebook)
    _footer(c, letter, page.page, page.total)
    c.showPage()


def _canvas(buf: io.BytesIO, title: str) -> Canvas:
    c = Canvas(buf, pagesize=(L.PAGE_WIDTH, L.PAGE_HEIGHT), pageCompression=1, invariant=1)
    c.setTitle(title)
    c.setAuthor("Lateral")
    return c


def render_letters(letters: Iterable[NoticeLetter], rulebook: Rulebook,
                   thumb_dir: os.PathLike | str | None = None) -> bytes:
    """Many letters in one PDF, each starting on a new page."""
    buf = io.BytesIO()
    c = _canvas(buf, "Notices")
    for letter in letters:
        draw_letter(c, letter, rulebook, thumb_dir)
    c.save()
    return buf.getvalue()


def render_letter(letter: NoticeLetter, rulebook: Rulebook,
                  thumb_dir: os.PathLike | str | None = None) -> bytes:
    """One letter as PDF bytes."""
    return render_letters([letter], rulebook, thumb_dir)


def letter_filename(letter: NoticeLetter) -> str:
    return f"{letter.kind}_{letter.parcel_number}_{letter.article_number}.pdf".replace("/", "-")


def _write_chunk(args: tuple[Sequence[NoticeLetter], str, str, str | None]) -> list[str]:
    letters, out_dir, rulebook_ref, thumb_dir = args
    rulebook = load_rulebook(rulebook_ref)
    paths = []
    for letter in letters:
        path = Path(out_dir) / letter_filename(letter)
        path.write_bytes(render_letter(letter, rulebook, thumb_dir))
        paths.append(str(path))
    return paths


def write_letters(
    letters: Sequence[NoticeLetter],
    out_dir: os.PathLike | str,
    rulebook: Rulebook,
    processes: int = 1,
    thumb_dir: os.PathLike | str | None = None,
) -> list[Path]:
    """Write one PDF per letter into ``out_dir``; returns the paths in input order.

    Args:
        processes: worker processes; letters are split into that many chunks.
        thumb_dir: where photos are shrunk (see :func:`thumbnail_dir`).
    """
    Path(out_dir).mkdir(parents=True, exist_ok=True)
    ref, thumbs = str(rulebook.path), None if thumb_dir is None else os.fspath(thumb_dir)
    if processes <= 1 or len(letters) < 2 * processes:
        return [Path(p) for p in _write_chunk((letters, str(out_dir), ref, thumbs))]
    size = -(-len(letters) // processes)
    chunks = [(letters[i : i + size], str(out_dir), ref, thumbs) for i in range(0, len(letters), size)]
    with ProcessPoolExecutor(processes) as pool:
        return [Path(p) for chunk in pool.map(_write_chunk, chunks) for p in chunk]
