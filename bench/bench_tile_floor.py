"""How fast a kept tile could be, served by less than Lateral: the floors under its warm tiles.

    .venv/bin/python -m bench.bench_tile_floor [--parcels 160000] [--tiles 50] [--json FILE]

Issue 35 asks a warm tile to be 3x faster than tipg at every zoom. At z16-17 tipg answers in
3-4 ms, so a kept tile must come back in about 1.1-1.4 ms over HTTP. This times, under the
gunicorn Lateral runs with (2 workers, 4 threads) and over one keep-alive connection as
``bench_speed`` does, the same tile paths served by:

1. ``wsgi``: a bare WSGI callable returning a 20 kB body (gunicorn and the HTTP client alone);
2. ``flask``: a bare Flask route returning it;
3. ``flask+login``: that route after one SQLAlchemy Core statement on a pooled autocommit
   connection, the bearer token's holder and the layer's write version (what a kept tile
   must learn from the database: who asks, and is the tile still true);
4. ``lateral``: Lateral itself, warm (its gate, login, session, hooks and cache).

tipg is timed on the same tiles beside them when the bench's venv has it. The gap between 3
and 4 is what Lateral's own request handling costs; 1 to 3 is what any Flask server that
checks its caller and its data on each request pays.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

from bench.bench_speed import lateral_env, tipg_served
from bench.bench_tiles import random_tiles
from bench.common import BIN, ROOT, bearer_token, database_url, ensure_city, gunicorn, percentiles, time_paths

BODY = b"\x1a" * 20_000  # about a z16 parcel tile



def _login_statement():
    """Who holds the token, and the layer's write version: Lateral's own pieces, in the
    least statement a kept tile needs (no ORM entity, no gate)."""
    import sqlalchemy as sa

    from server.core.accounts.models import ApiToken, User
    from server.core.dialects.common import layer_version_read

    return (sa.select(User.id, User.role, ApiToken.created_at, ApiToken.last_used_at, layer_version_read("parcels"))
            .join(ApiToken, ApiToken.user_id == User.id)
            .where(ApiToken.token_hash == sa.bindparam("h"), ApiToken.revoked_at.is_(None), User.active.is_(True)))


def wsgi(environ, start_response):
    start_response("200 OK", [("Content-Type", "application/vnd.mapbox-vector-tile"),
                              ("Content-Length", str(len(BODY)))])
    return [BODY]


def _flask_app(with_login: bool):
    import sqlalchemy as sa
    from flask import Flask, Response, abort, request

    app = Flask("tile_floor")
    engine = sa.create_engine(os.environ["DATABASE_URL"], isolation_level="AUTOCOMMIT") if with_login else None
    statement = _login_statement()

    @app.route("/tiles/parcels/<int:z>/<int:x>/<int:y>.mvt")
    def tile(z: int, x: int, y: int):
        if engine is not None:
            token = request.headers.get("Authorization", "")[7:]
            with engine.connect() as conn:
                row = conn.execute(statement, {"h": hashlib.sha256(token.encode()).hexdigest()}).first()
            if row is None:
                abort(401)
        return Response(BODY, mimetype="application/vnd.mapbox-vector-tile")

    return app


def flask_app():
    return _flask_app(False)


def flask_login_app():
    return _flask_app(True)


APPS = {"wsgi": "bench.bench_tile_floor:wsgi", "flask": "bench.bench_tile_floor:flask_app()",
        "flask+login": "bench.bench_tile_floor:flask_login_app()", "lateral": "server:create_app()"}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--parcels", type=int, default=160_000)
    parser.add_argument("--tiles", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=3, help="timed passes over the tiles; the median pass counts")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    url = database_url("postgis", args.parcels)
    ensure_city(url, args.parcels)
    bearer = {"Authorization": f"Bearer {bearer_token(url)}"}
    tile_list = random_tiles(url, args.tiles)
    results: dict = {"parcels": args.parcels, "started_utc": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime()),
                     "machine": f"{platform.machine()}, {os.cpu_count()} cores, {platform.platform()}",
                     "zooms": {}}
    with tempfile.TemporaryDirectory() as tmp:
        env = lateral_env(url, Path(tmp) / "tiles")
        for name, app in APPS.items():
            with gunicorn(BIN / "gunicorn", app, env, ROOT, workers=2, extra_args=("--threads", "4")) as base:
                for z, tiles in tile_list.items():
                    paths = [f"/tiles/parcels/{z}/{x}/{y}.mvt" for _, x, y in tiles]
                    time_paths(base, bearer, paths, warmup=2)  # Lateral keeps them all on this pass
                    passes = sorted(percentiles(time_paths(base, bearer, paths, warmup=0)[0])[0]
                                    for _ in range(args.rounds))
                    results["zooms"].setdefault(str(z), {})[name] = round(passes[len(passes) // 2], 3)
        with tipg_served(url) as tipg:
            if tipg:
                for z, tiles in tile_list.items():
                    t, _ = time_paths(tipg, {}, [f"/collections/public.parcels/tiles/WebMercatorQuad/{z}/{x}/{y}"
                                                 for _, x, y in tiles], warmup=2)
                    results["zooms"][str(z)]["tipg"] = round(percentiles(t)[0], 3)
    results["finished_utc"] = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime())
    columns = [*APPS, "tipg"]
    print(f"\nTile floors at {args.parcels:,} parcels ({results['started_utc']}–{results['finished_utc'][11:]} UTC, "
          f"{results['machine']}), p50 ms\n")
    print("| zoom | " + " | ".join(columns) + " | tipg ÷ 3 |\n|" + "---|" * (len(columns) + 2))
    for z, row in results["zooms"].items():
        third = round(row["tipg"] / 3, 2) if "tipg" in row else "—"
        print(f"| {z} | " + " | ".join(str(row.get(c, "—")) for c in columns) + f" | {third} |")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(results, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
