"""Copying the whole parcel layer with ogr2ogr: Lateral's /ogc, the PG: floor, pygeoapi.

    .venv/bin/python -m bench.bench_copy [--parcels 160000] [--prefix 5000] [--pygeoapi-full]
                                         [--samples 30] [--no-basic] [--json bench/results/copy_160k.json]

Everything in one run, on the 160,000-parcel demo city in PostgreSQL
(``lateral_bench_160k``, seeded on first use by ``bench.common.ensure_city``):

1. **The copies** (``ogr2ogr -f GPKG``, GDAL's default page size, which the access log shows):
   - Lateral: ``OAPIF:<lateral>/ogc parcels`` with the bench user's token
     (``GDAL_HTTP_HEADERS="Authorization: Bearer …"``);
   - the floor: ``PG:`` straight from the table, the same columns Lateral serves
     (``-sql "SELECT id, <properties>, geom FROM parcels"``);
   - pygeoapi serving the same table (its PostgreSQL provider, gunicorn with the same two
     workers): the first ``--prefix`` features (``ogr2ogr -limit``), and the whole layer
     only with ``--pygeoapi-full`` (otherwise estimated from a second, shorter prefix, which
     gives the fixed cost); Lateral's copy of the same prefix is timed beside it;
   - Lateral again with HTTP Basic (``GDAL_HTTP_AUTH=BASIC``), for issue 15's ≤ 1.2× target.
2. **The walk**: Lateral runs under gunicorn with an access log (``%(D)s``: the server's
   own time per request), so each page of the copy is seen; the first and the last page
   of the walk are then asked again ``--samples`` times, interleaved, for their p50s.
3. **Page cost along the walk** for both servers: ``?limit=<GDAL's page>&offset=o`` at
   offsets from 0 to the end (what pygeoapi's ``next`` links and old clients send); from
   these and pygeoapi's measured prefix the script *estimates* pygeoapi's whole copy
   (labelled as an estimate wherever printed).
4. **Offset pages, same queries**: ``?bbox=…&offset=1000&limit=1000`` over random
   windows (the issue's query), and whole-layer ``?limit=<page>&offset=o``, asked of
   Lateral and pygeoapi in turn.
5. **Compression**: a 1,000-feature bbox page with and without ``Accept-Encoding: gzip``:
   bytes on the wire and time to receive them.

pygeoapi lives in a bench-only virtualenv outside the repository (never in
requirements.txt), by default ``../bench-venv`` beside the checkout
(``LATERAL_BENCH_PYGEOAPI_VENV`` to move it); ``--setup`` creates it:
``python3 -m venv ../bench-venv && ../bench-venv/bin/pip install pygeoapi==0.21.0
psycopg2-binary geoalchemy2 gunicorn``. Its configuration is written by
``bench.bench_tiles._config`` (a minimal one of our own).
"""

from __future__ import annotations

import argparse
import gzip
import http.client
import json
import os
import random
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
from contextlib import contextmanager
from pathlib import Path

import sqlalchemy as sa

from bench.bench_api import windows
from bench.bench_tiles import _config, _parcel_properties
from bench.common import (
    BIN,
    OUT,
    ROOT,
    bearer_token,
    database_url,
    ensure_city,
    finish,
    free_port,
    gunicorn,
    parcel_extent,
    percentiles,
)

PARCELS = 160_000
USER, PASSWORD = "bench", "bench-password-315"  # bench.common.bearer_token's user
PYGEOAPI_VENV = Path(os.environ.get("LATERAL_BENCH_PYGEOAPI_VENV", ROOT.parent / "bench-venv"))
PYGEOAPI_PACKAGES = ("pygeoapi==0.21.0", "psycopg2-binary", "geoalchemy2", "gunicorn")
# The last field is the Server-Timing header, if any ("-" otherwise).
LOG_FORMAT = '%(m)s %(U)s?%(q)s %(s)s %(D)s %(B)s %({server-timing}o)s'


