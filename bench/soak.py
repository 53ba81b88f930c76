"""The soak: tablets sync through a faulty network while the server is killed, then a
verifier reads the database and the blob store.

Usage: python bench/soak.py [--engines spatialite,postgis] [--rounds N] [--tablets T] [--seed S]
(``make soak``; ``SOAK_ROUNDS=1000 make soak`` for the long one.)

- **The network**: every tablet talks to the server through :class:`FaultProxy`, which
  (seeded) cuts a connection after a random number of bytes, resets it, or delays it.
- **The server**: gunicorn as ``make run`` runs it. A killer SIGKILLs a random worker
  every few seconds and, now and then, the master and every worker, then starts
  gunicorn again on the same port.
- **The clients**: half the tablets are ``lateral-field`` (``offline_client``), half an
  independent client written from docs/sync.md with ``requests`` and ``tuspy``. Each
  round is one clear-water survey with 1–3 photos, retried until it is synced.
- **The verifier** (:func:`verify`): every inspection a tablet made is stored exactly
  once; every photo exactly once, its blob hashing to its name and linked to its
  inspection; no photo row without a blob; and no client ever got a 5xx.

Figures go in bench/README.md ("Soak"); a short seeded soak runs in the test suite
(tests/operations/test_soak.py) on both databases.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import requests

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

ROOT = Path(__file__).resolve().parent.parent
SECRET = "soak-secret-key-0123456789abcdef"
POINT = {"type": "Point", "coordinates": [-91.5009, 44.2531]}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ------------------------------------------------------------------ the network
class FaultProxy:
    """A loopback TCP proxy that breaks a share of its connections, reproducibly."""

    def __init__(self, upstream_port: int, seed: int, fault_rate: float = 0.3) -> None:
        self.upstream_port, self.fault_rate = upstream_port, fault_rate
        self.rng = random.Random(seed)
        self.lock = threading.Lock()
        self.faults = {"cut": 0, "reset": 0, "delay": 0, "clean": 0}
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.stopped = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _plan(self) -> tuple[str, float]:
        with self.lock:
            if self.rng.random() >= self.fault_rate:
                kind, value = "clean", 0.0
            else:
                kind = self.rng.choice(["cut", "cut", "reset", "delay"])
                value = self.rng.randint(100, 400_000) if kind == "cut" else self.rng.uniform(0.05, 0.4)
            self.faults[kind] += 1
            return kind, value

    def _accept(self) -> None:
        while not self.stopped:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _serve(self, client: socket.socket) -> None:
        kind, value = self._plan()
        if kind == "reset":
            client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
            client.close()
            return
        if kind == "delay":
            time.sleep(value)
        try:
            upstream = socket.create_connection(("127.0.0.1", self.upstream_port), timeout=5)
        except OSError:
            client.close()
            return
        budget = [int(value)] if kind == "cut" else [None]
        for src, dst in ((client, upstream), (upstream, client)):
            threading.Thread(target=self._pipe, args=(src, dst, budget), daemon=True).start()

    def _pipe(self, src, dst, budget) -> None:
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                if budget[0] is not None:
                    budget[0] -= len(data)
                    if budget[0] <= 0:
                        break  # the signal is lost mid-request or mid-answer
                dst.sendall(data)
        except OSError:
            pass
        for sock in (src, dst):
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            sock.close()

    def stop(self) -> None:
        self.stopped = True
        self.listener.close()


# ------------------------------------------------------------------ the server
class KilledServer:
    """gunicorn on a fixed port; a killer thread SIGKILLs workers and, now and then, everything."""

    def __init__(self, database_url: str, work: Path, seed: int, kill_every: tuple[float, float]) -> None:
        self.port = _free_port()
        self.env = {**os.environ, "DATABASE_URL": database_url, "SECRET_KEY": SECRET, "BLOB_STORE": "local",
                    "BLOB_ROOT": str(work / "blobs"), "TUS_STAGING_DIR": str(work / "tus"),
                    "PYTHONPATH": str(ROOT)}
        self.log = open(work / "gunicorn.log", "ab")
        self.rng = random.Random(seed + 1)
        self.kill_every = kill_every
        self.kills = {"worker": 0, "everything": 0}
        self.proc = None
        self.stopping = threading.Event()

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "--bind", f"127.0.0.1:{self.port}", "--workers", "2",
             "--threads", "4", "--graceful-timeout", "5", "--no-control-socket", "server:create_app()"],
            cwd=ROOT, env=self.env, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                requests.get(f"http://127.0.0.1:{self.port}/api/v1/health", timeout=2)
                return
            except requests.RequestException:
                time.sleep(0.1)
        raise SystemExit("gunicorn did not start; see gunicorn.log")

    def _workers(self) -> list[int]:
        try:
            return [int(p) for p in Path(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children").read_text().split()]
        except FileNotFoundError:
            return []

    def killer(self) -> None:
        while not self.stopping.wait(self.rng.uniform(*self.kill_every)):
            if self.rng.random() < 0.2:
                os.killpg(self.proc.pid, signal.SIGKILL)  # the machine's power, as the app sees it
                self.proc.wait()
                self.kills["everything"] += 1
                self.start()
            elif workers := self._workers():
                os.kill(self.rng.choice(workers), signal.SIGKILL)
                self.kills["worker"] += 1

    def stop(self) -> None:
        self.stopping.set()
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            self.proc.wait(30)


# ------------------------------------------------------------------ the clients
def _photo(rng: random.Random, folder: Path) -> Path:
    from PIL import Image

    size = rng.randint(200, 420)
    image = Image.frombytes("RGB", (size, size), rng.randbytes(size * size * 3))
    out = io.BytesIO()
    image.save(out, "JPEG", quality=85)
    path = folder / f"{hashlib.sha256(out.getvalue()).hexdigest()[:16]}.jpg"
    path.write_bytes(out.getvalue())
    return path


@dataclass
class Tally:
    """What the tablets made and what they saw."""

    inspections: dict[str, list[str]] = field(default_factory=dict)  # uuid -> photo digests
    photo_bytes: int = 0
    push_ms: list[float] = field(default_factory=list)
    server_errors: list[str] = field(default_factory=list)
    crashes: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


def _survey(parcel_id: int, digests: list[str]) -> dict:
    sources = [{"source": "sump_pump", "discharges_to": "sanitary_sewer", "connected_to_sanitary": "yes",
                "test": "dye", "test_result": "positive", "photo": digests}]
    return {"template_id": "clear-water-survey", "template_version": 1, "parcel_id": parcel_id,
            "location": POINT, "started_at": "2026-11-30T09:00:00-06:00",
            "finished_at": "2026-11-30T09:20:00-06:00", "answers": {"access": "granted", "sources": sources},
            "photos": [{"sha256": d, "item_id": "sources.photo", "filename": f"{d[:8]}.jpg"} for d in digests]}


def _server_error(status: int) -> bool:
    """A 5xx that is a fault, not the server's "try again" (503 with Retry-After, 507)."""
    return status >= 500 and status not in (503, 507)


