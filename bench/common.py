"""Helpers shared by the benchmark scripts: databases, a server process, timing."""

from __future__ import annotations

import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import time
import urllib.parse
from contextlib import contextmanager
from pathlib import Path

import sqlalchemy as sa

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "bench" / "out"
BIN = Path(sys.executable).parent
PG_ADMIN = os.environ.get("LATERAL_BENCH_POSTGIS_ADMIN", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres")


def database_url(engine: str, parcels: int, suffix: str = "") -> str:
    if engine == "spatialite":
        OUT.mkdir(parents=True, exist_ok=True)
        return f"sqlite:///{OUT / f'bench{parcels // 1000}k.sqlite'}"
    name = f"lateral_bench_{parcels // 1000}k{suffix}"
    admin = sa.create_engine(PG_ADMIN, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        if not conn.exec_driver_sql(f"SELECT 1 FROM pg_database WHERE datname = '{name}'").scalar():
            conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
    admin.dispose()
    return sa.engine.make_url(PG_ADMIN).set(database=name).render_as_string(hide_password=False)


def flask(url: str, *args: str, check=True) -> subprocess.CompletedProcess:
    env = {**os.environ, "DATABASE_URL": url, "PYTHONPATH": str(ROOT)}
    return subprocess.run([str(BIN / "flask"), "--app", "server", *args], env=env, cwd=ROOT,
                          check=check, capture_output=True, text=True)



def parcel_extent(url: str) -> tuple:
    """The parcels' extent (minx, miny, maxx, maxy) in a PostGIS bench city (pygeoapi's configuration states it)."""
    engine = sa.create_engine(url)
    with engine.connect() as conn:
        extent = tuple(conn.execute(sa.text(
            "SELECT ST_XMin(e), ST_YMin(e), ST_XMax(e), ST_YMax(e) FROM (SELECT ST_Extent(geom) e FROM parcels) t"
        )).one())
    engine.dispose()
    return extent


def ensure_city(url: str, parcels: int) -> None:
    """Migrate and seed the demo city at ``parcels`` unless it is already there."""
    flask(url, "db", "upgrade")
    engine = sa.create_engine(url) if not url.startswith("sqlite") else None
    count = 0
    if engine is not None:
        with engine.connect() as conn:
            count = conn.exec_driver_sql("SELECT count(*) FROM parcels").scalar()
        engine.dispose()
    else:
        import sqlite3

        with sqlite3.connect(url.removeprefix("sqlite:///")) as conn:
            count = conn.execute("SELECT count(*) FROM parcels").fetchone()[0]
    if count == 0:
        print(f"  seeding {parcels:,} parcels …", file=sys.stderr, flush=True)
        flask(url, "demo", "seed", "--parcels", str(parcels), "--no-living")
    elif count != parcels:
        raise SystemExit(f"{url} holds {count} parcels, not {parcels}; delete it first")


BENCH_USER, BENCH_PASSWORD = "bench", "bench-password-315"


def bearer_token(url: str) -> str:
    """A token for a benchmark user (created on first use)."""
    env = {**os.environ, "DATABASE_URL": url, "PYTHONPATH": str(ROOT)}
    subprocess.run([str(BIN / "flask"), "--app", "server", "users", "create", BENCH_USER, "--role", "admin",
                    "--password-stdin"], input=BENCH_PASSWORD + "\n", env=env, cwd=ROOT,
                   capture_output=True, text=True)  # fails harmlessly when the user exists
    code = (
        "from server import create_app\n"
        "from server.core.extensions import db\n"
        "from server.core.accounts.models import User\n"
        "from server.core.accounts.service import issue_token\n"
        "app = create_app()\n"
        "with app.app_context():\n"
        "    u = db.session.query(User).filter_by(username='" + BENCH_USER + "').one()\n"
        "    t, _ = issue_token(u, 'bench'); db.session.commit(); print(t)\n"
    )
    return subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, check=True,
                          capture_output=True, text=True).stdout.strip().splitlines()[-1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def gunicorn(gunicorn_bin, app: str, env: dict, cwd, workers: int = 2, port: int | None = None,
             extra_args: tuple[str, ...] = ()):
    """``app`` under gunicorn on a loopback port (free if not given); yields the base URL."""
    port = port or free_port()
    args = [str(gunicorn_bin), "-w", str(workers), "-b", f"127.0.0.1:{port}", *extra_args]
    if "--no-control-socket" in subprocess.run([str(gunicorn_bin), "--help"], capture_output=True,
                                                text=True).stdout:
        args.append("--no-control-socket")  # gunicorn 25's control socket: one per server, none needed here
    proc = subprocess.Popen(
        [*args, app],
        env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_port(port)
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def served(url: str, workers: int = 2):
    """gunicorn serving Lateral on a free loopback port; yields the base URL."""
    env = {**os.environ, "DATABASE_URL": url, "PYTHONPATH": str(ROOT)}
    return gunicorn(BIN / "gunicorn", "server:create_app()", env, ROOT, workers)


def wait_for_port(port: int, seconds: float = 60) -> None:
    """Return once something listens on 127.0.0.1:``port`` (or give up after ``seconds``)."""
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.2)


def time_paths(base: str, headers: dict, paths: list[str], warmup: int = 5,
               before_each=None) -> tuple[list[float], list[bytes]]:
    """Milliseconds per request over one keep-alive connection, after ``warmup`` requests.

    ``before_each()``, if given, runs before every request, untimed (the tiles bench empties
    the tile cache there, so that each request is a miss on the same connection).
    """
    parsed = urllib.parse.urlparse(base)
    conn = http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=120)
    samples, bodies = [], []
    for i, path in enumerate([*paths[:warmup], *paths]):
        if before_each is not None:
            before_each()
        start = time.perf_counter()
        conn.request("GET", path, headers=headers)
        resp = conn.getresponse()
        body = resp.read()
        elapsed = (time.perf_counter() - start) * 1000
        if resp.status != 200:
            raise SystemExit(f"{base}{path}: HTTP {resp.status} {body[:300]!r}")
        if i >= warmup:
            samples.append(elapsed)
            bodies.append(body)
    conn.close()
    return samples, bodies


def percentiles(samples_ms: list[float]) -> tuple[float, float]:
    ordered = sorted(samples_ms)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return statistics.median(ordered), p95


def finish(results: dict, report, json_path: Path | None) -> None:
    """Stamp the end of a run (load average, time), print its tables, keep the raw figures."""
    results["loadavg_at_end"] = [round(v, 1) for v in os.getloadavg()]
    results["finished_utc"] = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime())
    report(results)
    if json_path:
        json_path.parent.mkdir(parents=True, exist_ok=True)
        json_path.write_text(json.dumps(results, indent=1) + "\n")
