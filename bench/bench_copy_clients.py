"""Whole-layer copies by two GDALs at their own page sizes, against the floors under them.

    .venv/bin/python -m bench.bench_copy_clients [--parcels 160000] [--rounds 3] [--json FILE]
        [--no-page-10] [--no-pygeoapi]

Issue 17's copy target (Lateral's ``ogr2ogr`` copy ≤ 3 × the ``PG:`` floor, at GDAL's
default page size) depends on which GDAL: Debian 12's ``ogr2ogr`` (GDAL 3.6.2) asks for
10 features a page, whatever the server says; GDAL 3.9 and later read the API
definition's ``limit`` and ask for 1,000 here (pyogrio's libgdal, 3.12, run as
``ogr2ogr`` by ``bench.gdal_translate``). Each round copies the 160,000 parcels to a
GeoPackage, in turn:

1. ``PG:`` straight from the table with Debian's ``ogr2ogr`` (the floor of the issue);
2. Lateral's ``/ogc`` with each GDAL at its default page, and with GDAL 3.6 at
   ``-oo PAGE_SIZE=1000``;
3. the same copies from **the HTTP floor**: Lateral's own pages at that page size, saved
   once and served by nginx as files (``bench.static_pages``). No server can answer
   faster than nginx reading a file, so a copy from there is the least that client costs
   at that page size: the floor under any OGC API – Features server;
4. where pygeoapi's bench virtualenv exists (``bench.bench_copy --setup`` makes it), the
   same whole-layer copies from **pygeoapi** serving the same table, with GDAL 3.12 at
   the page it reads from pygeoapi's API definition (1,000 here) and GDAL 3.6 at
   ``PAGE_SIZE=1000``. GDAL 3.6's default page of 10 from pygeoapi (16,001 offset
   requests, most of an hour) is left out.

Lateral runs as ``make run`` runs it (gunicorn, 2 workers, 4 threads) with an access log,
so each copy's pages and their server time are counted (there is no read-ahead any more:
issue #35). The figures are the medians over ``--rounds`` rounds; the ratios are of medians.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.bench_copy import (
    LOG_FORMAT,
    PYGEOAPI_VENV,
    fmt_s,
    log_mark,
    log_pages,
    ogr2ogr,
    pg_source,
    pygeoapi_served,
)
from bench.common import BIN, OUT, ROOT, bearer_token, database_url, ensure_city, finish, gunicorn, parcel_extent
from bench.static_pages import mirrored

PARCELS = 160_000


def modern_gdal(source: str, env_extra: dict, out_dir: str) -> dict:
    """``ogr2ogr -f GPKG`` through pyogrio's libgdal; its seconds, features and version."""
    target = os.path.join(out_dir, f"copy-{time.monotonic_ns()}.gpkg")
    done = subprocess.run([sys.executable, "-m", "bench.gdal_translate", source, "parcels", target],
                          env={**os.environ, **env_extra, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"gdal_translate {source}: {done.stderr[-1000:]}")
    os.remove(target)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--parcels", type=int, default=PARCELS)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--no-pygeoapi", action="store_true", help="leave out the copies from pygeoapi")
    parser.add_argument("--no-page-10", action="store_true",
                        help="leave out GDAL 3.6's copies at its page of 10 (16,001 requests each, most of the run)")
    args = parser.parse_args()

    url = database_url("postgis", args.parcels)
    ensure_city(url, args.parcels)
    token = bearer_token(url)
    bearer = {"Authorization": f"Bearer {token}"}
    old_gdal_env = {"GDAL_HTTP_HEADERS": f"Authorization: Bearer {token}"}  # GDAL 3.6
    new_gdal_env = {"GDAL_HTTP_AUTH": "BEARER", "GDAL_HTTP_BEARER": token}  # GDAL 3.9+ (ignores HEADERS)
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    results: dict = {"parcels": args.parcels, "commit": commit, "rounds": args.rounds,
                     "started_utc": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime()),
                     "loadavg_at_start": [round(v, 1) for v in os.getloadavg()], "copies": {}}
    log = OUT / "copy-clients-access.log"
    OUT.mkdir(parents=True, exist_ok=True)
    log.unlink(missing_ok=True)
    env = {**os.environ, "DATABASE_URL": url, "PYTHONPATH": str(ROOT)}
    with_pygeoapi = not args.no_pygeoapi and (PYGEOAPI_VENV / "bin" / "pygeoapi").exists()
    if not args.no_pygeoapi and not with_pygeoapi:
        print(f"no pygeoapi in {PYGEOAPI_VENV} (LATERAL_BENCH_PYGEOAPI_VENV; python -m bench.bench_copy --setup "
              "makes it): its copies are left out", file=sys.stderr)
    pyg_log = OUT / "copy-clients-pygeoapi-access.log"
    pyg_log.unlink(missing_ok=True)

    def say(msg: str) -> None:
        print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)

    with tempfile.TemporaryDirectory() as tmp, contextlib.ExitStack() as stack:
        lat = stack.enter_context(gunicorn(BIN / "gunicorn", "server:create_app()", env, ROOT, workers=2,
                                           extra_args=("--threads", "4", "--access-logfile", str(log),
                                                       "--access-logformat", LOG_FORMAT)))
        pyg = stack.enter_context(pygeoapi_served(url, parcel_extent(url), pyg_log)) if with_pygeoapi else None
        say("mirroring Lateral's pages for nginx")
        sizes = (1000,) if args.no_page_10 else (10, 1000)
        mirrors = {size: stack.enter_context(mirrored(lat, bearer, "parcels", size, Path(tmp))) for size in sizes}
        results["mirror_pages"] = {str(size): pages for size, (_, pages) in mirrors.items()}
        static1000 = mirrors[1000][0]
        copies = {"pg_floor": lambda: ogr2ogr(pg_source(url), {}, tmp)}
        if not args.no_page_10:
            static10 = mirrors[10][0]
            copies["gdal36_lateral"] = lambda: ogr2ogr([f"OAPIF:{lat}/ogc", "parcels"], old_gdal_env, tmp)
            copies["gdal36_static"] = lambda: ogr2ogr([f"OAPIF:{static10}/ogc", "parcels"], {}, tmp)
        copies.update({
            "gdal312_lateral": lambda: modern_gdal(f"OAPIF:{lat}/ogc", new_gdal_env, tmp),
            "gdal312_static": lambda: modern_gdal(f"OAPIF:{static1000}/ogc", {}, tmp),
            "gdal36_1000_lateral": lambda: ogr2ogr([f"OAPIF:{lat}/ogc", "parcels"], old_gdal_env, tmp,
                                                   ("-oo", "PAGE_SIZE=1000")),
            "gdal36_1000_static": lambda: ogr2ogr([f"OAPIF:{static1000}/ogc", "parcels"], {}, tmp,
                                                  ("-oo", "PAGE_SIZE=1000")),
        })
        if pyg is not None:
            copies["gdal312_pygeoapi"] = lambda: modern_gdal(f"OAPIF:{pyg}", {}, tmp)
            copies["gdal36_1000_pygeoapi"] = lambda: ogr2ogr([f"OAPIF:{pyg}", "parcels"], {}, tmp,
                                                             ("-oo", "PAGE_SIZE=1000"))
        for r in range(args.rounds):
            for name, copy in copies.items():
                served_by = pyg_log if name.endswith("_pygeoapi") else log
                mark = log_mark(served_by)
                done = copy()
                time.sleep(0.5)  # gunicorn's log lines reach the file
                pages = [p for p in log_pages(served_by, mark) if p["status"] == 200]
                entry = results["copies"].setdefault(name, {"seconds": [], "features": done["features"]})
                entry["seconds"].append(done["seconds"])
                if "gdal" in done:
                    entry["gdal"] = done["gdal"]
                if pages:
                    entry["requests"] = len(pages)
                    entry["page_size"] = statistics.mode(p["limit"] for p in pages)
                    entry.setdefault("server_s", []).append(round(sum(p["server_ms"] for p in pages) / 1000, 2))
                say(f"round {r + 1}: {name} {done['seconds']} s, {done['features']:,} features"
                    + (f", {len(pages):,} requests" if pages else ""))
    for entry in results["copies"].values():
        entry["median_s"] = round(statistics.median(entry["seconds"]), 2)
    finish(results, report, args.json)
    return 0