def independent_tablet(base: str, token: str, parcel_id: int, rounds: int, rng: random.Random, work: Path,
                       tally: Tally, deadline: float) -> None:
    """A client written from docs/sync.md alone: requests for the push, tuspy for photos."""
    from tusclient import client as tus_client

    headers = {"Authorization": f"Bearer {token}"}
    for _ in range(rounds):
        photos = [_photo(rng, work) for _ in range(rng.randint(1, 3))]
        digests = [hashlib.sha256(p.read_bytes()).hexdigest() for p in photos]
        record = {"uuid": str(uuid.uuid4()), "kind": "inspection", "data": _survey(parcel_id, digests)}
        with tally.lock:
            tally.inspections[record["uuid"]] = digests
            tally.photo_bytes += sum(p.stat().st_size for p in photos)
        missing = None
        while missing is None and time.monotonic() < deadline:
            began = time.perf_counter()
            try:
                r = requests.post(f"{base}/api/v1/sync/push", json={"records": [record]}, headers=headers,
                                  timeout=60)
            except requests.RequestException:
                time.sleep(0.2)
                continue
            if _server_error(r.status_code):
                tally.server_errors.append(f"push {r.status_code} {r.text[:200]}")
            if r.status_code == 200 and r.json()["results"][0]["status"] in (200, 201):
                tally.push_ms.append((time.perf_counter() - began) * 1000)
                missing = r.json()["results"][0].get("missing_photos", digests)
            else:
                time.sleep(0.2)
        for path, digest in zip(photos, digests, strict=True):
            if digest not in (missing or []):
                continue
            while time.monotonic() < deadline:
                try:
                    if requests.head(f"{base}/api/v1/photos/{digest}", headers=headers, timeout=30).status_code == 200:
                        break
                    client = tus_client.TusClient(f"{base}/api/v1/uploads", headers=headers)
                    client.uploader(str(path), chunk_size=128 * 1024, metadata={
                        "filename": path.name, "sha256": digest, "inspection_uuid": record["uuid"],
                        "item_id": "sources.photo"}).upload()
                except Exception as exc:  # noqa: BLE001 - a cut network looks like anything
                    if _server_error(getattr(exc, "status_code", None) or 0):
                        tally.server_errors.append(f"tus {exc}")
                    time.sleep(0.2)