def setup_pygeoapi() -> None:
    if not (PYGEOAPI_VENV / "bin" / "pip").exists():
        subprocess.run(["python3", "-m", "venv", str(PYGEOAPI_VENV)], check=True)
    subprocess.run([str(PYGEOAPI_VENV / "bin" / "pip"), "install", "-q", *PYGEOAPI_PACKAGES], check=True)


def gunicorn_logged(gunicorn_bin: Path, app: str, env: dict, cwd, log: Path, workers: int = 2, port=None):
    """``app`` under gunicorn on loopback with an access log giving each request's server time (µs)."""
    return gunicorn(gunicorn_bin, app, env, cwd, workers=workers, port=port,
                    extra_args=("--access-logfile", str(log), "--access-logformat", LOG_FORMAT))


def lateral_served(url: str, log: Path):
    env = {**os.environ, "DATABASE_URL": url, "PYTHONPATH": str(ROOT)}
    return gunicorn_logged(BIN / "gunicorn", "server:create_app()", env, ROOT, log)


@contextmanager
def pygeoapi_served(url: str, extent, log: Path):
    bin_dir = PYGEOAPI_VENV / "bin"
    if not (bin_dir / "pygeoapi").exists():
        raise SystemExit(f"pygeoapi is not installed in {PYGEOAPI_VENV}; run this script with --setup")
    port = free_port()
    OUT.mkdir(parents=True, exist_ok=True)
    config, openapi = OUT / "pygeoapi-copy-config.yml", OUT / "pygeoapi-copy-openapi.yml"
    config.write_text(_config(url, port, extent))
    env = {**os.environ, "PYGEOAPI_CONFIG": str(config), "PYGEOAPI_OPENAPI": str(openapi)}
    env.pop("PYTHONPATH", None)
    subprocess.run([str(bin_dir / "pygeoapi"), "openapi", "generate", str(config), "--output-file", str(openapi)],
                   env=env, check=True, capture_output=True)
    with gunicorn_logged(bin_dir / "gunicorn", "pygeoapi.flask_app:APP", env, OUT, log, port=port) as base:
        yield base


# ---------------------------------------------------------------------------- copies
def ogr2ogr(source: list[str], env_extra: dict, out_dir: str, extra: tuple[str, ...] = (),
            timeout: float | None = None) -> dict:
    """One ``ogr2ogr -f GPKG`` copy; its wall time and the features in the GeoPackage, or
    ``seconds`` None when ``timeout`` stopped it first."""
    target = os.path.join(out_dir, f"copy-{time.monotonic_ns()}.gpkg")
    env = {**os.environ, **env_extra}
    start = time.perf_counter()
    try:
        run = subprocess.run(["ogr2ogr", "-f", "GPKG", target, *source, *extra], env=env, capture_output=True,
                             text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        if os.path.exists(target):
            os.remove(target)
        return {"seconds": None, "features": None}
    seconds = time.perf_counter() - start
    if run.returncode:
        raise SystemExit(f"ogr2ogr {source}: {run.stderr[-1000:]}")
    with sqlite3.connect(target) as gpkg:
        table = gpkg.execute("SELECT table_name FROM gpkg_contents").fetchone()[0]
        features = gpkg.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0]
    os.remove(target)
    return {"seconds": round(seconds, 2), "features": features}


def pg_source(url: str) -> list[str]:
    u = sa.engine.make_url(url)
    columns = ", ".join(["id", *_parcel_properties(), "geom"])
    return [f"PG:host={u.host or '127.0.0.1'} port={u.port or 5432} dbname={u.database} "
            f"user={u.username or 'postgres'}", "-sql", f"SELECT {columns} FROM parcels", "-nln", "parcels"]


def log_mark(log: Path) -> int:
    return log.stat().st_size if log.exists() else 0


def log_pages(log: Path, since: int, until: int | None = None) -> list[dict]:
    """The collection-items requests logged between two marks, in order."""
    with log.open("rb") as f:
        f.seek(since)
        text = f.read(None if until is None else until - since).decode()
    pages = []
    for line in text.splitlines():
        parts = line.split()
        if len(parts) < 5 or "/items" not in parts[1]:
            continue
        path = parts[1].removesuffix("?")
        query = urllib.parse.parse_qs(urllib.parse.urlparse(path).query)
        pages.append({"path": path, "status": int(parts[2]), "server_ms": int(parts[3]) / 1000,
                      "bytes": int(parts[4]) if parts[4].isdigit() else 0,
                      "limit": int(query.get("limit", ["0"])[0])})
    return pages


