"""Benchmark: memory of a host under N simultaneous first ``/display`` requests.

    .venv/bin/python -m bench.bench_decoders [--requests 16] [--megapixels 49] [--slots 2]

Each request is a thread that makes the display image of its own fresh PNG photo (a
non-JPEG above ``IN_PROCESS_MAX_PIXELS`` is decoded in a child process, as the first
``GET /api/v1/photos/<sha>/display`` does through ``make_derivatives``). The decoder
children share ``--slots`` slots (:mod:`server.field.photos.decoders`, ``PHOTO_DECODERS_PER_HOST``).
Every 50 ms the script sums the RSS of itself and all its children (``/proc``); it
reports the peak, the number of children seen at once, and the time until the last
display image. ``--slots 0`` runs without the bound (one slot per request), for comparison.
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import threading
import time
from pathlib import Path

from PIL import Image

from server.field.photos import decoders
from server.field.photos.derivatives import make_derivatives


def _children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            found += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            pass
    return found + [g for c in found for g in _children(c)]


def _rss_mib(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def _photo(path: Path, megapixels: int) -> None:
    width = int((megapixels * 1_000_000 * 4 / 3) ** 0.5)
    height = megapixels * 1_000_000 // width
    base = Image.merge("RGB", [Image.effect_noise((width // 8, height // 8), 60) for _ in range(3)])
    base.resize((width, height), Image.Resampling.BILINEAR).save(path, "PNG", compress_level=1)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=16)
    parser.add_argument("--megapixels", type=int, default=49)
    parser.add_argument("--slots", type=int, default=2, help="0: no bound")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="lateral-bench-decoders-") as tmp:
        folder = Path(tmp)
        _photo(folder / "photo-0.png", args.megapixels)
        for i in range(1, args.requests):  # a file each, as fresh photos are
            shutil.copy(folder / "photo-0.png", folder / f"photo-{i}.png")
        decoders.configure(args.slots or args.requests, folder / "slots", wait_s=3600)
        me = __import__("os").getpid()
        peak, most_children, done = 0.0, 0, threading.Event()

        def sample() -> None:
            nonlocal peak, most_children
            while not done.is_set():
                kids = _children(me)
                most_children = max(most_children, len(kids))
                peak = max(peak, _rss_mib(me) + sum(_rss_mib(k) for k in kids))
                time.sleep(0.05)

        sampler = threading.Thread(target=sample)
        sampler.start()
        started = time.monotonic()
        workers = [threading.Thread(target=make_derivatives, args=(folder / f"photo-{i}.png",))
                   for i in range(args.requests)]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        elapsed = time.monotonic() - started
        done.set()
        sampler.join()
    print(json.dumps({"requests": args.requests, "megapixels": args.megapixels, "slots": args.slots or "unbounded",
                      "peak_rss_mib": round(peak), "most_children_at_once": most_children,
                      "seconds": round(elapsed, 1)}))


if __name__ == "__main__":
    main()
