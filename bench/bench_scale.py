"""What grows with the city: the same measures at several sizes, PostGIS.

    .venv/bin/python -m bench.bench_scale [--sizes 40000 160000 1000000] [--requests 100] [--tiles 100]
                                          [--no-rules] [--json bench/results/scale.json]

For each size the demo city must be seeded (``bench.bench_seed --parcels N``, which times
the seed; otherwise ``bench.common.ensure_city`` seeds it here, untimed). Then Lateral
serves every size at once (gunicorn, 2 workers each, loopback, one keep-alive connection
each, 5 warm-ups), and each request is asked of every size in turn (the order rotating),
so the machine's drifts fall on all sizes alike:

- a 1,000-feature bbox page: ``/api/v1/parcels?bbox=…&limit=1000`` and
  ``/ogc/collections/parcels/items?bbox=…&limit=1000`` for ``--requests`` random
  windows of 0.016° (``bench.bench_api.windows``: ≈ 2,000 parcels each at any size, so
  every page is full);
- vector tiles at zooms 14–17, ``--tiles`` per zoom around random parcels
  (``bench.bench_tiles``);
- then, one size after another, the whole-network rules run (``server.rules.run.run_network``, every rule, in a
  transaction rolled back) in a fresh process: wall and CPU time and that process's
  peak RSS;
- the database's size on disk.

The 1M-parcel city is named explicitly (``make bench BENCH=scale`` runs all three sizes;
plain ``make bench`` does not run this script).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import resource
import subprocess
import sys
import time
import urllib.parse
from contextlib import ExitStack
from pathlib import Path

import sqlalchemy as sa

from bench.bench_api import windows
from bench.bench_tiles import ZOOMS, random_tiles
from bench.common import ROOT, bearer_token, database_url, ensure_city, percentiles, served


def rules_once(url: str) -> dict:
    """One whole-network run in this process (rolled back); its times and counts."""
    from server import create_app
    from server.core.extensions import db
    from server.rules import run as rules

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


def city(parcels: int, requests: int, tiles_per_zoom: int) -> dict:
    """One seeded city: its URL, token, windows, tiles and size on disk."""
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
    return {"url": url, "token": bearer_token(url), "boxes": windows(url, requests),
            "tiles": random_tiles(url, tiles_per_zoom),
            "out": {"parcels": sizes[2], "features": features, "database_mib": round(sizes[0] / 2**20),
                    "parcels_table_mib": round(sizes[1] / 2**20)}}


class Conn:
    def __init__(self, base: str, token: str):
        parsed = urllib.parse.urlparse(base)
        self.conn = http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=300)
        self.headers = {"Authorization": f"Bearer {token}"}

    def get(self, path: str) -> tuple[float, bytes]:
        start = time.perf_counter()
        self.conn.request("GET", path, headers=self.headers)
        resp = self.conn.getresponse()
        body = resp.read()
        elapsed = (time.perf_counter() - start) * 1000
        if resp.status != 200:
            raise SystemExit(f"{path}: HTTP {resp.status} {body[:300]!r}")
        return elapsed, body


def interleaved(conns: list[Conn], paths: list[list[str]], warmup: int = 5) -> list[list[float]]:
    """Request i of every city in turn (the order rotating), so load drifts fall on all alike."""
    n = len(conns)
    times: list[list[float]] = [[] for _ in conns]
    for i in [*range(warmup), *range(len(paths[0]))]:
        for k in [(i + j) % n for j in range(n)]:
            times[k].append(conns[k].get(paths[k][i])[0])
    return [t[warmup:] for t in times]


def measure(sizes: list[int], requests: int, tiles_per_zoom: int) -> list[dict]:
    cities = [city(size, requests, tiles_per_zoom) for size in sizes]
    with ExitStack() as stack:
        bases = [stack.enter_context(served(c["url"])) for c in cities]
        conns = [Conn(base, c["token"]) for base, c in zip(bases, cities, strict=True)]
        load = [round(os.getloadavg()[0], 1)]
        box = lambda b: ",".join(f"{v:.6f}" for v in b)  # noqa: E731
        api = interleaved(conns, [[f"/api/v1/parcels?limit=1000&bbox={box(b)}" for b in c["boxes"]]
                                  for c in cities])
        ogc = interleaved(conns, [[f"/ogc/collections/parcels/items?limit=1000&f=json&bbox={box(b)}"
                                   for b in c["boxes"]] for c in cities])
        for c, a, o in zip(cities, api, ogc, strict=True):
            c["out"]["api_bbox_page"] = dict(zip(("p50_ms", "p95_ms"), (round(v, 1) for v in percentiles(a)),
                                                 strict=True))
            c["out"]["ogc_bbox_page"] = dict(zip(("p50_ms", "p95_ms"), (round(v, 1) for v in percentiles(o)),
                                                 strict=True))
            c["out"]["tiles"] = {}
        for z in ZOOMS:
            tiles = interleaved(conns, [[f"/tiles/parcels/{z}/{x}/{y}.mvt" for _, x, y in c["tiles"][z]]
                                        for c in cities])
            for c, t in zip(cities, tiles, strict=True):
                p50, p95 = percentiles(t)
                c["out"]["tiles"][str(z)] = {"p50_ms": round(p50, 1), "p95_ms": round(p95, 1)}
        load.append(round(os.getloadavg()[0], 1))
    for c in cities:
        c["out"]["loadavg"] = load
    return [c["out"] for c in cities]


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
              f"{r['loadavg'][0]}–{r['loadavg'][1]} |")


def ratios(results: list[dict], small: int = 160_000) -> None:
    """Each larger city's p50 bbox page and p95 tiles ÷ the ``small`` city's (target ≤ 1.5)."""
    base = next((r for r in results if r["parcels"] == small), None)
    if base is None:
        return
    for r in results:
        if r["parcels"] <= small:
            continue
        parts = [f"API page p50 {r['api_bbox_page']['p50_ms'] / base['api_bbox_page']['p50_ms']:.2f}",
                 f"OGC page p50 {r['ogc_bbox_page']['p50_ms'] / base['ogc_bbox_page']['p50_ms']:.2f}"]
        parts += [f"tile p95 z{z} {r['tiles'][z]['p95_ms'] / base['tiles'][z]['p95_ms']:.2f}"
                  for z in ("14", "15", "16", "17")]
        print(f"\n{r['parcels']:,} ÷ {small:,}: " + "; ".join(parts) + " (target ≤ 1.5 each)")


def save(path: Path | None, results: list[dict]) -> None:
    """Write what is measured so far (a long run keeps it if it is stopped)."""
    if path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(results, indent=1) + "\n")
    print(json.dumps(results), file=sys.stderr, flush=True)


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
    print(f"[{time.strftime('%H:%M:%S')}] pages and tiles, {args.sizes} parcels, interleaved", file=sys.stderr,
          flush=True)
    results = measure(args.sizes, args.requests, args.tiles)
    save(args.json, results)
    if not args.no_rules:
        for size, r in zip(args.sizes, results, strict=True):
            print(f"[{time.strftime('%H:%M:%S')}] rules, {size:,} parcels", file=sys.stderr, flush=True)
            r["rules"] = rules_in_child(database_url("postgis", size))
            r["rules"]["loadavg"] = round(os.getloadavg()[0], 1)
            save(args.json, results)
    report(results)
    ratios(results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
