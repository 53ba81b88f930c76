"""How long a backup and a restore of a whole city take.

Usage: python bench/bench_backup.py [--engines postgis,spatialite] [--parcels 160000]

Seeds the demo city at ``--parcels`` (kept in bench/out between runs), then times
``flask --app server backup`` into a fresh folder and ``flask --app server restore``
into a new, empty database (the restore includes its check against the manifest and
``verify``). Figures go in bench/README.md ("Backups") and docs/operations.md.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import sqlalchemy as sa

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import BIN, OUT, PG_ADMIN, ROOT, database_url, ensure_city  # noqa: E402

SECRET = "bench-backup-secret-0123456789"


def _flask(url: str, blobs: Path, *args: str) -> float:
    env = {**os.environ, "DATABASE_URL": url, "PYTHONPATH": str(ROOT), "SECRET_KEY": SECRET,
           "BLOB_STORE": "local", "BLOB_ROOT": str(blobs)}
    began = time.perf_counter()
    done = subprocess.run([str(BIN / "flask"), "--app", "server", *args], env=env, cwd=ROOT,
                          capture_output=True, text=True)
    elapsed = time.perf_counter() - began
    if done.returncode != 0:
        raise SystemExit(f"flask {' '.join(args)} failed:\n{done.stderr[-2000:]}")
    return elapsed


def _empty_target(engine: str, parcels: int) -> str:
    if engine == "spatialite":
        path = OUT / f"restored{parcels // 1000}k.sqlite"
        for suffix in ("", "-wal", "-shm", ".writers"):
            Path(str(path) + suffix).unlink(missing_ok=True)
        return f"sqlite:///{path}"
    name = f"lateral_bench_restored_{parcels // 1000}k"
    admin = sa.create_engine(PG_ADMIN, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
    admin.dispose()
    return sa.engine.make_url(PG_ADMIN).set(database=name).render_as_string(hide_password=False)


def run(engine: str, parcels: int) -> dict:
    url = database_url(engine, parcels)
    ensure_city(url, parcels)
    work = OUT / f"backup-{engine}-{parcels // 1000}k"
    shutil.rmtree(work, ignore_errors=True)
    backup_s = _flask(url, work / "blobs", "backup", str(work / "backups"))
    folder = work / "backups" / (work / "backups" / "LATEST").read_text().strip()
    size = sum(p.stat().st_size for p in folder.iterdir())
    restore_s = _flask(_empty_target(engine, parcels), work / "restored-blobs", "restore", str(work / "backups"))
    return {"engine": engine, "parcels": parcels, "backup_s": round(backup_s, 1),
            "backup_mb": round(size / 1e6, 1), "restore_and_verify_s": round(restore_s, 1)}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engines", default="postgis,spatialite")
    parser.add_argument("--parcels", type=int, default=160_000)
    args = parser.parse_args(argv)
    for engine in args.engines.split(","):
        print(json.dumps(run(engine, args.parcels)), flush=True)


if __name__ == "__main__":
    main()