ROWS = (
    ("GDAL 3.6.2 (Debian), its default page", "gdal36_lateral", "gdal36_static"),
    ("GDAL 3.12 (pyogrio), its default page", "gdal312_lateral", "gdal312_static"),
    ("GDAL 3.6.2, `-oo PAGE_SIZE=1000`", "gdal36_1000_lateral", "gdal36_1000_static"),
)

PYGEOAPI_ROWS = (
    ("GDAL 3.12 (pyogrio), its default page", "gdal312_lateral", "gdal312_pygeoapi"),
    ("GDAL 3.6.2, `-oo PAGE_SIZE=1000`", "gdal36_1000_lateral", "gdal36_1000_pygeoapi"),
)


def report(r: dict) -> None:
    c = r["copies"]
    floor = c["pg_floor"]["median_s"]
    print(f"\nogr2ogr -f GPKG of {r['parcels']:,} parcels, medians of {r['rounds']} rounds (commit {r['commit']}, "
          f"{r['started_utc']}–{r['finished_utc'][11:]} UTC, load average {r['loadavg_at_start'][0]} → "
          f"{r['loadavg_at_end'][0]})\n")
    print(f"`PG:` floor: **{fmt_s(floor)}** ({', '.join(map(str, c['pg_floor']['seconds']))} s)\n")
    print("| client and page | page | requests | Lateral | ÷ `PG:` floor | Lateral's server time | "
          "HTTP floor (nginx, files) | ÷ `PG:` floor | Lateral ÷ HTTP floor |")
    print("|---|---|---|---|---|---|---|---|---|")
    for label, lat_key, static_key in ROWS:
        if lat_key not in c:
            continue
        lat, static = c[lat_key], c[static_key]
        print(f"| {label} | {lat.get('page_size', '?')} | {lat.get('requests', 0):,} | "
              f"{fmt_s(lat['median_s'])} | "
              f"**{lat['median_s'] / floor:.2f}** | {statistics.median(lat.get('server_s', [0])):.1f} s | "
              f"{fmt_s(static['median_s'])} | {static['median_s'] / floor:.2f} | "
              f"{lat['median_s'] / static['median_s']:.2f} |")
    if "gdal312_pygeoapi" not in c:
        return
    print("\nThe same whole-layer copy from pygeoapi serving the same table (its `next` links use offsets):\n")
    print("| client and page | page | requests | Lateral | pygeoapi | ÷ `PG:` floor | pygeoapi's server time | "
          "pygeoapi ÷ Lateral |")
    print("|---|---|---|---|---|---|---|---|")
    for label, lat_key, pyg_key in PYGEOAPI_ROWS:
        lat, pyg = c[lat_key], c[pyg_key]
        print(f"| {label} | {pyg.get('page_size', '?')} | {pyg.get('requests', 0):,} | {fmt_s(lat['median_s'])} | "
              f"{fmt_s(pyg['median_s'])} | {pyg['median_s'] / floor:.2f} | "
              f"{statistics.median(pyg.get('server_s', [0])):.1f} s | **{pyg['median_s'] / lat['median_s']:.2f}** |")


if __name__ == "__main__":
    sys.exit(main())