def field_client_tablet(base: str, token: str, parcel_id: int, rounds: int, rng: random.Random, work: Path,
                        tally: Tally, deadline: float) -> None:
    """The project's own field client, ``lateral-field``'s store and sync."""
    from offline_client.http import Api
    from offline_client.store import Store
    from offline_client.sync import Backoff, Sync

    store = Store(work / f"profile-{uuid.uuid4().hex[:8]}")
    store.set(server_url=base, token=token)
    sync = Sync(store, Api(base, token), backoff=Backoff(base=0.2, cap=1.0))
    while time.monotonic() < deadline:  # the checklists and the area first, as on a new tablet
        try:
            sync.pull()
            break
        except Exception:  # noqa: BLE001 - the network or the server is down: again
            time.sleep(0.2)
    for _ in range(rounds):
        record_uuid = store.start_inspection("clear-water-survey", parcel_id, POINT)
        store.answer(record_uuid, "access", "granted")
        store.answer(record_uuid, "sources", [{"source": "sump_pump", "discharges_to": "sanitary_sewer",
                                               "connected_to_sanitary": "yes", "test": "dye",
                                               "test_result": "positive"}])
        photos = [_photo(rng, work) for _ in range(rng.randint(1, 3))]
        digests = [store.attach_photo(record_uuid, "sources.photo", p) for p in photos]  # the entry's photos
        store.finish(record_uuid)
        with tally.lock:
            tally.inspections[record_uuid] = digests
            tally.photo_bytes += sum(p.stat().st_size for p in photos)
        while time.monotonic() < deadline:
            try:
                sync.sync_until_settled(deadline_s=max(1.0, deadline - time.monotonic()))
                status = store.status()
                if not (status["queued"] or status["photos_pending"]):
                    break
            except Exception:  # noqa: BLE001 - the next attempt starts from what the store kept
                time.sleep(0.2)
    store.close()


def _guarded(client, tally: Tally, *args) -> None:
    """Run a tablet; a tablet that crashes is a finding, not a silent thread."""
    try:
        client(*args)
    except Exception as exc:  # noqa: BLE001 - reported by the verifier
        tally.crashes.append(f"{client.__name__}: {exc!r}")


# ------------------------------------------------------------------ set-up and verification
def prepare(database_url: str, tablets: int) -> tuple[list[str], int]:
    from flask_migrate import upgrade

    from server import create_app
    from server.core.accounts.service import create_user, issue_token
    from server.core.extensions import db
    from server.field.checklist_templates import load_templates
    from server.field.models import Assignment
    from server.network import features
    from server.network.layers import LAYERS

    app = create_app({"SQLALCHEMY_DATABASE_URI": database_url, "SECRET_KEY": SECRET})
    geometry = {"type": "Polygon", "coordinates": [[[-91.501, 44.253], [-91.5008, 44.253], [-91.5008, 44.2532],
                                                    [-91.501, 44.2532], [-91.501, 44.253]]]}
    props = {"parcel_number": "206-00315-0000", "owner_name": "Soak Owner", "mailing_street": "1 Main St",
             "mailing_city": "Arcadia", "mailing_state": "WI", "mailing_zip": "54612", "site_address": "1 Main St"}
    with app.app_context():
        upgrade()
        load_templates()
        _, parcel_id, _ = features.create_feature(LAYERS["parcels"], geometry, props, None)
        tokens = []
        for i in range(tablets):
            user = create_user(f"soak{i:02d}", "inspector", "soak-password-315-x", f"Soak tablet {i}")
            db.session.add(Assignment(inspector_id=user.id, parcel_id=parcel_id, template_id="clear-water-survey",
                                      status="open"))
            tokens.append(issue_token(user, "soak")[0])
        db.session.commit()
        db.session.remove()
        db.engine.dispose()
    return tokens, parcel_id


