"""Issue 35, side by side in one run: first pages, tiles, concurrent GDAL copies, rules memory.

    .venv/bin/python -m bench.bench_speed [--parcels 160000] [--requests 100] [--tiles 50]
        [--copies 2,4] [--no-rules] [--json bench/results/speed_160k.json]
    .venv/bin/python -m bench.bench_speed --setup      # pygeoapi 0.21 and tipg 1.6 in the bench's own venv
    .venv/bin/python -m bench.bench_speed --smoke      # 2,000 parcels, a few requests: does it all run?

On the PostGIS bench city (``lateral_bench_<n>k``, seeded once), with gunicorn serving
Lateral as ``make run`` does (2 workers, 4 threads), and, where the bench's virtualenv
holds them (``LATERAL_BENCH_PYGEOAPI_VENV``, default ``../bench-venv``; never
``requirements.txt``), pygeoapi (gunicorn, 2 workers) and tipg (uvicorn, 2 workers) on
the same table:

1. **First page**: ``/items?limit=10`` without a bbox, ``--requests`` times, interleaved
   between the servers (medians of each); Lateral's carries ``numberMatched`` from the
   layer's trigger-kept count.
2. **Tiles z14-17**: ``--tiles`` tiles per zoom holding random parcels. Lateral cold (its
   tile cache emptied, untimed, before each tile: a miss every time, on one keep-alive
   connection) and warm (the same tiles again, under the bench user's token, session
   cookie and HTTP Basic password), tipg's
   ``/collections/public.parcels/tiles/WebMercatorQuad/{z}/{x}/{y}``, and each tile's own
   SQL on a bare connection. Each figure is the median of three passes' p50s.
3. **Concurrent copies**: ``--copies`` (2 and 4; 0 for none) ``ogr2ogr -f GPKG`` of the
   whole layer at once from Lateral (and pygeoapi), each copy's seconds and their total.
4. **Rules memory** (unless ``--no-rules``): ``flask rules run`` (what the job worker runs)
   as a child process, its peak RSS (``wait4``'s ``ru_maxrss``).

The load average (1, 5 and 15 minutes) is recorded before and after each part, and the
figures so far are written to ``--json`` after each (``"partial": true`` until the end), so
a run stopped part-way keeps what it measured. Results print as tables. The figures of
160,000 and 1,000,000 parcels on an idle machine are in bench/README.md, "Issue 35".
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import http.client
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from pathlib import Path

import sqlalchemy as sa

from bench.bench_copy import PYGEOAPI_VENV, log_mark, log_pages, ogr2ogr, pygeoapi_served, setup_pygeoapi
from bench.bench_tiles import random_tiles
from bench.common import (
    BENCH_PASSWORD,
    BENCH_USER,
    BIN,
    OUT,
    ROOT,
    bearer_token,
    database_url,
    ensure_city,
    finish,
    free_port,
    gunicorn,
    percentiles,
    time_paths,
    wait_for_port,
)

ZOOMS = (14, 15, 16, 17)
TIPG_PACKAGES = ("tipg==1.6.*", "uvicorn")


def setup() -> None:
    setup_pygeoapi()
    subprocess.run([str(PYGEOAPI_VENV / "bin" / "pip"), "install", "-q", *TIPG_PACKAGES], check=True)


@contextlib.contextmanager
def tipg_served(url: str):
    """tipg over the same database, or None when the bench venv has no tipg."""
    uvicorn = PYGEOAPI_VENV / "bin" / "uvicorn"
    if not uvicorn.exists() or not (PYGEOAPI_VENV / "bin" / "python").exists():
        yield None
        return
    u = sa.engine.make_url(url)
    port = free_port()
    env = {**os.environ, "DATABASE_URL": f"postgresql://{u.username or 'postgres'}@{u.host or '127.0.0.1'}:"
                                         f"{u.port or 5432}/{u.database}", "TIPG_DB_SCHEMAS": '["public"]'}
    env.pop("PYTHONPATH", None)
    proc = subprocess.Popen([str(uvicorn), "tipg.main:app", "--port", str(port), "--workers", "2"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for_port(port)
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(30)


def lateral_env(url: str, cache_dir: Path) -> dict:
    return {**os.environ, "DATABASE_URL": url, "PYTHONPATH": str(ROOT), "LATERAL_TILE_CACHE_DIR": str(cache_dir),
            "LATERAL_QUEUE_URI": f"sqlite:///{cache_dir.parent / 'queue.sqlite3'}"}


def first_pages(servers: dict, requests: int) -> dict:
    """Interleaved: one request to each server in turn, ``requests`` rounds."""
    samples: dict[str, list[float]] = {name: [] for name in servers}
    for base, headers, path in servers.values():  # each server's workers up and warm
        time_paths(base, headers, [path] * 3, warmup=3)
    for _ in range(requests):
        for name, (base, headers, path) in servers.items():
            ms, _ = time_paths(base, headers, [path], warmup=0)
            samples[name].extend(ms)
    return {name: dict(zip(("p50_ms", "p95_ms"), map(lambda v: round(v, 2), percentiles(s)), strict=True))
            for name, s in samples.items()}


def browser_and_qgis_logins(base: str) -> dict[str, dict]:
    """Headers of the bench user's other logins: a browser's session cookie (``POST /login``)
    and QGIS's HTTP Basic password. A map in the browser and QGIS ask for tiles this way."""
    parsed = urllib.parse.urlparse(base)
    conn = http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=60)
    conn.request("POST", "/login", body=urllib.parse.urlencode({"username": BENCH_USER, "password": BENCH_PASSWORD}),
                 headers={"Content-Type": "application/x-www-form-urlencoded"})
    resp = conn.getresponse()
    resp.read()
    conn.close()
    cookie = "; ".join(c.split(";", 1)[0] for c in resp.headers.get_all("Set-Cookie") or [])
    if resp.status != 302 or not cookie:
        raise SystemExit(f"{base}/login: HTTP {resp.status}, no session cookie")
    basic = base64.b64encode(f"{BENCH_USER}:{BENCH_PASSWORD}".encode()).decode()
    return {"session": {"Cookie": cookie}, "basic": {"Authorization": f"Basic {basic}"}}