# ---------------------------------------------------------------------------- timing
class Client:
    """One keep-alive connection; ``get`` returns (ms, body, headers)."""

    def __init__(self, base: str, headers: dict):
        parsed = urllib.parse.urlparse(base)
        self.conn = http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=300)
        self.headers = headers

    def get(self, path: str, extra: dict | None = None) -> tuple[float, bytes, dict]:
        start = time.perf_counter()
        self.conn.request("GET", path, headers={**self.headers, **(extra or {})})
        resp = self.conn.getresponse()
        body = resp.read()
        elapsed = (time.perf_counter() - start) * 1000
        if resp.status != 200:
            raise SystemExit(f"{path}: HTTP {resp.status} {body[:300]!r}")
        return elapsed, body, dict(resp.getheaders())


def interleaved(jobs: dict, n: int, warmup: int = 3) -> dict[str, list[float]]:
    """Each job ``fn(i) -> ms`` for i in range(n), the jobs in rotating order; warm-ups dropped."""
    names = list(jobs)
    times: dict[str, list[float]] = {name: [] for name in names}
    for i in [*range(warmup), *range(n)]:
        order = names[i % len(names):] + names[:i % len(names)]
        for name in order:
            times[name].append(jobs[name](i))
    return {name: samples[warmup:] for name, samples in times.items()}


def summary(samples: list[float]) -> dict:
    p50, p95 = percentiles(samples)
    return {"p50_ms": round(p50, 1), "p95_ms": round(p95, 1), "n": len(samples)}


def fmt_s(seconds: float) -> str:
    return f"{seconds / 60:.1f} min ({seconds:.0f} s)" if seconds >= 120 else f"{seconds:.1f} s"


