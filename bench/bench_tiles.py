"""Map tiles and the OGC API at city scale (160,000 parcels), beside pygeoapi and the SQL floor.

1. Vector tiles: ``GET /tiles/parcels/{z}/{x}/{y}.mvt`` for random tiles over the city at
   zooms 14–17 (tiles chosen around random parcels, so none is empty), p50/p95 per zoom.
   PostGIS builds tiles in SQL (``ST_AsMVT``); SpatiaLite's are encoded in Python.
2. OGC API items: ``GET /ogc/collections/parcels/items?bbox=…&limit=1000`` on PostGIS, and
   the same request to **pygeoapi** (its PostgreSQL provider, same table, same machine, same
   run, gunicorn with the same two workers), and two SQL floors timed by psql: the feature
   API bench's four columns + GeoJSON (``bench.bench_api``), and the same page as Lateral
   serves it (every property, GeoJSON at 15 decimals, the count). The four are asked each
   window in turn, so the ratios are medians of per-window ratios.

pygeoapi lives in its own virtualenv, ``bench/out/pygeoapi-venv`` (never in
requirements.txt): ``python3 -m venv bench/out/pygeoapi-venv &&
bench/out/pygeoapi-venv/bin/pip install pygeoapi psycopg2-binary geoalchemy2 gunicorn``.

    .venv/bin/python -m bench.bench_tiles [--tiles 100] [--requests 100] [--engines postgis,spatialite]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import statistics
import subprocess
import time
import urllib.parse
from contextlib import contextmanager

import sqlalchemy as sa

from bench.bench_api import FLOOR_SQL, _engine_kwargs, window_where, windows
from bench.common import (
    OUT,
    bearer_token,
    database_url,
    ensure_city,
    free_port,
    gunicorn,
    parcel_extent,
    percentiles,
    served,
    time_paths,
)
from server.network.tiles.grid import tile_for

PARCELS = 160_000
ZOOMS = (14, 15, 16, 17)
PYGEOAPI_VENV = OUT / "pygeoapi-venv"


def random_tiles(url: str, per_zoom: int, seed: int = 7) -> dict[int, list[tuple[int, int, int]]]:
    """Tiles holding random parcels' centroids, ``per_zoom`` at each zoom."""
    engine = sa.create_engine(url, **_engine_kwargs(url))
    if url.startswith("sqlite"):
        from server.core.dialects import install_engine_hooks

        install_engine_hooks(engine)
    rng = random.Random(seed)
    with engine.connect() as conn:
        top = conn.execute(sa.text("SELECT max(id) FROM parcels")).scalar()
        ids = rng.sample(range(1, top + 1), per_zoom * len(ZOOMS))
        rows = conn.execute(sa.text(
            "SELECT ST_X(ST_Centroid(geom)), ST_Y(ST_Centroid(geom)) FROM parcels WHERE id IN "
            f"({','.join(map(str, ids))})")).all()
    engine.dispose()
    out = {}
    for i, z in enumerate(ZOOMS):
        out[z] = [(z, *tile_for(lon, lat, z)) for lon, lat in rows[i * per_zoom:(i + 1) * per_zoom]]
    return out


