"""What one OGC API page costs, and whether it depends on where the page is.

Serves Lateral's code (this checkout, and optionally another one, ``--before DIR``,
e.g. a ``git worktree`` of an older commit) with gunicorn on the same PostGIS database
of the 160,000-parcel demo city, and times the same requests against each server,
interleaved (A, B, A, B …) so both see the same machine:

- ``first-10``: the first page of 10 parcels (GDAL 3.6's page size), ``numberMatched`` with it;
- ``deep-10``: the page of 10 parcels after the 150,000th, reached as a client reaches
  it: the ``next`` link of the page at offset 149,990 (an offset link before keyset
  paging, a cursor after);
- ``offset-1000``: ``bbox=…&offset=1000&limit=1000`` for random windows holding more
  than 2,000 parcels (the offset pages of issue 17's comparison with pygeoapi and tipg);
- ``walk-1000``: ``offset=N&limit=1000`` for random N up to 159,000 (a client walking the
  whole layer by offsets).

    .venv/bin/python -m bench.bench_ogc_page [--before /tmp/before] [--requests 100]
        [--database lateral_bench_160k]

Prints p50/p95 per request kind and server. Figures: bench/README.md ("Paging").
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import time
import urllib.parse
from contextlib import ExitStack
from pathlib import Path

import sqlalchemy as sa

from bench.common import BIN, PG_ADMIN, ROOT, bearer_token, gunicorn, percentiles

WINDOW = 0.016  # degrees, as bench_api: ≈ 2,000 parcels, so offset 1,000 still fills a page of 1,000


def _url(database: str) -> str:
    return sa.engine.make_url(PG_ADMIN).set(database=database).render_as_string(hide_password=False)


def _windows(url: str, count: int) -> list[str]:
    engine = sa.create_engine(url)
    with engine.connect() as conn:
        minx, miny, maxx, maxy = conn.execute(sa.text(
            "SELECT min(ST_X(ST_Centroid(geom))), min(ST_Y(ST_Centroid(geom))), "
            "max(ST_X(ST_Centroid(geom))), max(ST_Y(ST_Centroid(geom))) FROM parcels")).one()
    engine.dispose()
    rng = random.Random(17)
    boxes = []
    for _ in range(count):
        x, y = rng.uniform(minx, maxx - WINDOW), rng.uniform(miny, maxy - WINDOW)
        boxes.append(f"{x:.6f},{y:.6f},{x + WINDOW:.6f},{y + WINDOW:.6f}")
    return boxes


class Client:
    """One keep-alive connection to one server."""

    def __init__(self, base: str, token: str):
        parsed = urllib.parse.urlparse(base)
        self.conn = http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=300)
        self.headers = {"Authorization": f"Bearer {token}"}

    def get(self, path: str) -> tuple[float, dict]:
        start = time.perf_counter()
        self.conn.request("GET", path, headers=self.headers)
        response = self.conn.getresponse()
        body = response.read()
        elapsed = (time.perf_counter() - start) * 1000
        if response.status != 200:
            raise SystemExit(f"{path}: HTTP {response.status} {body[:300]!r}")
        return elapsed, json.loads(body)


def _local(href: str) -> str:
    parts = urllib.parse.urlsplit(href)
    return f"{parts.path}?{parts.query}"


def _deep_path(client: Client) -> str:
    _, page = client.get("/ogc/collections/parcels/items?limit=10&offset=149990")
    return _local(next(link["href"] for link in page["links"] if link["rel"] == "next"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, help="another checkout of Lateral to serve beside this one")
    parser.add_argument("--database", default="lateral_bench_160k")
    parser.add_argument("--requests", type=int, default=100)
    args = parser.parse_args()
    url = _url(args.database)
    token = bearer_token(url)
    code = {"this": ROOT}
    if args.before:
        code = {"before": args.before.resolve(), **code}
    with ExitStack() as stack:
        clients = {}
        for name, root in code.items():
            env = {**os.environ, "DATABASE_URL": url, "PYTHONPATH": str(root)}
            base = stack.enter_context(gunicorn(BIN / "gunicorn", "server:create_app()", env, root, workers=1))
            clients[name] = Client(base, token)
        deep = {name: _deep_path(client) for name, client in clients.items()}
        boxes = _windows(url, args.requests)
        offsets = random.Random(3).sample(range(0, 159_000, 1000), args.requests)
        kinds = {
            "first-10": lambda name, i: "/ogc/collections/parcels/items?limit=10",
            "deep-10": lambda name, i: deep[name],
            "offset-1000": lambda name, i: f"/ogc/collections/parcels/items?bbox={boxes[i]}&offset=1000&limit=1000",
            "walk-1000": lambda name, i: f"/ogc/collections/parcels/items?offset={offsets[i]}&limit=1000",
        }
        for kind, path_for in kinds.items():
            samples: dict[str, list[float]] = {name: [] for name in clients}
            last: dict[str, dict] = {}
            for i in range(-5, args.requests):  # five warm-up rounds
                for name, client in clients.items():
                    elapsed, last[name] = client.get(path_for(name, max(i, 0)))
                    if i >= 0:
                        samples[name].append(elapsed)
            for name, values in samples.items():
                p50, p95 = percentiles(values)
                page = last[name]
                print(f"{kind:12} {name:7} p50 {p50:7.1f} ms  p95 {p95:7.1f} ms  "
                      f"({page['numberReturned']} features, numberMatched {page.get('numberMatched')})", flush=True)


if __name__ == "__main__":
    main()
