"""What grows with the city: the same measures at several sizes, PostGIS.

    .venv/bin/python -m bench.bench_scale [--sizes 40000 160000 1000000] [--requests 100] [--tiles 100]
                                          [--no-rules] [--json bench/results/scale.json]

For each size the demo city must be seeded (``bench.bench_seed --parcels N``, which times
the seed; otherwise ``bench.common.ensure_city`` seeds it here, untimed). Then, with
Lateral under gunicorn (2 workers) on loopback, one keep-alive connection, 5 warm-ups:

- a 1,000-feature bbox page: ``/api/v1/parcels?bbox=…&limit=1000`` and
  ``/ogc/collections/parcels/items?bbox=…&limit=1000`` for ``--requests`` random
  windows of 0.016° (``bench.bench_api.windows``: ≈ 2,000 parcels each at any size, so
  every page is full);
- vector tiles at zooms 14–17, ``--tiles`` per zoom around random parcels
  (``bench.bench_tiles``);
- the whole-network rules run (``server.services.rules.run_network``, every rule, in a
  transaction rolled back) in a fresh process: wall and CPU time and that process's
  peak RSS;
- the database's size on disk.

The 1M-parcel city is named explicitly (``make bench BENCH=scale`` runs all three sizes;
plain ``make bench`` does not run this script).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import sqlalchemy as sa

from bench.bench_api import time_api, windows
from bench.bench_tiles import bench_tiles, random_tiles
from bench.common import ROOT, bearer_token, database_url, ensure_city, percentiles, served, time_paths


def rules_once(url: str) -> dict:
    """One whole-network run in this process (rolled back); its times and counts."""
    from server import create_app
    from server.extensions import db
    from server.services import rules

    app = create_app({"SQLALCHEMY_DATABASE_URI": url})
    with app.app_context():
        try:
            wall, cpu = time.perf_counter(), time.process_time()
            outcome = rules.run_network()
            out = {**outcome.counts(), "wall_s": round(time.perf_counter() - wall, 1),
                   "cpu_s": round(time.process_time() - cpu, 1)}
        finally:
            db.session.rollback()
            db.session.remove()
            db.engine.dispose()
    out["peak_rss_mib"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    return out


def rules_in_child(url: str) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = subprocess.run([sys.executable, "-m", "bench.bench_scale", "--rules-one", url], env=env, cwd=ROOT,
                         capture_output=True, text=True)
    if run.returncode:
        raise SystemExit(run.stderr[-2000:])
    return json.loads(run.stdout.strip().splitlines()[-1])


def measure(parcels: int, requests: int, tiles_per_zoom: int, with_rules: bool) -> dict:
    url = database_url("postgis", parcels)
    ensure_city(url, parcels)
    engine = sa.create_engine(url)
    with engine.connect() as conn:
        sizes = conn.execute(sa.text(
            "SELECT pg_database_size(current_database()), pg_total_relation_size('parcels'), "
            "(SELECT count(*) FROM parcels)")).one()
        features = sum(conn.execute(sa.text(f"SELECT count(*) FROM {t}")).scalar() for t in (
            "parcels", "sewer_mains", "manholes", "laterals", "taps", "tracer_wires", "clear_water_findings",
            "service_areas"))
    engine.dispose()
    out: dict = {"parcels": sizes[2], "features": features, "database_mib": round(sizes[0] / 2**20),
                 "parcels_table_mib": round(sizes[1] / 2**20), "loadavg": round(os.getloadavg()[0], 1)}
    token = bearer_token(url)
    boxes = windows(url, requests)
    tiles = random_tiles(url, tiles_per_zoom)
    with served(url) as base:
        api, returned = time_api(base, token, boxes)
        out["api_bbox_page"] = {"p50_ms": round(percentiles(api)[0], 1), "p95_ms": round(percentiles(api)[1], 1),
                                "min_features": min(returned)}
        paths = ["/ogc/collections/parcels/items?limit=1000&f=json&bbox=" + ",".join(f"{v:.6f}" for v in b)
                 for b in boxes]
        ogc, _ = time_paths(base, {"Authorization": f"Bearer {token}"}, paths)
        out["ogc_bbox_page"] = {"p50_ms": round(percentiles(ogc)[0], 1), "p95_ms": round(percentiles(ogc)[1], 1)}
        out["tiles"] = {str(z): {"p50_ms": round(p50, 1), "p95_ms": round(p95, 1), "median_kb": round(kb)}
                        for _, z, p50, p95, kb in bench_tiles("postgis", base, token, tiles)}
    if with_rules:
        out["rules"] = rules_in_child(url)
    return out


def report(results: list[dict]) -> None:
    print("\n| parcels | features | database | bbox page p50 (API / OGC) | tile p95 z14 / 15 / 16 / 17 | "
          "rules: wall, CPU, peak RSS | load |")
    print("|---|---|---|---|---|---|---|")
    for r in results:
        t = r["tiles"]
        rules = r.get("rules")
        rules_text = (f"{rules['wall_s']} s, {rules['cpu_s']} s, {rules['peak_rss_mib']:,} MiB" if rules else "—")
        print(f"| {r['parcels']:,} | {r['features']:,} | {r['database_mib']:,} MiB | "
              f"{r['api_bbox_page']['p50_ms']} / {r['ogc_bbox_page']['p50_ms']} ms | "
              f"{' / '.join(str(t[z]['p95_ms']) for z in ('14', '15', '16', '17'))} ms | {rules_text} | "
              f"{r['loadavg']} |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[40_000, 160_000, 1_000_000])
    parser.add_argument("--requests", type=int, default=100)
    parser.add_argument("--tiles", type=int, default=100)
    parser.add_argument("--no-rules", action="store_true")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--rules-one", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.rules_one:
        print(json.dumps(rules_once(args.rules_one)))
        return 0
    results = []
    for size in args.sizes:
        print(f"[{time.strftime('%H:%M:%S')}] {size:,} parcels", file=sys.stderr, flush=True)
        results.append(measure(size, args.requests, args.tiles, not args.no_rules))
        print(json.dumps(results[-1]), file=sys.stderr, flush=True)
        if args.json:  # after each size, so a long run keeps what it measured
            args.json.parent.mkdir(parents=True, exist_ok=True)
            args.json.write_text(json.dumps(results, indent=1) + "\n")
    report(results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
