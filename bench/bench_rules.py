"""The rules engine through the database on the 160,000-parcel demo city.

For each engine: the whole-network run through ``server.rules.run.run_network``
(load with ST_AsBinary -> shapely, check, reconcile: first run opens every violation,
the second keeps them), then on-save latency: N saves of one tap through the feature
service (``update_feature`` with its write hook: neighbourhood load by bbox, rules,
reconcile). Everything runs in one transaction that is rolled back, so the shared bench
databases stay as seeded.

    .venv/bin/python bench/bench_rules.py [--parcels 160000] [--saves 100] [--engines postgis spatialite]
"""

from __future__ import annotations

import argparse
import time

from sqlalchemy import func, select

from bench.common import database_url, ensure_city, percentiles


def bench_engine(engine: str, parcels: int, saves: int) -> dict:
    from server import create_app
    from server.core.extensions import db
    from server.network import features
    from server.network.layers import LAYERS
    from server.network.models import Tap
    from server.rules import run as rules

    url = database_url(engine, parcels)
    ensure_city(url, parcels)
    app = create_app({"SQLALCHEMY_DATABASE_URI": url})
    out: dict = {"engine": engine}
    with app.app_context():
        try:
            for label in ("first", "again"):
                wall, cpu = time.perf_counter(), time.process_time()
                outcome = rules.run_network()
                out[label] = {**outcome.counts(), "wall": time.perf_counter() - wall,
                              "cpu": time.process_time() - cpu}
            taps = LAYERS["taps"]
            n = db.session.scalar(select(func.count()).select_from(Tap))
            fid = db.session.scalar(select(Tap.id).order_by(Tap.id).offset(n // 2).limit(1))
            version = db.session.get(Tap, fid).version
            samples = []
            for i in range(saves):
                start = time.perf_counter()
                _, version = features.update_feature(taps, fid, version, None,
                                                     {"clock_position": 3.0 if i % 2 else 12.0}, None)
                samples.append((time.perf_counter() - start) * 1000)
            out["save"] = {"tap": fid, "p50": percentiles(samples)[0], "p95": percentiles(samples)[1],
                           "max": max(samples)}
        finally:
            db.session.rollback()
            db.session.remove()
            db.engine.dispose()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parcels", type=int, default=160_000)
    parser.add_argument("--saves", type=int, default=100)
    parser.add_argument("--engines", nargs="+", default=["postgis", "spatialite"])
    args = parser.parse_args()
    for engine in args.engines:
        r = bench_engine(engine, args.parcels, args.saves)
        for label in ("first", "again"):
            o = r[label]
            s = o["seconds"]
            print(f"{engine:10} whole network ({label}): {o['wall']:.2f} s wall, {o['cpu']:.2f} s CPU "
                  f"[load {s['load']:.2f}, check {s['check']:.2f}, reconcile {s['reconcile']:.2f}] "
                  f"{o['features']:,} features, {o['found']:,} found, {o['opened']:,} opened, "
                  f"{o['kept']:,} kept")
        sv = r["save"]
        print(f"{engine:10} on save of tap {sv['tap']} ×{args.saves}: p50 {sv['p50']:.1f} ms, "
              f"p95 {sv['p95']:.1f} ms, max {sv['max']:.1f} ms", flush=True)


if __name__ == "__main__":
    main()
