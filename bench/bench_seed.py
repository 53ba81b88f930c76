"""Seeding the demo city at scale: wall time and the seeding process's peak memory.

    .venv/bin/python -m bench.bench_seed [--parcels 1000000] [--engine postgis] [--fresh]

Runs ``flask --app server demo seed --parcels N`` as a person would, into the bench
database of that size (PostgreSQL ``lateral_bench_<N/1000>k``, created if missing and
migrated; ``--fresh`` drops and re-creates it first; it must be empty otherwise), and
reports the wall time and the peak resident memory of the ``flask`` process
(``getrusage`` of the finished child: the Python side only, not PostgreSQL's).
The progress bar goes to stderr; this script keeps its last line.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time

import sqlalchemy as sa

from bench.common import BIN, PG_ADMIN, ROOT, database_url, flask


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parcels", type=int, default=1_000_000)
    parser.add_argument("--engine", choices=("postgis", "spatialite"), default="postgis")
    parser.add_argument("--fresh", action="store_true", help="drop the bench database of this size first")
    parser.add_argument("--suffix", default="", help="PostgreSQL: seed lateral_bench_<N/1000>k<suffix> instead")
    args = parser.parse_args()

    if args.fresh:
        if args.engine == "postgis":
            name = f"lateral_bench_{args.parcels // 1000}k{args.suffix}"
            admin = sa.create_engine(PG_ADMIN, isolation_level="AUTOCOMMIT")
            with admin.connect() as conn:
                conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}"')
            admin.dispose()
        else:
            path = database_url("spatialite", args.parcels).removeprefix("sqlite:///")
            if os.path.exists(path):
                os.remove(path)
    url = database_url(args.engine, args.parcels, args.suffix)
    flask(url, "db", "upgrade")
    env = {**os.environ, "DATABASE_URL": url, "PYTHONPATH": str(ROOT)}
    started = time.perf_counter()
    command = ["demo", "seed", "--parcels", str(args.parcels), "--no-living"]
    run = subprocess.run([str(BIN / "flask"), "--app", "server", *command], env=env, cwd=ROOT,
                         capture_output=True, text=True)
    seconds = time.perf_counter() - started
    peak_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    if run.returncode:
        print(run.stderr[-2000:], file=sys.stderr)
        return run.returncode
    result = {"engine": args.engine, "parcels": args.parcels, "seconds": round(seconds, 1),
              "minutes": round(seconds / 60, 1), "peak_rss_mib": round(peak_mib),
              "report": run.stdout.strip().splitlines()[-1],
              "stderr_first_lines": run.stderr.strip().splitlines()[:2]}
    print(json.dumps(result, indent=1))
    print(f"\n| engine | parcels | seed wall time | peak RSS of `flask demo seed` |\n|---|---|---|---|\n"
          f"| {args.engine} | {args.parcels:,} | {seconds / 60:.1f} min | {peak_mib:.0f} MiB |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
