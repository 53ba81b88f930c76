"""Map tiles and the OGC API at city scale (160,000 parcels), beside pygeoapi and the SQL floor.

1. Vector tiles: ``GET /tiles/parcels/{z}/{x}/{y}.mvt`` for random tiles over the city at
   zooms 14–17 (tiles chosen around random parcels, so none is empty), p50/p95 per zoom.
   PostGIS builds tiles in SQL (``ST_AsMVT``); SpatiaLite's are encoded in Python.
2. OGC API items: ``GET /ogc/collections/parcels/items?bbox=…&limit=1000`` on PostGIS, and
   the same request to **pygeoapi** (its PostgreSQL provider, same table, same machine, same
   run, gunicorn with the same two workers), and the SQL floor (``bench.bench_api``).

pygeoapi lives in its own virtualenv, ``bench/out/pygeoapi-venv`` (never in
requirements.txt): ``python3 -m venv bench/out/pygeoapi-venv &&
bench/out/pygeoapi-venv/bin/pip install pygeoapi psycopg2-binary gunicorn``.

    .venv/bin/python -m bench.bench_tiles [--tiles 100] [--requests 100] [--engines postgis,spatialite]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
from contextlib import contextmanager

import sqlalchemy as sa

from bench.bench_api import _engine_kwargs, floor_postgis, windows
from bench.common import (
    OUT,
    bearer_token,
    database_url,
    ensure_city,
    free_port,
    percentiles,
    served,
    time_paths,
    wait_for_port,
)
from server.tiles.grid import tile_for

PARCELS = 160_000
ZOOMS = (14, 15, 16, 17)
PYGEOAPI_VENV = OUT / "pygeoapi-venv"


def random_tiles(url: str, per_zoom: int, seed: int = 7) -> dict[int, list[tuple[int, int, int]]]:
    """Tiles holding random parcels' centroids, ``per_zoom`` at each zoom."""
    engine = sa.create_engine(url, **_engine_kwargs(url))
    if url.startswith("sqlite"):
        from server.dialects import install_engine_hooks

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
                           "id_field": "id", "table": "parcels", "geom_field": "geom"}],
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
    proc = subprocess.Popen([str(bin_dir / "gunicorn"), "-w", str(workers), "-b", f"127.0.0.1:{port}",
                             "pygeoapi.flask_app:APP"], env=env, cwd=OUT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for_port(port)
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def bench_ogc(url: str, token: str, base: str, requests: int) -> list[tuple]:
    boxes = windows(url, requests)
    query = ["?limit=1000&bbox=" + ",".join(f"{v:.6f}" for v in b) for b in boxes]
    lateral, bodies = time_paths(base, {"Authorization": f"Bearer {token}"},
                                 [f"/ogc/collections/parcels/items{q}&f=json" for q in query])
    returned = min(json.loads(b)["numberReturned"] for b in bodies)
    engine = sa.create_engine(url)
    with engine.connect() as conn:
        extent = conn.execute(sa.text(
            "SELECT ST_XMin(e), ST_YMin(e), ST_XMax(e), ST_YMax(e) FROM (SELECT ST_Extent(geom) e FROM parcels) t")).one()
    engine.dispose()
    with pygeoapi_served(url, extent) as pg_base:
        pygeoapi, pg_bodies = time_paths(pg_base, {"Accept": "application/geo+json"},
                                         [f"/collections/parcels/items{q}&f=json" for q in query])
    pg_returned = min(len(json.loads(b)["features"]) for b in pg_bodies)
    floor = floor_postgis(url, boxes)
    return [("Lateral /ogc", returned, *percentiles(lateral)), ("pygeoapi 0.21", pg_returned, *percentiles(pygeoapi)),
            ("SQL floor (psql)", 1000, *percentiles(floor))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tiles", type=int, default=100, help="tiles per zoom")
    parser.add_argument("--requests", type=int, default=100, help="OGC item pages")
    parser.add_argument("--engines", default="postgis,spatialite")
    args = parser.parse_args()

    tile_rows, ogc_rows = [], []
    for engine in args.engines.split(","):
        url = database_url(engine, PARCELS)
        ensure_city(url, PARCELS)
        token = bearer_token(url)
        tiles = random_tiles(url, args.tiles)
        with served(url) as base:
            tile_rows += bench_tiles(engine, base, token, tiles)
            if engine == "postgis":
                ogc_rows = bench_ogc(url, token, base, args.requests)

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
        lat, pyg, floor = (r[2] for r in ogc_rows)
        print(f"\npygeoapi p50 ÷ Lateral p50 = {pyg / lat:.2f}; Lateral p50 ÷ SQL floor p50 = {lat / floor:.2f}")


if __name__ == "__main__":
    main()