# ---------------------------------------------------------------------------- main
def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--parcels", type=int, default=PARCELS)
    parser.add_argument("--prefix", type=int, default=5_000,
                        help="features of pygeoapi's measured prefix copy (and a fifth of it, for the fixed cost)")
    parser.add_argument("--pygeoapi-full", action="store_true", help="copy the whole layer from pygeoapi too")
    parser.add_argument("--samples", type=int, default=30, help="requests per timed query set")
    parser.add_argument("--no-basic", action="store_true", help="skip the HTTP Basic copy")
    parser.add_argument("--setup", action="store_true", help="create pygeoapi's virtualenv first")
    parser.add_argument("--json", type=Path, help="write the raw figures here")
    parser.add_argument("--auth-runs", type=int, default=2, help="--parts auth: copies per login kind")
    parser.add_argument("--parts", choices=("all", "copies", "rest", "auth"), default="all",
                        help="copies: the PG: floor, Lateral's token and Basic copies and the walk; rest: "
                             "pygeoapi's prefixes, offset pages and gzip (two processes can then share a deadline); "
                             "auth: Basic against token copies of the first --prefix features, alternately")
    parser.add_argument("--page-size", type=int, default=10,
                        help="GDAL's page for the offset pages when the copies are not run (GDAL 3.6: 10)")
    args = parser.parse_args()
    if args.setup:
        setup_pygeoapi()

    url = database_url("postgis", args.parcels)
    ensure_city(url, args.parcels)
    token = bearer_token(url)
    extent = parcel_extent(url)
    engine = sa.create_engine(url)
    with engine.connect() as conn:
        total = conn.execute(sa.text("SELECT count(*) FROM parcels")).scalar()
    engine.dispose()
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    load = os.getloadavg()
    results: dict = {"parcels": total, "commit": commit, "started_utc": time.strftime("%Y-%m-%d %H:%M:%S",
                                                                                       time.gmtime()),
                     "loadavg_at_start": [round(v, 1) for v in load]}
    token_env = {"GDAL_HTTP_HEADERS": f"Authorization: Bearer {token}"}
    basic_env = {"GDAL_HTTP_AUTH": "BASIC", "GDAL_HTTP_USERPWD": f"{USER}:{PASSWORD}"}
    bearer = {"Authorization": f"Bearer {token}"}
    lat_log, pg_log = OUT / "copy-lateral-access.log", OUT / "copy-pygeoapi-access.log"
    OUT.mkdir(parents=True, exist_ok=True)
    for log in (lat_log, pg_log):
        log.unlink(missing_ok=True)

    def say(msg: str) -> None:
        print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)
        if args.json:  # what is measured so far, kept if a long run is stopped
            args.json.parent.mkdir(parents=True, exist_ok=True)
            args.json.write_text(json.dumps(results, indent=1) + "\n")

    with tempfile.TemporaryDirectory() as tmp, lateral_served(url, lat_log) as lat, \
            pygeoapi_served(url, extent, pg_log) as pyg:
        lat_src, pyg_src = [f"OAPIF:{lat}/ogc", "parcels"], [f"OAPIF:{pyg}", "parcels"]

        page_size = args.page_size
        if args.parts in ("all", "copies"):
            say("PG: floor copy")
            results["pg_floor"] = ogr2ogr(pg_source(url), {}, tmp)
            say(f"  {results['pg_floor']}")

            say("Lateral copy, token")
            mark = log_mark(lat_log)
            results["lateral_token"] = ogr2ogr(lat_src, token_env, tmp)
            time.sleep(1)  # let gunicorn flush its log
            walk = [p for p in log_pages(lat_log, mark) if p["status"] == 200]
            say(f"  {results['lateral_token']}, {len(walk)} item requests")
            page_size = statistics.mode(p["limit"] for p in walk)  # GDAL's default page
            full = [p for p in walk if p["limit"] == page_size]
            results["walk"] = {
                "requests": len(walk), "page_size": page_size,
                "first_paths": [p["path"] for p in full[:3]], "last_paths": [p["path"] for p in full[-3:]],
                "server_ms_first_100_p50": round(statistics.median(p["server_ms"] for p in full[:100]), 2),
                "server_ms_last_100_p50": round(statistics.median(p["server_ms"] for p in full[-100:]), 2),
                "server_ms_all_p50": round(statistics.median(p["server_ms"] for p in full), 2),
                "server_ms_all_sum_s": round(sum(p["server_ms"] for p in walk) / 1000, 1),
                "bytes_p50": statistics.median(p["bytes"] for p in full),
            }
            # The first and the last full page of the walk, asked again, interleaved.
            first_path, last_path = full[0]["path"], full[-2]["path"] if len(full) > 1 else full[-1]["path"]
            c1, c2 = Client(lat, bearer), Client(lat, bearer)
            ends = interleaved({"first": lambda i: c1.get(first_path)[0], "last": lambda i: c2.get(last_path)[0]},
                               args.samples)
            results["walk"]["replay_first"] = summary(ends["first"])
            results["walk"]["replay_last"] = summary(ends["last"])
            results["walk"]["replay_last_div_first"] = round(
                statistics.median(a / b for a, b in zip(ends["last"], ends["first"], strict=True)), 2)
            say(f"  walk: {results['walk']}")

            if not args.no_basic:
                say("Lateral copy, HTTP Basic")
                results["lateral_basic"] = ogr2ogr(lat_src, basic_env, tmp)
                say(f"  {results['lateral_basic']}")

        results["page_size"] = page_size
        if args.parts in ("all", "rest"):
            prefix = ("-limit", str(args.prefix))
            say(f"pygeoapi prefix copies ({args.prefix // 5:,} and {args.prefix:,} features), Lateral's of the larger")
            results["pygeoapi_short_prefix"] = ogr2ogr(pyg_src, {}, tmp, ("-limit", str(args.prefix // 5)))
            mark = log_mark(pg_log)
            results["pygeoapi_prefix"] = ogr2ogr(pyg_src, {}, tmp, prefix)
            time.sleep(1)
            pyg_walk = [p for p in log_pages(pg_log, mark) if p["status"] == 200]
            results["pygeoapi_prefix"]["requests"] = len(pyg_walk)
            results["pygeoapi_prefix"]["page_size"] = (statistics.mode(p["limit"] for p in pyg_walk)
                                                       if pyg_walk else None)
            results["lateral_prefix"] = ogr2ogr(lat_src, token_env, tmp, prefix)
            say(f"  pygeoapi {results['pygeoapi_prefix']}, Lateral {results['lateral_prefix']}")
            if args.pygeoapi_full:
                say("pygeoapi full copy")
                results["pygeoapi_full"] = ogr2ogr(pyg_src, {}, tmp)
                say(f"  {results['pygeoapi_full']}")

            # Page cost along the walk: offset pages of GDAL's size, both servers, interleaved.
            say("offset pages along the walk")
            fractions = [0.0, 0.25, 0.5, 0.75, 0.99]
            lat_c, pyg_c = Client(lat, bearer), Client(pyg, {"Accept": "application/geo+json"})
            along = {}
            for fr in fractions:
                offset = int(fr * total) // page_size * page_size
                q = f"?limit={page_size}&offset={offset}"
                t = interleaved({"lateral": lambda i, q=q: lat_c.get(f"/ogc/collections/parcels/items{q}&f=json")[0],
                                 "pygeoapi": lambda i, q=q: pyg_c.get(f"/collections/parcels/items{q}&f=json")[0]},
                                max(5, args.samples // 3), warmup=1)
                along[str(offset)] = {"lateral_p50_ms": round(statistics.median(t["lateral"]), 1),
                                      "pygeoapi_p50_ms": round(statistics.median(t["pygeoapi"]), 1)}
            results["offset_pages_along_walk"] = along
            if "pygeoapi_full" not in results:
                # Estimate: the two prefixes give a fixed cost (GDAL reading the API description
                # and so on) and a cost per feature at the start of the walk; the per-feature
                # cost is scaled by how much dearer pygeoapi's pages get further in (mean of the
                # sampled p50s along the walk ÷ the p50 at offset 0).
                costs = [v["pygeoapi_p50_ms"] for v in along.values()]
                growth = statistics.mean(costs) / costs[0]
                short, long_ = results["pygeoapi_short_prefix"], results["pygeoapi_prefix"]
                per_feature = (long_["seconds"] - short["seconds"]) / (long_["features"] - short["features"])
                fixed = max(0.0, long_["seconds"] - per_feature * long_["features"])
                results["pygeoapi_full_estimate"] = {
                    "seconds": round(fixed + per_feature * total * growth, 0), "growth_factor": round(growth, 2),
                    "fixed_s": round(fixed, 1), "ms_per_feature_at_start": round(per_feature * 1000, 2),
                    "how": "fixed + seconds per feature (from two prefix copies) × all features × (mean sampled "
                           "page p50 over offsets 0–99 % ÷ page p50 at offset 0); an estimate, not a measurement"}

            # Offset pages on the same queries: the bbox query, then whole-layer pages.
            say("offset pages, same queries")
            boxes = windows(url, args.samples, seed=5)
            bq = ["?bbox=" + ",".join(f"{v:.6f}" for v in b) + "&offset=1000&limit=1000" for b in boxes]
            rng = random.Random(11)
            offsets = [rng.randrange(0, total - page_size) for _ in range(args.samples)]
            lq = [f"?limit={page_size}&offset={o}" for o in offsets]
            for name, qs in (("bbox_offset1000_limit1000", bq), (f"layer_offset_limit{page_size}", lq)):
                t = interleaved({
                    "lateral": lambda i, qs=qs: lat_c.get(f"/ogc/collections/parcels/items{qs[i]}&f=json")[0],
                    "pygeoapi": lambda i, qs=qs: pyg_c.get(f"/collections/parcels/items{qs[i]}&f=json")[0]},
                    len(qs))
                results[f"offset_{name}"] = {
                    "lateral": summary(t["lateral"]), "pygeoapi": summary(t["pygeoapi"]),
                    "lateral_div_pygeoapi_median_of_pairs": round(statistics.median(
                        a / b for a, b in zip(t["lateral"], t["pygeoapi"], strict=True)), 2)}
                say(f"  {name}: {results[f'offset_{name}']}")

            # Compression of a 1,000-feature bbox page.
            say("gzip")
            gq = ["?bbox=" + ",".join(f"{v:.6f}" for v in b) + "&limit=1000" for b in windows(url, args.samples,
                                                                                                seed=9)]
            sizes: dict[str, list[int]] = {"gzip": [], "identity": []}
            enc: set[str] = set()

            def fetch(kind: str, i: int) -> float:
                ms, body, headers = lat_c.get(f"/ogc/collections/parcels/items{gq[i]}&f=json",
                                              {"Accept-Encoding": kind})
                sizes[kind].append(len(body))
                if kind == "gzip":
                    enc.add(headers.get("Content-Encoding", "none"))
                    if headers.get("Content-Encoding") == "gzip":
                        gzip.decompress(body)  # it must be whole
                return ms

            t = interleaved({"gzip": lambda i: fetch("gzip", i), "identity": lambda i: fetch("identity", i)},
                            len(gq))
            results["gzip_bbox_page_1000"] = {
                "content_encoding_returned": sorted(enc),
                "gzip": {**summary(t["gzip"]), "bytes_p50": statistics.median(sizes["gzip"])},
                "identity": {**summary(t["identity"]), "bytes_p50": statistics.median(sizes["identity"])}}
            say(f"  {results['gzip_bbox_page_1000']}")

        if args.parts == "auth":
            # HTTP Basic against the token on the same first features, alternately (issue 15).
            say(f"Basic and token copies of the first {args.prefix:,} features, alternately, "
                f"{args.auth_runs} each")
            runs: dict[str, list[float]] = {"basic": [], "token": []}
            for _ in range(args.auth_runs):
                for name, env in (("basic", basic_env), ("token", token_env)):
                    runs[name].append(ogr2ogr(lat_src, env, tmp, ("-limit", str(args.prefix)))["seconds"])
                    say(f"  {name}: {runs[name][-1]} s")
            results["auth_prefix"] = {"features": args.prefix, "basic_s": runs["basic"], "token_s": runs["token"],
                                      "basic_div_token": round(statistics.median(runs["basic"])
                                                               / statistics.median(runs["token"]), 2)}
            say(f"  {results['auth_prefix']}")
    finish(results, report, args.json)
    return 0


def report(r: dict) -> None:  # noqa: C901 - one table after another, each if it was measured
    print(f"\nogr2ogr -f GPKG of {r['parcels']:,} parcels (commit {r['commit']}, {r['started_utc']} UTC, "
          f"load average {r['loadavg_at_start'][0]} → {r['loadavg_at_end'][0]})\n")
    print("| copy | features | wall time |\n|---|---|---|")
    w = r.get("walk", {})
    if "pg_floor" in r:
        print(f"| `PG:` straight from the table (floor) | {r['pg_floor']['features']:,} | "
              f"{fmt_s(r['pg_floor']['seconds'])} |")
        print(f"| Lateral `/ogc`, token, GDAL's page of {w['page_size']} ({w['requests']:,} requests) | "
              f"{r['lateral_token']['features']:,} | {fmt_s(r['lateral_token']['seconds'])} |")
    if "lateral_basic" in r:
        print(f"| Lateral `/ogc`, HTTP Basic | {r['lateral_basic']['features']:,} | "
              f"{fmt_s(r['lateral_basic']['seconds'])} |")
    if "pygeoapi_prefix" in r:
        pp, lp, ps = r["pygeoapi_prefix"], r["lateral_prefix"], r["pygeoapi_short_prefix"]
        print(f"| pygeoapi, first {ps['features']:,} features | {ps['features']:,} | {fmt_s(ps['seconds'])} |")
        print(f"| pygeoapi, first {pp['features']:,} features ({pp['requests']:,} requests of "
              f"{pp['page_size']}) | {pp['features']:,} | {fmt_s(pp['seconds'])} |")
        print(f"| Lateral, the same first {lp['features']:,} features | {lp['features']:,} | "
              f"{fmt_s(lp['seconds'])} |")
        if "pygeoapi_full" in r:
            print(f"| pygeoapi, whole layer | {r['pygeoapi_full']['features']:,} | "
                  f"{fmt_s(r['pygeoapi_full']['seconds'])} |")
        else:
            e = r["pygeoapi_full_estimate"]
            print(f"| pygeoapi, whole layer: **estimate**, not measured ({e['fixed_s']} s fixed + "
                  f"{e['ms_per_feature_at_start']} ms a feature × {e['growth_factor']} for dearer late pages) | "
                  f"— | ≈ {fmt_s(e['seconds'])} |")
        print(f"\npygeoapi ÷ Lateral, same prefix: **{pp['seconds'] / lp['seconds']:.1f}** (measured; target ≥ 3).")
    if "pg_floor" in r:
        lat = r["lateral_token"]["seconds"]
        print(f"\nLateral ÷ PG floor: **{lat / r['pg_floor']['seconds']:.2f}** (target ≤ 3).")
        if "pygeoapi_prefix" in r:
            pyg_full = r.get("pygeoapi_full", {}).get("seconds") or r["pygeoapi_full_estimate"]["seconds"]
            print(f"pygeoapi ÷ Lateral, whole layer: {pyg_full / lat:.1f} "
                  f"({'measured' if 'pygeoapi_full' in r else 'pygeoapi estimated'}) (target ≥ 3).")
        if "lateral_basic" in r:
            print(f"HTTP Basic ÷ token, whole copy: **{r['lateral_basic']['seconds'] / lat:.2f}** (target ≤ 1.2).")
        print(f"\nThe walk: {w['requests']:,} item requests of {w['page_size']}; server time per page (access "
              f"log) p50 first 100 {w['server_ms_first_100_p50']} ms, last 100 {w['server_ms_last_100_p50']} ms, "
              f"all {w['server_ms_all_p50']} ms; all pages {w['server_ms_all_sum_s']} s of server time. "
              f"First page asked again: p50 {w['replay_first']['p50_ms']} ms; last page: "
              f"{w['replay_last']['p50_ms']} ms; last ÷ first (median of pairs) **{w['replay_last_div_first']}** "
              f"(target ≤ 1.5).")
    if "offset_pages_along_walk" in r:
        print(f"\nOffset pages of {r['page_size']} along the layer, p50 ms:\n")
        print("| offset | Lateral | pygeoapi |\n|---|---|---|")
        for offset, v in r["offset_pages_along_walk"].items():
            print(f"| {int(offset):,} | {v['lateral_p50_ms']} | {v['pygeoapi_p50_ms']} |")
        print("\nOffset pages, same queries, interleaved:\n")
        print("| query | Lateral p50 / p95 | pygeoapi p50 / p95 | Lateral ÷ pygeoapi (median of pairs) |")
        print("|---|---|---|---|")
        for key in [k for k in r if k.startswith("offset_") and k != "offset_pages_along_walk"]:
            v = r[key]
            print(f"| `{key.removeprefix('offset_')}` | {v['lateral']['p50_ms']} / {v['lateral']['p95_ms']} ms | "
                  f"{v['pygeoapi']['p50_ms']} / {v['pygeoapi']['p95_ms']} ms | "
                  f"{v['lateral_div_pygeoapi_median_of_pairs']} |")
    if "auth_prefix" in r:
        a = r["auth_prefix"]
        print(f"\nFirst {a['features']:,} features, alternately: HTTP Basic {a['basic_s']} s, token {a['token_s']} s; "
              f"Basic ÷ token (medians) **{a['basic_div_token']}** (target ≤ 1.2).")
    if "gzip_bbox_page_1000" in r:
        g = r["gzip_bbox_page_1000"]
        print(f"\n1,000-feature bbox page (Content-Encoding returned: {', '.join(g['content_encoding_returned'])})"
              ":\n")
        print("| Accept-Encoding | bytes (p50) | p50 | p95 |\n|---|---|---|---|")
        for kind in ("identity", "gzip"):
            print(f"| {kind} | {g[kind]['bytes_p50']:,.0f} | {g[kind]['p50_ms']} ms | {g[kind]['p95_ms']} ms |")


if __name__ == "__main__":
    sys.exit(main())