PASSES = 3  # a tile figure is the median of this many passes' p50s: one pass moved by 0.5 ms from run to run


def _median_pass(base: str, headers: dict, paths: list[str], warmup: int = 0, before_each=None) -> float:
    """The median, over ``PASSES`` timed passes over ``paths``, of each pass's p50 (ms)."""
    return round(statistics.median(
        percentiles(time_paths(base, headers, paths, warmup=warmup, before_each=before_each)[0])[0]
        for _ in range(PASSES)), 2)


def tiles(base: str, headers: dict, tile_list: dict, cache_dir: Path | None, tipg: str | None) -> dict:
    out = {}
    others = browser_and_qgis_logins(base)
    for z, zoom_tiles in tile_list.items():
        paths = [f"/tiles/parcels/{z}/{x}/{y}.mvt" for _, x, y in zoom_tiles]
        # A miss each time: the folder emptied (untimed) before each tile, on one keep-alive
        # connection like the warm pass. Until 2026-12-04 each cold tile opened a connection
        # of its own, and its TCP handshake was timed with it (about 0.7 ms here).
        cold = _median_pass(base, headers, paths, warmup=1, before_each=(
            (lambda: shutil.rmtree(cache_dir, ignore_errors=True)) if cache_dir is not None else None))
        # The cold loop emptied the cache before each tile, so only its last tile is kept:
        # one untimed pass stores them all, then the timed passes read every one from the
        # cache (timed straight after the cold loop, most "warm" tiles were misses).
        time_paths(base, headers, paths, warmup=0)
        row = {"cold_p50_ms": cold, "warm_p50_ms": _median_pass(base, headers, paths)}
        for login, login_headers in others.items():  # the same kept tiles, asked by a browser and by QGIS
            row[f"warm_{login}_p50_ms"] = _median_pass(base, login_headers, paths, warmup=2)
        if tipg:
            tipg_paths = [f"/collections/public.parcels/tiles/WebMercatorQuad/{z}/{x}/{y}" for _, x, y in zoom_tiles]
            row["tipg_p50_ms"] = _median_pass(tipg, {}, tipg_paths, warmup=2)
        out[str(z)] = row
    return out