def bench_tiles(engine: str, base: str, token: str, tiles: dict) -> list[tuple]:
    rows = []
    for z, zoom_tiles in tiles.items():
        paths = [f"/tiles/parcels/{z}/{x}/{y}.mvt" for _, x, y in zoom_tiles]
        samples, bodies = time_paths(base, {"Authorization": f"Bearer {token}"}, paths)
        p50, p95 = percentiles(samples)
        kb = sorted(len(b) for b in bodies)[len(bodies) // 2] / 1024
        rows.append((engine, z, p50, p95, kb))
    return rows


def _parcel_properties() -> tuple[str, ...]:
    from server.network.features import property_names
    from server.network.layers import LAYERS

    return property_names(LAYERS["parcels"])


def _config(url: str, port: int, extent) -> str:
    u = sa.engine.make_url(url)
    return json.dumps({  # YAML is a superset of JSON
        "server": {"bind": {"host": "127.0.0.1", "port": port}, "url": f"http://127.0.0.1:{port}",
                   "mimetype": "application/json; charset=UTF-8", "encoding": "utf-8", "languages": ["en-US"],
                   "limits": {"default_items": 10, "max_items": 10000},
                   "map": {"url": "https://tile.openstreetmap.org/{z}/{x}/{y}.png", "attribution": "OSM"}},
        "logging": {"level": "ERROR"},
        "metadata": {"identification": {"title": "bench", "description": "bench", "keywords": ["bench"],
                                        "keywords_type": "theme", "terms_of_service": "none",
                                        "url": "http://127.0.0.1"},
                     "license": {"name": "CC-BY 4.0", "url": "https://creativecommons.org/licenses/by/4.0/"},
                     "provider": {"name": "bench", "url": "http://127.0.0.1"},
                     "contact": {k: "bench" for k in ("name", "position", "address", "city", "stateorprovince",
                                                      "postalcode", "country", "phone", "fax", "email", "url",
                                                      "hours", "instructions", "role")}},
        "resources": {"parcels": {
            "type": "collection", "title": "Parcels", "description": "Parcels", "keywords": ["parcels"],
            "extents": {"spatial": {"bbox": list(extent),
                                    "crs": "http://www.opengis.net/def/crs/OGC/1.3/CRS84"}},
            "providers": [{"type": "feature", "name": "PostgreSQL",
                           "data": {"host": u.host or "127.0.0.1", "port": u.port or 5432, "dbname": u.database,
                                    "user": u.username or "postgres", "password": u.password or "",
                                    "search_path": ["public"]},
                           "id_field": "id", "table": "parcels", "geom_field": "geom",
                           # Lateral's properties exactly (not PostGIS's stored tile geometry)
                           "properties": list(_parcel_properties())}],
        }},
    })


@contextmanager
def pygeoapi_served(url: str, extent, workers: int = 2):
    """pygeoapi on a free port from its own virtualenv, serving the bench city's parcels."""
    bin_dir = PYGEOAPI_VENV / "bin"
    if not (bin_dir / "pygeoapi").exists():
        raise SystemExit(f"pygeoapi is not installed in {PYGEOAPI_VENV}; see this script's docstring")
    port = free_port()
    config, openapi = OUT / "pygeoapi-config.yml", OUT / "pygeoapi-openapi.yml"
    config.write_text(_config(url, port, extent))
    env = {**os.environ, "PYGEOAPI_CONFIG": str(config), "PYGEOAPI_OPENAPI": str(openapi)}
    env.pop("PYTHONPATH", None)
    subprocess.run([str(bin_dir / "pygeoapi"), "openapi", "generate", str(config), "--output-file", str(openapi)],
                   env=env, check=True, capture_output=True)
    with gunicorn(bin_dir / "gunicorn", "pygeoapi.flask_app:APP", env, OUT, workers, port) as base:
        yield base


class Psql:
    """One psql session; ``time(sql)`` is psql's own \\timing of one statement (rows sent to /dev/null)."""

    def __init__(self, url: str) -> None:
        u = sa.engine.make_url(url)
        self.proc = subprocess.Popen(
            ["psql", "-h", u.host or "127.0.0.1", "-p", str(u.port or 5432), "-U", u.username or "postgres",
             "-d", u.database, "-q", "-X", "-v", "ON_ERROR_STOP=1"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        self._send("\\timing on\n\\o /dev/null\n")

    def _send(self, text: str) -> None:
        self.proc.stdin.write(text)
        self.proc.stdin.flush()

    def time(self, sql: str) -> float:
        self._send(f"{sql};\n\\echo __done__\n")
        elapsed = None
        for line in self.proc.stdout:
            if line.startswith("Time: "):
                elapsed = float(line.split()[1])
            elif line.strip() == "__done__":
                return elapsed
        raise SystemExit("psql ended")

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(timeout=10)


# The page Lateral serves, as one statement: every property, the geometry as GeoJSON at
# the precision Lateral writes it, and the count of every match.
SAME_PAGE_SQL = (
    "SELECT id, ST_AsGeoJSON(geom, 15), version, created_at, updated_at, parcel_number, owner_name, owner_name_2, "
    "mailing_street, mailing_city, mailing_state, mailing_zip, site_address, user_class, has_building, "
    "in_service_area, has_septic, septic_approved, count(*) OVER () FROM parcels "
    "WHERE {where} ORDER BY id LIMIT 1001"
)


def bench_ogc(url: str, token: str, base: str, requests: int) -> list[tuple]:
    """The same bbox page from Lateral, pygeoapi and psql, interleaved window by window.

    Interleaving keeps the ratios honest on a machine whose speed drifts from minute to
    minute: each window is asked of all four in turn (the order rotating), and the
    ratios are medians of the per-window ratios.
    """
    boxes = windows(url, requests)
    query = ["?limit=1000&bbox=" + ",".join(f"{v:.6f}" for v in b) for b in boxes]
    extent = parcel_extent(url)
    lateral_url = urllib.parse.urlparse(base)
    with pygeoapi_served(url, extent) as pg_base:
        pg_url = urllib.parse.urlparse(pg_base)
        psql = Psql(url)
        lateral_conn = http.client.HTTPConnection(lateral_url.hostname, lateral_url.port, timeout=120)
        pg_conn = http.client.HTTPConnection(pg_url.hostname, pg_url.port, timeout=120)
        auth = {"Authorization": f"Bearer {token}"}

        def get(conn, path, headers):
            start = time.perf_counter()
            conn.request("GET", path, headers=headers)
            resp = conn.getresponse()
            body = resp.read()
            if resp.status != 200:
                raise SystemExit(f"{path}: HTTP {resp.status} {body[:300]!r}")
            return (time.perf_counter() - start) * 1000, body

        jobs = {
            "lateral": lambda i: get(lateral_conn, f"/ogc/collections/parcels/items{query[i]}&f=json", auth),
            "pygeoapi": lambda i: get(pg_conn, f"/collections/parcels/items{query[i]}&f=json",
                                      {"Accept": "application/geo+json"}),
            "floor": lambda i: (psql.time(FLOOR_SQL.format(where=window_where(boxes[i]))), None),
            "same_page": lambda i: (psql.time(SAME_PAGE_SQL.format(where=window_where(boxes[i]))), None),
        }
        names = list(jobs)
        times = {name: [] for name in names}
        returned = {"lateral": [], "pygeoapi": []}
        for i in [*range(5), *range(len(boxes))]:  # five warm-up windows first
            order = names[i % len(names):] + names[:i % len(names)]
            for name in order:
                elapsed, body = jobs[name](i)
                if len(times[name]) < len(boxes) + 5:
                    times[name].append(elapsed)
                if body is not None:
                    returned[name].append(len(json.loads(body)["features"]))
        psql.close()
    times = {name: samples[5:] for name, samples in times.items()}
    ratio = {
        "lateral÷floor": statistics.median(a / b for a, b in zip(times["lateral"], times["floor"], strict=True)),
        "lateral÷same_page": statistics.median(
            a / b for a, b in zip(times["lateral"], times["same_page"], strict=True)),
        "pygeoapi÷lateral": statistics.median(
            b / a for a, b in zip(times["lateral"], times["pygeoapi"], strict=True)),
    }
    rows = [("Lateral /ogc", min(returned["lateral"]), *percentiles(times["lateral"])),
            ("pygeoapi", min(returned["pygeoapi"]), *percentiles(times["pygeoapi"])),
            ("SQL floor (psql: 4 columns + GeoJSON)", 1000, *percentiles(times["floor"])),
            ("SQL of the same page (psql: every property, GeoJSON, count)", 1000, *percentiles(times["same_page"]))]
    return rows, ratio


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tiles", type=int, default=100, help="tiles per zoom")
    parser.add_argument("--requests", type=int, default=100, help="OGC item pages")
    parser.add_argument("--engines", default="postgis,spatialite")
    args = parser.parse_args()

    tile_rows, ogc_rows, ogc_ratio = [], [], {}
    for engine in args.engines.split(","):
        url = database_url(engine, PARCELS)
        ensure_city(url, PARCELS)
        token = bearer_token(url)
        tiles = random_tiles(url, args.tiles)
        with served(url) as base:
            tile_rows += bench_tiles(engine, base, token, tiles)
            if engine == "postgis":
                ogc_rows, ogc_ratio = bench_ogc(url, token, base, args.requests)

    print(f"\nVector tiles of parcels, {PARCELS:,}-parcel city, {args.tiles} tiles per zoom, gunicorn 2 workers\n")
    print("| engine | zoom | p50 ms | p95 ms | median tile KB |")
    print("|---|---|---|---|---|")
    for engine, z, p50, p95, kb in tile_rows:
        print(f"| {engine} | {z} | {p50:.1f} | {p95:.1f} | {kb:.0f} |")
    if ogc_rows:
        print(f"\nOGC API items, limit=1000, {args.requests} bbox pages, PostGIS\n")
        print("| server | features/page (min) | p50 ms | p95 ms |")
        print("|---|---|---|---|")
        for name, n, p50, p95 in ogc_rows:
            print(f"| {name} | {n} | {p50:.1f} | {p95:.1f} |")
        print("\nMedians of the per-window ratios (each window asked of all four in turn): "
              + "; ".join(f"{name} = {value:.2f}" for name, value in ogc_ratio.items()))


if __name__ == "__main__":
    main()
