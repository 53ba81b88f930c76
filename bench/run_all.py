"""Run the benchmarks one after another (``make bench``), or those named.

    .venv/bin/python bench/run_all.py [sync tiles api ...]

Each prints its own Markdown tables; ``bench/README.md`` says what each measures and
what it measured. The database benchmarks seed a 160,000-parcel city on first use
(a few minutes per engine; PostgreSQL with PostGIS must be running, as for the tests).
``copy`` (ogr2ogr copies of 160,000 parcels, about an hour), ``copy_clients`` (two GDALs
at their own page sizes against the floors, about 10 minutes), ``scale`` and ``seed`` (a
million parcels) run only when named: ``make bench BENCH=copy``.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Cheapest first, so a broken set-up shows early.
BENCHES = ("rules_pure", "photo_memory", "demo_city", "letters", "mailing", "rules", "api", "tiles", "sync",
           "basic_auth")
# Long ones (an hour, or a million-parcel city): only when named, e.g. `make bench BENCH=copy`.
NAMED_ONLY = ("copy", "copy_clients", "scale", "seed", "speed", "tile_floor", "worker")


def main(argv: list[str]) -> int:
    names = argv or list(BENCHES)
    unknown = [n for n in names if n not in BENCHES + NAMED_ONLY]
    if unknown:
        print(f"unknown benchmark(s): {', '.join(unknown)}; known: {', '.join(BENCHES + NAMED_ONLY)}",
              file=sys.stderr)
        return 2
    failed = []
    for name in names:
        print(f"\n## bench_{name}\n", flush=True)
        started = time.monotonic()
        code = subprocess.call([sys.executable, "-m", f"bench.bench_{name}"], cwd=ROOT)
        print(f"\n(bench_{name}: exit {code}, {time.monotonic() - started:.0f} s)", flush=True)
        if code:
            failed.append(name)
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