def tile_sql(url: str, tile_list: dict) -> dict:
    """Each tile's own SQL (``postgis_tile_statement``, what a cache miss runs), timed on one
    psycopg connection with no HTTP, app or cache around it: the floor a cold tile is
    compared with (issue 35: a cold tile costs at most 1.1x its SQL). p50 per zoom."""
    import psycopg
    from sqlalchemy.dialects import postgresql

    from server import create_app
    from server.network.layers import LAYERS
    from server.network.tiles.encode import postgis_tile_statement

    app = create_app({"SQLALCHEMY_DATABASE_URI": url, "SECRET_KEY": "bench-tile-sql-not-for-production"})
    sql: dict[int, list[str]] = {}
    with app.app_context():
        for z, zoom_tiles in tile_list.items():
            sql[z] = [str(postgis_tile_statement(LAYERS["parcels"], z, x, y).compile(
                dialect=postgresql.dialect(), compile_kwargs={"literal_binds": True})) for _, x, y in zoom_tiles]
    out = {}
    u = sa.engine.make_url(url)
    with psycopg.connect(host=u.host or "127.0.0.1", port=u.port or 5432, user=u.username or "postgres",
                         dbname=u.database, autocommit=True) as conn:
        for z, statements in sql.items():
            conn.execute(statements[0]).fetchone()  # the connection's first query pays for its setup

            p50s = []
            for _ in range(PASSES):  # as the tiles are timed: the median pass
                times = []
                for statement in statements:
                    start = time.perf_counter()
                    conn.execute(statement).fetchone()
                    times.append((time.perf_counter() - start) * 1000)
                p50s.append(percentiles(times)[0])
            out[str(z)] = round(statistics.median(p50s), 2)
    return out


