"""Benchmark: notice letters (map + 2 photo thumbnails each) and their mailing books.

Renders N made-up letters (server/notices/letters/samples.py) in print batches of --batch
letters per PDF, with one firm mailing book (PS Form 3877 layout) per batch, over
--processes worker processes; then the same letters as one PDF file each. For scale,
reportlab draws N bare pages (one line of text each) in the same run, and the
single-process letter rate is compared with it.

    .venv/bin/python bench/bench_letters.py [--n 10000] [--batch 500] [--processes 2]
"""

from __future__ import annotations

import argparse
import io
import os
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from reportlab.pdfgen.canvas import Canvas  # noqa: E402

from gis.rulebook import load_rulebook  # noqa: E402
from server.notices.letters.documents import MailPiece  # noqa: E402
from server.notices.letters.mailing_book import render_mailing_book  # noqa: E402
from server.notices.letters.notice import render_letters, write_letters  # noqa: E402
from server.notices.letters.samples import sample_letter, sample_photos  # noqa: E402

PHOTO_DIR = Path(tempfile.gettempdir()) / "lateral_bench_photos"


def _letters(start: int, stop: int):
    photos = tuple(sample_photos(PHOTO_DIR, 2))
    rulebook = load_rulebook("arcadia")
    return [sample_letter(i, photos=photos, rulebook=rulebook) for i in range(start, stop)]


def render_batch(bounds: tuple[int, int]) -> tuple[int, int]:
    """One print batch: its letters as one PDF plus its mailing book; returns sizes."""
    letters = _letters(*bounds)
    rulebook = load_rulebook("arcadia")
    mail = rulebook.section("mail")
    pdf = render_letters(letters, rulebook)
    book = render_mailing_book([MailPiece.for_letter(x, mail) for x in letters],
                               letters[0].municipality, letters[0].mailed)
    return len(pdf), len(book)


def bare_pages(n: int) -> float:
    """Seconds for reportlab to draw n pages of one line each into one PDF."""
    t = time.perf_counter()
    buf = io.BytesIO()
    c = Canvas(buf, pageCompression=1, invariant=1)
    for i in range(n):
        c.setFont("Helvetica", 10)
        c.drawString(72, 720, f"Page {i + 1}: one line of text")
        c.showPage()
    c.save()
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=10_000, help="letters (default 10,000)")
    ap.add_argument("--batch", type=int, default=500, help="letters per PDF and mailing book")
    ap.add_argument("--processes", type=int, default=os.cpu_count() or 1)
    args = ap.parse_args()
    n = args.n
    sample_photos(PHOTO_DIR, 2)
    bounds = [(i, min(i + args.batch, n)) for i in range(0, n, args.batch)]

    # Letters are built inside the timed region (deadline_for, article numbers too).
    t = time.perf_counter()
    with ProcessPoolExecutor(args.processes) as pool:
        sizes = list(pool.map(render_batch, bounds))
    batched = time.perf_counter() - t
    mb = sum(a + b for a, b in sizes) / 1e6

    single_n = min(n, 1000)
    t = time.perf_counter()
    render_batch((0, single_n))
    single = time.perf_counter() - t

    letters = _letters(0, n)
    with tempfile.TemporaryDirectory() as out:
        t = time.perf_counter()
        write_letters(letters, out, load_rulebook("arcadia"), processes=args.processes)
        per_file = time.perf_counter() - t

    bare = bare_pages(n)
    print(f"letters: {n}, batch {args.batch}, processes {args.processes}, CPUs {os.cpu_count()}")
    print(f"batched PDFs + mailing books: {batched:.2f} s, {n / batched:.0f} letters/s, {mb:.1f} MB")
    print(f"one process, {single_n} letters + book: {single_n / single:.0f} letters/s")
    print(f"one PDF file per letter: {per_file:.2f} s, {n / per_file:.0f} letters/s")
    print(f"bare pages (1 line, one process): {n / bare:.0f} pages/s")
    print(f"ratio letters/s (one process) to bare pages/s: 1 : {(n / bare) / (single_n / single):.1f}")


if __name__ == "__main__":
    main()
