"""Benchmark: notices through the server, from open violations to a mailed batch.

On a fresh database of each engine: N parcels with one open violation each; then
times drafting N notices, approving them, and mailing them as one certified-mail
batch (article numbers, each letter rendered and hashed, all letters as one PDF, the
firm mailing book, audit rows), each step one transaction.

    .venv/bin/python bench/bench_mailing.py [--n 500] [--engines spatialite postgis]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import sqlalchemy as sa  # noqa: E402
from geoalchemy2.shape import from_shape  # noqa: E402
from shapely.geometry import MultiPolygon, box  # noqa: E402

from bench.common import PG_ADMIN  # noqa: E402


def _database(engine: str, tmp: Path) -> tuple[str, callable]:
    if engine == "spatialite":
        return f"sqlite:///{tmp / 'mailing.sqlite'}", lambda: None
    name = "lateral_bench_mailing"
    admin = sa.create_engine(PG_ADMIN, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.exec_driver_sql(f'CREATE DATABASE "{name}"')

    def drop():
        with admin.connect() as conn:
            conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.dispose()

    return sa.engine.make_url(PG_ADMIN).set(database=name).render_as_string(hide_password=False), drop


def _seed(n: int) -> None:
    from server.core.extensions import db
    from server.network.models import Parcel
    from server.rules.models import Violation

    for i in range(n):
        x, y = -91.52 + (i % 50) * 0.0004, 44.24 + (i // 50) * 0.0003
        parcel = Parcel(parcel_number=f"B-{i:06d}", owner_name=f"OWNER {i}", mailing_street=f"{i} MAIN ST",
                        mailing_city="ARCADIA", mailing_state="WI", mailing_zip="54612",
                        site_address=f"{i} Main St", geom=from_shape(MultiPolygon([box(x, y, x + 0.0003, y + 0.0002)]),
                                                                     srid=4326))
        db.session.add(parcel)
        db.session.flush()
        db.session.add(Violation(rule_id="CW-DISCONNECT-60", section="§ 315-13D", key=f"bench:{i}", status="open",
                                 source="inspection", subject_type="parcel", subject_id=parcel.id,
                                 subjects=[["parcel", parcel.id]], parcel_id=parcel.id,
                                 message="Sump pump discharges to the floor drain"))
    db.session.commit()


def run(engine: str, n: int) -> dict[str, float]:
    from flask_migrate import upgrade

    from server import create_app
    from server.core.accounts.service import create_user
    from server.core.extensions import db
    from server.notices.drafts import draft_notices
    from server.notices.mailing_record import mail_notices
    from server.notices.workflow import apply_event

    with tempfile.TemporaryDirectory() as tmp:
        url, drop = _database(engine, Path(tmp))
        app = create_app({"SQLALCHEMY_DATABASE_URI": url, "SECRET_KEY": "bench-secret-key-not-for-production"})
        try:
            with app.app_context():
                upgrade()
                sup, clerk = (create_user(r, r, "bench-password") for r in ("superintendent", "clerk"))
                _seed(n)
                times = {}
                t = time.perf_counter()
                notices = draft_notices(sup)
                db.session.commit()
                times["draft"] = time.perf_counter() - t
                t = time.perf_counter()
                for notice in notices:
                    apply_event(notice, "approve", sup)
                db.session.commit()
                times["approve"] = time.perf_counter() - t
                t = time.perf_counter()
                batch = mail_notices([x.id for x in notices], clerk)
                db.session.commit()
                times["mail"] = time.perf_counter() - t
                times["letters_mb"] = len(batch.letters_pdf) / 1e6
                db.session.remove()
                db.engine.dispose()
        finally:
            drop()
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=500)
    parser.add_argument("--engines", nargs="+", default=["spatialite", "postgis"])
    args = parser.parse_args()
    print(f"| engine | draft {args.n} | approve {args.n} | mail {args.n} in one batch | letters/s mailed |")
    print("|---|---|---|---|---|")
    for engine in args.engines:
        t = run(engine, args.n)
        print(f"| {engine} | {t['draft']:.1f} s | {t['approve']:.1f} s | {t['mail']:.1f} s "
              f"({t['letters_mb']:.1f} MB of letters) | **{args.n / t['mail']:.0f}** |")


if __name__ == "__main__":
    main()