def concurrent_copies(source: list[str], env: dict, n: int, tmp: str, budget_s: float | None = None,
                      log: Path | None = None) -> dict:
    """``n`` copies at once. A copy still running after ``budget_s`` is stopped (a peer whose
    offset pages would take hours); ``log`` (the peer's access log) then tells how many
    features it had served them by then."""
    done: list[dict] = []
    since = log_mark(log) if log else 0
    start = time.perf_counter()
    threads = [threading.Thread(target=lambda: done.append(ogr2ogr(source, env, tmp, timeout=budget_s)))
               for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - start
    out = {"copies": n, "seconds_each": sorted(d["seconds"] for d in done if d["seconds"] is not None),
           "features": [d["features"] for d in done], "wall_s": round(wall, 2)}
    stopped = [d for d in done if d["seconds"] is None]
    if stopped:
        out["stopped_after_s"] = budget_s
        out["stopped"] = len(stopped)
    if log:
        served = sum(p["limit"] for p in log_pages(log, since) if p["status"] == 200)
        out["features_served"] = served
        out["features_per_s"] = round(served / wall, 1)
    elif all(d["features"] for d in done):
        out["features_per_s"] = round(sum(d["features"] for d in done) / wall, 1)
    return out


def rules_peak_mib(url: str, env: dict) -> dict:
    """``flask rules run`` in a child: its peak RSS (``wait4``), seconds and what it printed.

    Its output goes to a file, not a pipe: a pipe nobody reads until ``wait4`` returns
    fills up and stops the run.
    """
    start = time.perf_counter()
    with tempfile.TemporaryFile("w+") as out:
        proc = subprocess.Popen([str(BIN / "flask"), "--app", "server", "rules", "run"], env=env, cwd=ROOT,
                                stdout=out, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(proc.pid, 0)
        out.seek(0)
        printed = out.read()
    if status:
        raise SystemExit(f"flask rules run failed: {printed[-1000:]}")
    said = [line for line in printed.splitlines() if line.startswith("rules run:")]
    return {"peak_mib": round(usage.ru_maxrss / 1024, 1), "seconds": round(time.perf_counter() - start, 1),
            "report": said[-1] if said else None}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--parcels", type=int, default=160_000)
    parser.add_argument("--requests", type=int, default=100)
    parser.add_argument("--tiles", type=int, default=50)
    parser.add_argument("--copies", default="2,4", help="copies at once, comma-separated; 0 for none")
    parser.add_argument("--smoke", action="store_true", help="2,000 parcels, few requests, one pair of copies")
    parser.add_argument("--setup", action="store_true")
    parser.add_argument("--no-rules", action="store_true", help="leave out the rules run's memory")
    parser.add_argument("--peer-copy-budget", type=float, default=900,
                        help="seconds after which a peer's copies are stopped (pygeoapi's offset pages take hours)")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    if args.setup:
        setup()
        return 0
    if args.smoke:
        args.parcels, args.requests, args.tiles, args.copies = 2_000, 10, 3, "2"
    url = database_url("postgis", args.parcels)
    ensure_city(url, args.parcels)
    token = bearer_token(url)
    bearer = {"Authorization": f"Bearer {token}"}
    gdal = subprocess.run(["ogr2ogr", "--version"], capture_output=True, text=True).stdout.strip()
    results: dict = {"parcels": args.parcels, "started_utc": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime()),
                     "machine": f"{platform.machine()}, {os.cpu_count()} cores, {platform.platform()}",
                     "gdal": gdal, "loadavg_at_start": [round(v, 1) for v in os.getloadavg()],
                     "peers": {"pygeoapi": (PYGEOAPI_VENV / "bin" / "pygeoapi").exists(),
                               "tipg": (PYGEOAPI_VENV / "bin" / "uvicorn").exists()}}
    say = lambda msg: print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)  # noqa: E731
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=OUT) as tmp, contextlib.ExitStack() as stack:
        cache_dir = Path(tmp) / "tiles"
        env = lateral_env(url, cache_dir)
        lat = stack.enter_context(gunicorn(BIN / "gunicorn", "server:create_app()", env, ROOT, workers=2,
                                           extra_args=("--threads", "4")))
        pyg = stack.enter_context(pygeoapi_served(url, _extent(url), OUT / "speed-pygeoapi.log")) \
            if results["peers"]["pygeoapi"] else None
        tipg = stack.enter_context(tipg_served(url))
        loads = results["loadavg_by_part"] = {}
        part = _load_recorder(loads, results, args.json)
        say("first pages")
        servers = {"lateral": (lat, bearer, "/ogc/collections/parcels/items?limit=10")}
        if pyg:
            servers["pygeoapi"] = (pyg, {}, urllib.parse.urlparse(pyg).path + "/collections/parcels/items?limit=10")
        if tipg:
            servers["tipg"] = (tipg, {}, "/collections/public.parcels/items?limit=10")
        with part("first_page"):
            results["first_page"] = first_pages(servers, args.requests)
        say("tiles")
        tile_list = random_tiles(url, args.tiles)
        with part("tiles"):
            results["tiles"] = tiles(lat, bearer, tile_list, cache_dir, tipg)
        with part("tile_sql"):
            for z, ms in tile_sql(url, tile_list).items():
                row = results["tiles"][z]
                row["sql_p50_ms"] = ms
                row["cold_over_sql"] = round(row["cold_p50_ms"] / ms, 2) if ms else None
                # What a miss adds to a hit (the HTTP, sign-in and version read both pay), over the SQL.
                row["miss_extra_over_sql"] = round((row["cold_p50_ms"] - row["warm_p50_ms"]) / ms, 2) if ms else None
                if "tipg_p50_ms" in row:
                    row["tipg_over_warm"] = round(row["tipg_p50_ms"] / row["warm_p50_ms"], 2)
        say("concurrent copies")
        copies = {}
        for n in (int(c) for c in args.copies.split(",") if c and c != "0"):
            results["copies"] = copies
            with part(f"copies_lateral_{n}"):
                copies[f"lateral_{n}"] = concurrent_copies([f"OAPIF:{lat}/ogc", "parcels"],
                                                           {"GDAL_HTTP_HEADERS": f"Authorization: Bearer {token}"},
                                                           n, tmp)
            if pyg:
                with part(f"copies_pygeoapi_{n}"):
                    copies[f"pygeoapi_{n}"] = concurrent_copies([f"OAPIF:{pyg}", "parcels"], {}, n, tmp,
                                                                budget_s=args.peer_copy_budget,
                                                                log=OUT / "speed-pygeoapi.log")
        results["copies"] = copies
    if not args.no_rules:
        say("rules memory")
        with part("rules_run"):
            results["rules_run"] = rules_peak_mib(url, {**os.environ, "DATABASE_URL": url, "PYTHONPATH": str(ROOT)})
    finish(results, report, args.json)
    return 0


