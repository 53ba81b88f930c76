"""Benchmark: time and peak memory of the demo city generator.

Runs ``generate_city`` (everything in memory) or ``iter_layers`` (streamed batches)
in a fresh process per size so peak RSS is the generator's own.

    .venv/bin/python bench/bench_demo_city.py [--sizes 1200 160000] [--stream]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def measure(parcels: int, stream: bool) -> dict:
    """Generate one city in this process and report rows, seconds and peak RSS."""
    sys.path.insert(0, str(ROOT))
    from server.demo.city import LAYERS, generate_city, iter_layers

    started = time.perf_counter()
    if stream:
        rows = sum(len(batch) for _, batch in iter_layers(parcels, batch_size=5000))
    else:
        city = generate_city(parcels)
        rows = sum(len(getattr(city, layer)) for layer in LAYERS)
    seconds = time.perf_counter() - started
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"parcels": parcels, "stream": stream, "rows": rows,
            "seconds": round(seconds, 2), "peak_rss_mb": round(peak_mb)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1200, 160_000])
    parser.add_argument("--stream", action="store_true", help="use iter_layers")
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure(args.one, args.stream)))
        return
    for size in args.sizes:
        cmd = [sys.executable, __file__, "--one", str(size)] + (["--stream"] if args.stream else [])
        print(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.strip())


if __name__ == "__main__":
    main()
