"""Latency of a 1,000-feature bbox page of parcels on a 160,000-parcel city.

For each engine: seed the demo city (once; reused afterwards), serve Lateral with
gunicorn, request GET /api/v1/parcels?bbox=…&limit=1000 for random windows that hold
more than 1,000 parcels, and report p50/p95 beside the SQL floor: the same rows'
ST_AsGeoJSON timed by the database's own client (psql's \\timing for PostGIS; the
SQLite library in-process for SpatiaLite).

    .venv/bin/python bench/bench_api.py [--parcels 160000] [--requests 100]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import subprocess
import time

import sqlalchemy as sa

from bench.common import bearer_token, database_url, ensure_city, percentiles, served, time_paths

WINDOW = 0.016  # degrees: about 1.3 km × 1.8 km, ≈ 2,000 demo-city parcels: every page is full


def windows(url: str, count: int, seed: int = 2) -> list[tuple[float, float, float, float]]:
    """Random bboxes inside the city's parcel extent."""
    engine = sa.create_engine(url, **_engine_kwargs(url))
    if url.startswith("sqlite"):
        from server.core.dialects import install_engine_hooks

        install_engine_hooks(engine)
    with engine.connect() as conn:
        minx, miny, maxx, maxy = conn.execute(sa.text(
            "SELECT min(ST_X(ST_Centroid(geom))), min(ST_Y(ST_Centroid(geom))), "
            "max(ST_X(ST_Centroid(geom))), max(ST_Y(ST_Centroid(geom))) FROM parcels"
        )).one()
    engine.dispose()
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        x = rng.uniform(minx, maxx - WINDOW)
        y = rng.uniform(miny, maxy - WINDOW)
        out.append((x, y, x + WINDOW, y + WINDOW))
    return out


def _engine_kwargs(url: str) -> dict:
    if url.startswith("sqlite"):
        from server.core.dialects import sqlite_dbapi

        return {"module": sqlite_dbapi()}
    return {}


def time_api(base: str, token: str, boxes) -> tuple[list[float], list[int]]:
    paths = ["/api/v1/parcels?limit=1000&bbox=" + ",".join(f"{v:.6f}" for v in box) for box in boxes]
    samples, bodies = time_paths(base, {"Authorization": f"Bearer {token}"}, paths)
    return samples, [json.loads(body)["numberReturned"] for body in bodies]


FLOOR_SQL = (
    "SELECT id, parcel_number, owner_name, site_address, ST_AsGeoJSON(geom) FROM parcels "
    "WHERE {where} ORDER BY id LIMIT 1000"
)


def window_where(box) -> str:
    """The WHERE Lateral's PostGIS queries use for a bbox (``server.core.dialects.bbox_filter``),
    as SQL text, so each floor selects its rows exactly as Lateral does."""
    from sqlalchemy.dialects import postgresql

    from server.core.dialects import bbox_filter
    from server.network.models import Parcel

    clause = bbox_filter(Parcel, tuple(box), "postgresql")
    return str(clause.compile(dialect=postgresql.dialect(), compile_kwargs={"literal_binds": True}))


def floor_postgis(url: str, boxes) -> list[float]:
    u = sa.engine.make_url(url)
    script = "\\timing on\n" + "".join(FLOOR_SQL.format(where=window_where(b)) + ";\n" for b in [*boxes[:5], *boxes])
    out = subprocess.run(
        ["psql", "-h", u.host or "127.0.0.1", "-p", str(u.port or 5432), "-U", u.username or "postgres",
         "-d", u.database, "-o", "/dev/null", "-q"],
        input=script, capture_output=True, text=True, check=True,
    ).stdout
    times = [float(t) for t in re.findall(r"Time: ([\d.]+) ms", out)]
    return times[5:]


def floor_spatialite(url: str, boxes) -> list[float]:
    from server.core.dialects import sqlite_dbapi

    dbapi = sqlite_dbapi()
    conn = dbapi.connect(url.removeprefix("sqlite:///"))
    conn.enable_load_extension(True)
    conn.load_extension("mod_spatialite")
    sql = (
        "SELECT id, parcel_number, owner_name, site_address, AsGeoJSON(geom) FROM parcels "
        "WHERE id IN (SELECT pkid FROM idx_parcels_geom WHERE xmin <= {2} AND xmax >= {0} "
        "AND ymin <= {3} AND ymax >= {1}) AND Intersects(geom, BuildMbr({0}, {1}, {2}, {3}, 4326)) "
        "ORDER BY id LIMIT 1000"
    )
    samples = []
    for i, b in enumerate([*boxes[:5], *boxes]):
        start = time.perf_counter()
        conn.execute(sql.format(*b)).fetchall()
        if i >= 5:
            samples.append((time.perf_counter() - start) * 1000)
    conn.close()
    return samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--parcels", type=int, default=160_000)
    parser.add_argument("--requests", type=int, default=100)
    parser.add_argument("--engines", default="postgis,spatialite")
    args = parser.parse_args()

    rows = []
    for engine in args.engines.split(","):
        url = database_url(engine, args.parcels)
        ensure_city(url, args.parcels)
        boxes = windows(url, args.requests)
        token = bearer_token(url)
        with served(url) as base:
            api, sizes = time_api(base, token, boxes)
        floor = floor_postgis(url, boxes) if engine == "postgis" else floor_spatialite(url, boxes)
        a50, a95 = percentiles(api)
        f50, f95 = percentiles(floor)
        rows.append((engine, min(sizes), a50, a95, f50, f95))

    print(f"\n{args.parcels:,} parcels, {args.requests} requests of limit=1000, gunicorn 2 workers\n")
    print("| engine | features/page (min) | API p50 ms | API p95 ms | SQL floor p50 ms | SQL floor p95 ms "
          "| p50 ÷ floor |")
    print("|---|---|---|---|---|---|---|")
    for engine, n, a50, a95, f50, f95 in rows:
        print(f"| {engine} | {n} | {a50:.1f} | {a95:.1f} | {f50:.1f} | {f95:.1f} | {a50 / f50:.2f} |")


if __name__ == "__main__":
    main()