def _loadavg() -> list[float]:
    return [round(v, 2) for v in os.getloadavg()]


def _load_recorder(loads: dict, results: dict, json_path: Path | None):
    """``with part(name):`` records the load average (1, 5, 15 min) before and after a part
    (the machine is shared, and a figure means little without it), then writes the figures
    so far to ``json_path``, so a run stopped later keeps them."""
    @contextlib.contextmanager
    def part(name: str):
        before = _loadavg()
        yield
        loads[name] = {"before": before, "after": _loadavg()}
        if json_path:
            json_path.parent.mkdir(parents=True, exist_ok=True)
            json_path.write_text(json.dumps({**results, "partial": True}, indent=1) + "\n")
    return part


def _extent(url: str):
    from bench.common import parcel_extent
    return parcel_extent(url)


def report(r: dict) -> None:
    print(f"\nIssue 35 at {r['parcels']:,} parcels ({r['started_utc']}–{r['finished_utc'][11:]} UTC, {r['machine']}, "
          f"{r['gdal']}, load {r['loadavg_at_start'][0]} → {r['loadavg_at_end'][0]})\n")
    print("| first page, `limit=10` | p50 | p95 |\n|---|---|---|")
    for name, v in r["first_page"].items():
        print(f"| {name} | {v['p50_ms']} ms | {v['p95_ms']} ms |")
    print("\n| zoom | tile SQL p50 | Lateral cold p50 | cold ÷ SQL | (cold − warm) ÷ SQL | Lateral warm p50 "
          "(token / session / Basic) | tipg p50 | tipg ÷ warm |\n|---|---|---|---|---|---|---|---|")
    for z, v in r["tiles"].items():
        print(f"| {z} | {v.get('sql_p50_ms', '—')} ms | {v['cold_p50_ms']} ms | {v.get('cold_over_sql', '—')} | "
              f"{v.get('miss_extra_over_sql', '—')} | {v['warm_p50_ms']} / {v.get('warm_session_p50_ms', '—')} / "
              f"{v.get('warm_basic_p50_ms', '—')} ms | {v.get('tipg_p50_ms', '—')} | {v.get('tipg_over_warm', '—')} |")
    print("\n| copies at once | each (s) | wall (s) | features a second, all copies |\n|---|---|---|---|")
    for name, v in r.get("copies", {}).items():
        stopped = f" ({v['stopped']} stopped after {v['stopped_after_s']:.0f} s)" if v.get("stopped") else ""
        print(f"| {name} | {', '.join(map(str, v['seconds_each'])) or '—'}{stopped} | {v['wall_s']} | "
              f"{v.get('features_per_s', '—')} |")
    rr = r.get("rules_run")
    if rr:
        print(f"\nflask rules run: peak {rr['peak_mib']} MiB, {rr['seconds']} s ({rr.get('report')})")
    print("\n| part | load average before (1, 5, 15 min) | after |\n|---|---|---|")
    for name, v in r.get("loadavg_by_part", {}).items():
        print(f"| {name} | {v['before']} | {v['after']} |")
    if not all(r["peers"].values()):
        print(f"\n(peers missing from {PYGEOAPI_VENV}: {[k for k, v in r['peers'].items() if not v]}; "
              "python -m bench.bench_speed --setup)")


if __name__ == "__main__":
    raise SystemExit(main())
