"""The permit register at 20,000 permits: a page in under 100 ms.

For each engine: a fresh database migrated with the real migrations, 2,000 parcels and
20,000 permits spread over every state and kind (bulk inserts), then the register as
the office reads it, in process through the app's test client with a bearer token
(the app's own work, without a network in between): the Permits page (``/permits/``, the
first 50 rows, the totals by state and the overdue lists), one state's page, and API
pages of ``/api/v1/permits`` (100 features each, followed by their ``next`` cursor to the
end of one state). Reports p50/p95 per kind of request; fails if a p95 is 100 ms or more.

    .venv/bin/python bench/bench_permits.py [--engines spatialite postgis] [--permits 20000]
"""

from __future__ import annotations

import argparse
import itertools
import os
import sys
import tempfile
import time
from datetime import date, timedelta
from decimal import Decimal
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import PG_ADMIN, percentiles  # noqa: E402

LIMIT_MS = 100.0


def _app(engine: str, tmp: Path):
    import sqlalchemy as sa
    from flask_migrate import upgrade

    from server import create_app

    if engine == "spatialite":
        url = f"sqlite:///{tmp / 'permits.sqlite'}"
    else:
        name = "lateral_bench_permits"
        admin = sa.create_engine(PG_ADMIN, isolation_level="AUTOCOMMIT")
        with admin.connect() as conn:
            conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}"')
            conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
        admin.dispose()
        url = sa.engine.make_url(PG_ADMIN).set(database=name).render_as_string(hide_password=False)
    app = create_app({"SQLALCHEMY_DATABASE_URI": url, "TESTING": True, "SECRET_KEY": "bench",
                      "BLOB_STORE": {"backend": "local", "root": str(tmp / "blobs")}})
    with app.app_context():
        upgrade()
    return app


def _fill(app, permits: int) -> str:
    """2,000 parcels and ``permits`` permits over every state and kind; a clerk's token."""
    from geoalchemy2.shape import from_shape
    from shapely.geometry import MultiPolygon, box

    from server.core.accounts.service import create_user, issue_token
    from server.core.extensions import db
    from server.network.models import Parcel
    from server.permits.models import KINDS, STATES, Permit

    with app.app_context():
        clerk = create_user("bench-clerk", "clerk", "bench-password-315", "Bench Clerk")
        token, _ = issue_token(clerk, "bench")
        parcels = []
        for i in range(2000):
            x, y = -91.51 + (i % 50) * 0.0004, 44.24 + (i // 50) * 0.0003
            parcels.append(Parcel(parcel_number=f"206-{i:05d}-0000", site_address=f"{i} W Main St",
                                  geom=from_shape(MultiPolygon([box(x, y, x + 0.0003, y + 0.0002)]), srid=4326)))
        db.session.add_all(parcels)
        db.session.flush()
        today = date(2026, 12, 1)
        cycle = itertools.cycle(itertools.product(STATES, KINDS))
        rows = []
        for n in range(permits):
            state, kind = next(cycle)
            day = today - timedelta(days=n % 400)
            rows.append({
                "number": f"{day.year}-{n + 1:05d}", "kind": kind, "state": state, "parcel_id": parcels[n % 2000].id,
                "applied_on": day, "applicant_name": f"Applicant {n}", "applicant_is_owner": True,
                "plumber_name": f"Plumber {n % 40}", "plumber_license": f"{220000 + n % 40}-222",
                "plumber_license_expires": date(2099, 12, 31), "wastes": "domestic sewage",
                "connection_kind": "gravity", "connection_size_in": 6.0, "inside_limits": True,
                "connected_by_cutoff": False, "surcharged": False, "fees": {"permit_fee": "50.00"},
                "fee_total": Decimal("50.00"), "paid": state not in ("applied", "under_review", "rejected"),
                "issued_on": day if state not in ("applied", "under_review", "approved", "rejected") else None,
                "inspection_requested_on": day if state == "inspection_requested" else None,
                "version": 1, "created_at": day, "updated_at": day})
        for start in range(0, len(rows), 2000):
            db.session.execute(Permit.__table__.insert(), rows[start:start + 2000])
        db.session.commit()
        return token


def _time(client, headers, paths: list[str]) -> list[float]:
    out = []
    for path in paths:
        started = time.perf_counter()
        response = client.get(path, headers=headers)
        out.append((time.perf_counter() - started) * 1000)
        assert response.status_code == 200, (path, response.status_code)
    return out


def _cursor_walk(client, headers, first: str, pages: int) -> list[float]:
    samples, url = [], first
    for _ in range(pages):
        started = time.perf_counter()
        response = client.get(url, headers=headers)
        samples.append((time.perf_counter() - started) * 1000)
        nxt = [link["href"] for link in response.get_json()["links"] if link["rel"] == "next"]
        if not nxt:
            break
        url = nxt[0].split("://", 1)[1].split("/", 1)[1]
        url = "/" + url
    return samples


def bench(engine: str, permits: int, repeats: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        app = _app(engine, Path(tmp))
        token = _fill(app, permits)
        headers = {"Authorization": f"Bearer {token}"}
        client = app.test_client()
        # The pages take the login form's session, the API the bearer token.
        login = client.post("/login", data={"username": "bench-clerk", "password": "bench-password-315"})
        assert login.status_code == 302, login.status_code
        _time(client, headers, ["/permits/", "/api/v1/permits?limit=100"])  # warm up
        results = {
            "permits page": _time(client, headers, ["/permits/"] * repeats),
            "one state's page": _time(client, headers, ["/permits/?state=issued&kind=tap"] * repeats),
            "API page": _time(client, headers, ["/api/v1/permits?limit=100"] * repeats),
            "API by state, cursor to the end": _cursor_walk(client, headers, "/api/v1/permits?state=closed&limit=100",
                                                           repeats),
        }
        return {name: percentiles(samples) for name, samples in results.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engines", nargs="+", default=["spatialite", "postgis"])
    parser.add_argument("--permits", type=int, default=20000)
    parser.add_argument("--repeats", type=int, default=30)
    args = parser.parse_args()
    os.environ.setdefault("LATERAL_RULEBOOK", "arcadia")
    slow = []
    for engine in args.engines:
        for name, (p50, p95) in bench(engine, args.permits, args.repeats).items():
            print(f"{engine:10} {name:34} p50 {p50:7.1f} ms  p95 {p95:7.1f} ms")
            if p95 >= LIMIT_MS:
                slow.append(f"{engine} {name}")
    if slow:
        raise SystemExit(f"over {LIMIT_MS:.0f} ms at p95: {', '.join(slow)}")


if __name__ == "__main__":
    main()
