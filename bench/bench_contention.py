"""Many tablets pushing to one parcel at once: worst push, errors, inspections per second.

Usage: python bench/bench_contention.py [--engines spatialite,postgis] [--tablets 40] [--rounds 10]

Each tablet is a thread with its own inspector login and an assignment to the same
parcel; each pushes ``--rounds`` clear-water surveys one after another, as fast as it
can, to Lateral under gunicorn as ``make run`` serves it (2 workers × 4 threads). What
counts: no push answered "database is locked" or any 5xx, and the worst push's time.
Figures go in bench/README.md ("Many tablets at once").
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import threading
import time
import uuid
from pathlib import Path

import requests
import sqlalchemy as sa

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import BIN, OUT, PG_ADMIN, ROOT, gunicorn  # noqa: E402

SURVEY_POINT = {"type": "Point", "coordinates": [-91.5009, 44.2531]}
PARCEL = {"type": "Feature",
          "geometry": {"type": "Polygon", "coordinates": [[[-91.501, 44.253], [-91.5008, 44.253],
                                                           [-91.5008, 44.2532], [-91.501, 44.2532],
                                                           [-91.501, 44.253]]]},
          "properties": {"parcel_number": "206-00001-0000", "owner_name": "Bench Owner",
                         "mailing_street": "1 Main St", "mailing_city": "Arcadia", "mailing_state": "WI",
                         "mailing_zip": "54612", "site_address": "1 Main St"}}


def _database(engine: str) -> str:
    OUT.mkdir(parents=True, exist_ok=True)
    if engine == "spatialite":
        path = OUT / "contention.sqlite"
        for suffix in ("", "-wal", "-shm", ".writers"):
            Path(str(path) + suffix).unlink(missing_ok=True)
        return f"sqlite:///{path}"
    admin = sa.create_engine(PG_ADMIN, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.exec_driver_sql('DROP DATABASE IF EXISTS "lateral_bench_contention" WITH (FORCE)')
        conn.exec_driver_sql('CREATE DATABASE "lateral_bench_contention"')
    admin.dispose()
    return sa.engine.make_url(PG_ADMIN).set(database="lateral_bench_contention").render_as_string(False)


def _prepare(url: str, tablets: int) -> tuple[list[str], int]:
    """Migrate, load checklists, make the parcel, the inspectors, their tokens and assignments."""
    os.environ["DATABASE_URL"] = url
    from flask_migrate import upgrade

    from server import create_app
    from server.core.accounts.service import create_user, issue_token
    from server.core.extensions import db
    from server.field.checklist_templates import load_templates
    from server.field.models import Assignment
    from server.network import features
    from server.network.layers import LAYERS

    app = create_app({"SQLALCHEMY_DATABASE_URI": url, "SECRET_KEY": "bench-contention-secret"})
    with app.app_context():
        upgrade()
        load_templates()
        _, parcel_id, _ = features.create_feature(LAYERS["parcels"], PARCEL["geometry"], PARCEL["properties"],
                                                  None)
        tokens = []
        for i in range(tablets):
            user = create_user(f"tablet{i:02d}", "inspector", "bench-password-315-x", f"Tablet {i}")
            db.session.add(Assignment(inspector_id=user.id, parcel_id=parcel_id, template_id="clear-water-survey",
                                      status="open"))
            tokens.append(issue_token(user, "bench")[0])
        db.session.commit()
        db.session.remove()
        db.engine.dispose()
    return tokens, parcel_id


def _survey(parcel_id: int) -> dict:
    return {"uuid": str(uuid.uuid4()), "kind": "inspection", "data": {
        "template_id": "clear-water-survey", "template_version": 1, "parcel_id": parcel_id,
        "location": SURVEY_POINT, "started_at": "2026-11-30T09:00:00-06:00",
        "finished_at": "2026-11-30T09:10:00-06:00", "answers": {"access": "granted", "sources": []},
        "photos": []}}


def _tablet(base: str, token: str, parcel_id: int, rounds: int, start: threading.Event, out: list) -> None:
    session = requests.Session()
    session.headers["Authorization"] = f"Bearer {token}"
    start.wait()
    for _ in range(rounds):
        began = time.perf_counter()
        try:
            r = session.post(f"{base}/api/v1/sync/push", json={"records": [_survey(parcel_id)]}, timeout=120)
            status, text = r.status_code, r.text
            if status == 200:
                status = r.json()["results"][0]["status"]
        except requests.RequestException as exc:
            status, text = 0, str(exc)
        out.append((time.perf_counter() - began, status, "locked" in text))


def run(engine: str, tablets: int, rounds: int) -> dict:
    url = _database(engine)
    tokens, parcel_id = _prepare(url, tablets)
    env = {**os.environ, "DATABASE_URL": url, "PYTHONPATH": str(ROOT), "SECRET_KEY": "bench-contention-secret",
           "BLOB_ROOT": str(OUT / "contention-blobs"), "BLOB_STORE": "local"}
    results: list = []
    with gunicorn(BIN / "gunicorn", "server:create_app()", env, ROOT, workers=2) as base:
        requests.get(f"{base}/api/v1/health", timeout=30)
        start = threading.Event()
        threads = [threading.Thread(target=_tablet, args=(base, t, parcel_id, rounds, start, results))
                   for t in tokens]
        for t in threads:
            t.start()
        began = time.perf_counter()
        start.set()
        for t in threads:
            t.join()
        wall = time.perf_counter() - began
    times = sorted(r[0] for r in results)
    ok = [r for r in results if r[1] == 201]
    return {
        "engine": engine, "tablets": tablets, "pushes": len(results), "stored": len(ok),
        "errors": len(results) - len(ok), "locked": sum(r[2] for r in results),
        "inspections_per_s": round(len(ok) / wall, 1),
        "p50_ms": round(statistics.median(times) * 1000, 1),
        "p95_ms": round(times[round(0.95 * (len(times) - 1))] * 1000, 1),
        "worst_ms": round(times[-1] * 1000, 1),
    }


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engines", default="spatialite,postgis")
    parser.add_argument("--tablets", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args(argv)
    for engine in args.engines.split(","):
        print(json.dumps(run(engine, args.tablets, args.rounds)), flush=True)


if __name__ == "__main__":
    main()