def verify(database_url: str, blob_root: Path, tally: Tally) -> dict:
    """Read the database and the blob store; count what was lost, duplicated or orphaned."""
    from sqlalchemy import func, select

    from server import create_app
    from server.core.extensions import db
    from server.field.models import Inspection, InspectionPhoto, Photo

    app = create_app({"SQLALCHEMY_DATABASE_URI": database_url, "SECRET_KEY": SECRET})
    with app.app_context():
        stored = dict(db.session.execute(select(Inspection.uuid, func.count()).group_by(Inspection.uuid)).all())
        photo_rows = dict(db.session.execute(select(Photo.sha256, func.count()).group_by(Photo.sha256)).all())
        links = db.session.execute(select(Inspection.uuid, InspectionPhoto.sha256)
                                   .join(InspectionPhoto, InspectionPhoto.inspection_id == Inspection.id)).all()
        db.session.remove()
        db.engine.dispose()
    linked: dict[str, set[str]] = {}
    for inspection_uuid, digest in links:
        linked.setdefault(inspection_uuid, set()).add(digest)
    wanted_photos = {d for digests in tally.inspections.values() for d in digests}
    bad_blobs = []
    for digest in photo_rows:
        path = blob_root / "blobs" / digest[:2] / digest[2:4] / digest
        if not path.is_file() or hashlib.sha256(path.read_bytes()).hexdigest() != digest:
            bad_blobs.append(digest)
    return {
        "inspections": len(tally.inspections),
        "photos": len(wanted_photos),
        "lost_inspections": sum(1 for u in tally.inspections if u not in stored),
        "duplicated_inspections": sum(1 for n in stored.values() if n > 1),
        "lost_photos": sum(1 for d in wanted_photos if d not in photo_rows),
        "duplicated_photos": sum(1 for n in photo_rows.values() if n > 1),
        "unlinked_photos": sum(1 for u, ds in tally.inspections.items() if set(ds) - linked.get(u, set())),
        "orphan_photo_rows": len(set(photo_rows) - wanted_photos),
        "bad_blobs": len(bad_blobs),
        "server_errors": len(tally.server_errors),
        "crashed_tablets": len(tally.crashes),
    }


def soak(engine: str, rounds: int, tablets: int, seed: int, work: Path, database_url: str | None = None,
         kill_every: tuple[float, float] = (2.0, 8.0), time_limit_s: float = 1800) -> dict:
    """One seeded soak on ``engine``; returns the verifier's counts and the figures."""
    work.mkdir(parents=True, exist_ok=True)
    if database_url is None:
        database_url = f"sqlite:///{work / 'soak.sqlite'}"
    tokens, parcel_id = prepare(database_url, tablets)
    server = KilledServer(database_url, work, seed, kill_every)
    server.start()
    proxy = FaultProxy(server.port, seed)
    tally = Tally()
    deadline = time.monotonic() + time_limit_s
    per_tablet = max(1, rounds // tablets)
    killer = threading.Thread(target=server.killer, daemon=True)
    began = time.perf_counter()
    killer.start()
    threads = []
    for i, token in enumerate(tokens):
        client = field_client_tablet if i % 2 else independent_tablet
        threads.append(threading.Thread(target=_guarded, args=(client, tally, proxy.url, token, parcel_id,
                                                               per_tablet, random.Random(seed * 100 + i), work,
                                                               tally, deadline)))
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - began
    server.stop()
    killer.join(30)
    proxy.stop()
    counts = verify(database_url, work / "blobs", tally)
    counts |= {
        "engine": engine, "seed": seed, "tablets": tablets, "seconds": round(elapsed, 1),
        "inspections_per_s": round(len(tally.inspections) / elapsed, 2),
        "photo_mb_per_s": round(tally.photo_bytes / 1e6 / elapsed, 2),
        "push_p50_ms": round(statistics.median(tally.push_ms), 1) if tally.push_ms else None,
        "push_p95_ms": round(sorted(tally.push_ms)[round(0.95 * (len(tally.push_ms) - 1))], 1)
        if tally.push_ms else None,
        "faults": proxy.faults, "kills": server.kills, "timed_out": time.monotonic() > deadline,
        "errors_seen": (tally.server_errors + tally.crashes)[:5],
    }
    return counts


def _postgis_url(name: str) -> str:
    import sqlalchemy as sa

    admin_url = os.environ.get("LATERAL_BENCH_POSTGIS_ADMIN", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres")
    admin = sa.create_engine(admin_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
    admin.dispose()
    return sa.engine.make_url(admin_url).set(database=name).render_as_string(hide_password=False)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engines", default="spatialite,postgis")
    parser.add_argument("--rounds", type=int, default=int(os.environ.get("SOAK_ROUNDS", "40")))
    parser.add_argument("--tablets", type=int, default=4)
    parser.add_argument("--seed", type=int, default=315)
    args = parser.parse_args(argv)
    failed = False
    for engine in args.engines.split(","):
        work = ROOT / "bench" / "out" / f"soak-{engine}-{int(time.time())}"
        url = _postgis_url("lateral_soak") if engine == "postgis" else None
        result = soak(engine, args.rounds, args.tablets, args.seed, work, url)
        print(json.dumps(result), flush=True)
        failed |= any(result[k] for k in ("lost_inspections", "duplicated_inspections", "lost_photos",
                                          "duplicated_photos", "unlinked_photos", "orphan_photo_rows",
                                          "bad_blobs", "server_errors", "crashed_tablets", "timed_out"))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
