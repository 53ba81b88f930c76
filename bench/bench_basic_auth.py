"""HTTP Basic against a bearer token: an OGC page, and a GDAL copy of the parcels.

    .venv/bin/python -m bench.bench_basic_auth [--parcels 1200] [--engine spatialite] [--pairs 200] [--no-ogr]

GIS clients that only know passwords (QGIS 3.22) send HTTP Basic on every request and
page an OGC API collection ten features at a time. Without a cache each page paid one
scrypt (150–200 ms); the Basic cache (server/core/web/basic_cache.py) pays it once per
credential. Target: a page with Basic costs at most 1.2× the same page with a token,
and so does a whole ``ogr2ogr`` copy.

The page timing interleaves the two (Basic, token, Basic, token, …) over one keep-alive
connection each, so machine load falls on both alike; it reports medians and the median
of per-pair ratios. The copy runs ``ogr2ogr -f GPKG … OAPIF:…/ogc parcels`` with
``GDAL_HTTP_AUTH=BASIC`` + ``GDAL_HTTP_USERPWD`` against ``GDAL_HTTP_HEADERS`` with the
token, alternately, three times each.
"""

from __future__ import annotations

import argparse
import base64
import http.client
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse

from bench.common import BENCH_PASSWORD as PASSWORD
from bench.common import BENCH_USER as USER
from bench.common import bearer_token, database_url, ensure_city, served

PAGE = "/ogc/collections/parcels/items?limit=10&offset={offset}&f=json"


def _get(conn: http.client.HTTPConnection, path: str, headers: dict) -> float:
    start = time.perf_counter()
    conn.request("GET", path, headers=headers)
    resp = conn.getresponse()
    body = resp.read()
    elapsed = (time.perf_counter() - start) * 1000
    if resp.status != 200:
        raise SystemExit(f"{path}: HTTP {resp.status} {body[:300]!r}")
    return elapsed


def time_pages(base: str, basic: dict, bearer: dict, pairs: int) -> dict:
    parsed = urllib.parse.urlparse(base)
    conns = {name: http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=60) for name in ("basic", "bearer")}
    samples = {"basic": [], "bearer": []}
    for i in range(pairs + 5):
        path = PAGE.format(offset=(i * 10) % 1000)
        b = _get(conns["basic"], path, basic)
        t = _get(conns["bearer"], path, bearer)
        if i >= 5:  # warm-up: connections, the first Basic check, the page cache
            samples["basic"].append(b)
            samples["bearer"].append(t)
    for conn in conns.values():
        conn.close()
    ratios = [b / t for b, t in zip(samples["basic"], samples["bearer"], strict=True)]
    return {"basic_p50": statistics.median(samples["basic"]), "bearer_p50": statistics.median(samples["bearer"]),
            "ratio": statistics.median(ratios)}


def ogr_copy(base: str, env_extra: dict, out_dir: str) -> tuple[float, int]:
    target = os.path.join(out_dir, f"copy-{time.monotonic_ns()}.gpkg")
    env = {**os.environ, "GDAL_HTTP_UNSAFESSL": "NO", **env_extra}
    start = time.perf_counter()
    subprocess.run(["ogr2ogr", "-f", "GPKG", target, f"OAPIF:{base}/ogc", "parcels"], env=env, check=True,
                   capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    with sqlite3.connect(target) as gpkg:  # a GeoPackage is an SQLite file
        features = gpkg.execute("SELECT count(*) FROM parcels").fetchone()[0]
    os.remove(target)
    return elapsed, features


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parcels", type=int, default=1200)
    parser.add_argument("--engine", choices=("spatialite", "postgis"), default="spatialite")
    parser.add_argument("--pairs", type=int, default=200)
    parser.add_argument("--runs", type=int, default=3, help="ogr2ogr copies per login kind")
    parser.add_argument("--no-ogr", action="store_true")
    args = parser.parse_args()

    url = database_url(args.engine, args.parcels)
    ensure_city(url, args.parcels)
    token = bearer_token(url)
    basic = {"Authorization": "Basic " + base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()}
    bearer = {"Authorization": f"Bearer {token}"}
    with served(url) as base:
        pages = time_pages(base, basic, bearer, args.pairs)
        print(f"\nOGC page of 10 parcels ({args.engine}, {args.parcels:,} parcels, {args.pairs} interleaved pairs)\n")
        print("| login | p50 |\n|---|---|")
        print(f"| HTTP Basic | {pages['basic_p50']:.1f} ms |\n| bearer token | {pages['bearer_p50']:.1f} ms |")
        print(f"\nmedian Basic ÷ token per pair: {pages['ratio']:.2f} (target ≤ 1.2)")
        if args.no_ogr or shutil.which("ogr2ogr") is None:
            return 0
        runs = {"basic": [], "bearer": []}
        features = set()
        with tempfile.TemporaryDirectory() as out:
            for _ in range(args.runs):
                seconds, n = ogr_copy(base, {"GDAL_HTTP_AUTH": "BASIC", "GDAL_HTTP_USERPWD": f"{USER}:{PASSWORD}"}, out)
                runs["basic"].append(seconds)
                features.add(n)
                seconds, n = ogr_copy(base, {"GDAL_HTTP_HEADERS": f"Authorization: Bearer {token}"}, out)
                runs["bearer"].append(seconds)
                features.add(n)
        basic_s, bearer_s = statistics.median(runs["basic"]), statistics.median(runs["bearer"])
        print(f"\nogr2ogr copy of the parcels over OAPIF (features copied: {sorted(features)})\n")
        print("| login | median of runs | runs |\n|---|---|---|")
        for name, label in (("basic", "HTTP Basic"), ("bearer", "bearer token")):
            print(f"| {label} | {statistics.median(runs[name]):.2f} s | {', '.join(f'{s:.2f}' for s in runs[name])} |")
        print(f"\nBasic ÷ token: {basic_s / bearer_s:.2f} (target ≤ 1.2)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
