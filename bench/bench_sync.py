"""Field sync: a day of field work pushed over loopback, beside a raw upload of the same bytes.

    .venv/bin/python -m bench.bench_sync [--inspections 30] [--photos-each 5] [--mb 4]
                                         [--workers 2] [--rss-sizes 1,4,8]

1. A fresh SpatiaLite database (migrated, checklists loaded, one parcel, one user) and
   Lateral under gunicorn (2 workers × 4 threads) on 127.0.0.1.
2. 30 inspections with 5 photos each; each photo a ~4 MB JPEG of noise (quality 95,
   the worst case for a photo's size) made unique by a comment segment.
3. Timed: ``Sync.sync()`` — push, tus uploads, pull — from the field client's store.
4. Timed beside each day's sync: the same files PUT to a minimal WSGI app under the
   same gunicorn settings that streams each body to a new file, fsyncs it and keeps it
   (what any server must do before acknowledging a photo); same client concurrency.
   Beside it, for the record, the same sink deleting each file once synced (the floor
   of sessions 1–3: recycling its page-cache memory made it a third faster than any
   server that keeps what it receives). Five days of work
   (``--rounds``), each with its own photos, the floors timed after the sync on even
   days and before it on odd ones; the ratio reported is the median of the days'
   ratios, since loopback throughput and fsync latency on a shared machine swing by a
   third from one minute to the next.
5. Server memory: every gunicorn worker's VmRSS sampled every 20 ms; growth is the
   peak during the sync minus the level after a warm-up sync of 2 photos. Repeated
   with other photo sizes to show it does not follow the photo size.

Prints a Markdown table for ``bench/README.md`` ("Field sync").
"""

from __future__ import annotations

import argparse
import io
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import requests
from PIL import Image

from bench.common import OUT, ROOT, flask

PASSWORD = "bench-password-315"
PARCEL = {
    "type": "Feature",
    "geometry": {"type": "Polygon", "coordinates": [[[-91.501, 44.253], [-91.5008, 44.253],
                                                     [-91.5008, 44.2532], [-91.501, 44.2532],
                                                     [-91.501, 44.253]]]},
    "properties": {"parcel_number": "206-00001-0000", "owner_name": "Bench Owner",
                   "mailing_street": "1 Main St", "mailing_city": "Arcadia", "mailing_state": "WI",
                   "mailing_zip": "54612", "site_address": "1 Main St"},
}
TAP_ANSWERS = {"permit_number": "T-1", "method": "wye", "material_matches_main": "yes",
               "clock_position": 12, "joint_distance_in": 10, "connection_distance_in": 30,
               "ground_frozen": "no"}


# ------------------------------------------------------------------ WSGI apps
def app_from_env():
    """Lateral with the bench's settings (gunicorn ``bench.bench_sync:app_from_env()``)."""
    from server import create_app

    return create_app(json.loads(os.environ["LATERAL_BENCH_OVERRIDES"]))


def tus_only_from_env():
    """The transfer alone: Lateral's tus server storing blobs, no photo checks or derivatives."""
    from flask import Flask

    from server.core.storage import LocalBlobStore
    from server.field.uploads import TusServer
    from server.field.uploads.blueprint import make_tus_blueprint

    root = Path(os.environ["LATERAL_BENCH_TUS_ONLY"])
    blobs = LocalBlobStore(root / "blobs")
    tus = TusServer(root / "staging", max_size=100_000_000,
                    on_complete=lambda info, path: blobs.put_file(path, info.sha256, verified=True, link=True))
    app = Flask(__name__)
    app.register_blueprint(make_tus_blueprint(lambda: tus, lambda: "bench"))
    return app


def raw_sink(environ, start_response):
    """The floor: stream the body to a new file in 256 KiB pieces, fsync, answer 204.

    The file is kept, as any server keeps what it was sent (Lateral keeps every photo);
    the bench deletes the day's files after timing. With ``LATERAL_BENCH_SINK_DELETE``
    each file is deleted as soon as it is synced instead: the kernel then reuses the
    same page-cache memory for the next file, which on this VM made the floor about a
    third faster than any server that keeps its uploads (timed beside it for the record).
    """
    remaining = int(environ.get("CONTENT_LENGTH") or 0)
    stream = environ["wsgi.input"]
    path = Path(os.environ["LATERAL_BENCH_SINK"]) / uuid.uuid4().hex
    with open(path, "wb") as out:
        while remaining:
            chunk = stream.read(min(256 * 1024, remaining))
            if not chunk:
                break
            out.write(chunk)
            remaining -= len(chunk)
        out.flush()
        os.fsync(out.fileno())
    if os.environ.get("LATERAL_BENCH_SINK_DELETE"):
        path.unlink()
    start_response("204 No Content", [])
    return [b""]


# -------------------------------------------------------------------- photos
def noise_jpeg(target_bytes: int, seed: int) -> bytes:
    """A JPEG of random pixels of about ``target_bytes`` (≈ 1.18 bytes per pixel at q95)."""
    pixels = target_bytes / 1.18
    width = int((pixels * 4 / 3) ** 0.5)
    height = int(pixels / width)
    rng = np.random.default_rng(seed)
    buf = io.BytesIO()
    Image.fromarray(rng.integers(0, 256, (height, width, 3), dtype=np.uint8)).save(buf, "JPEG", quality=95)
    return buf.getvalue()


def unique_copies(base: bytes, folder: Path, count: int, label: str) -> list[Path]:
    """``count`` copies of a JPEG, each with its own comment segment (its own SHA-256)."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(count):
        comment = f"{label} {i}".encode()
        segment = b"\xff\xfe" + (len(comment) + 2).to_bytes(2, "big") + comment
        path = folder / f"IMG_{label}_{i:04d}.jpg"
        path.write_bytes(base[:2] + segment + base[2:])
        paths.append(path)
    return paths


# -------------------------------------------------------------------- server
class Gunicorn:
    def __init__(self, target: str, env: dict, log: Path, workers: int = 2, threads: int = 4) -> None:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            self.port = sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "--bind", f"127.0.0.1:{self.port}", "--workers", str(workers),
             "--threads", str(threads), "--timeout", "120", target],
            cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT), **env},
            stdout=open(log, "ab"), stderr=subprocess.STDOUT, start_new_session=True,
        )

    def wait(self, path: str) -> None:
        end = time.monotonic() + 60
        while time.monotonic() < end:
            try:
                requests.request("OPTIONS" if path == "/" else "GET", self.url + path, timeout=2)
                return
            except requests.RequestException:
                time.sleep(0.1)
        raise SystemExit(f"server at {self.url} did not start")

    def workers(self) -> list[int]:
        children = Path(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children").read_text().split()
        return [int(c) for c in children]

    def stop(self) -> None:
        os.killpg(self.proc.pid, signal.SIGTERM)
        self.proc.wait(timeout=20)


class RssSampler:
    """Sum and per-worker peak of gunicorn workers' VmRSS, sampled every 20 ms."""

    def __init__(self, server: Gunicorn) -> None:
        self.server = server
        self.peak: dict[int, int] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def current(self) -> dict[int, int]:
        out = {}
        for pid in self.server.workers():
            try:
                for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                    if line.startswith("VmRSS:"):
                        out[pid] = int(line.split()[1]) * 1024
            except FileNotFoundError:
                pass
        return out

    def _run(self) -> None:
        while not self._stop.is_set():
            for pid, rss in self.current().items():
                self.peak[pid] = max(self.peak.get(pid, 0), rss)
            time.sleep(0.02)

    def __enter__(self) -> RssSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()


def prepare_lateral(work: Path) -> tuple[Gunicorn, int]:
    url = f"sqlite:///{work / 'lateral.sqlite'}"
    flask(url, "db", "upgrade")
    flask(url, "checklists", "load", check=False)
    env = {**os.environ, "DATABASE_URL": url, "PYTHONPATH": str(ROOT)}
    subprocess.run([sys.executable, "-m", "flask", "--app", "server", "users", "create", "bench", "--role",
                    "admin", "--password-stdin"], input=PASSWORD + "\n", env=env, cwd=ROOT, check=True,
                   capture_output=True, text=True)
    overrides = {"SQLALCHEMY_DATABASE_URI": url, "SECRET_KEY": "bench-secret-key-not-for-production",
                 "BLOB_STORE": {"backend": "local", "root": str(work / "blobs")},
                 "TUS_STAGING_DIR": str(work / "tus")}
    server = Gunicorn("bench.bench_sync:app_from_env()", {"LATERAL_BENCH_OVERRIDES": json.dumps(overrides)},
                      OUT / "bench_sync-server.log")
    server.wait("/api/v1/health")
    token = requests.post(f"{server.url}/api/v1/auth/token", timeout=30,
                          json={"username": "bench", "password": PASSWORD, "device_name": "bench"}).json()["token"]
    response = requests.post(f"{server.url}/api/v1/parcels", json=PARCEL, timeout=30,
                             headers={"Authorization": f"Bearer {token}"})
    response.raise_for_status()
    return server, response.json()["id"]


def field_work(store, parcel_id: int, photos: list[Path], per_inspection: int) -> None:
    for start in range(0, len(photos), per_inspection):
        record_uuid = store.start_inspection("tap", parcel_id, {"type": "Point", "coordinates": [-91.5009, 44.2531]})
        for item, value in TAP_ANSWERS.items():
            store.answer(record_uuid, item, value)
        for photo in photos[start:start + per_inspection]:
            store.attach_photo(record_uuid, "tap_photo", photo)
        store.finish(record_uuid)


def timed_sync(server: Gunicorn, work: Path, name: str, parcel_id: int, photos: list[Path],
               per_inspection: int, workers: int) -> tuple[float, int]:
    """Seconds for the field client to settle a day of work, and the retries it needed."""
    from offline_client.http import Api
    from offline_client.store import Store
    from offline_client.sync import Backoff, Sync

    store = Store(work / f"profile-{name}")
    api = Api(server.url)
    store.set(server_url=server.url, token=api.login("bench", PASSWORD, f"bench {name}"))
    sync = Sync(store, api, backoff=Backoff(base=0.2, cap=2.0))
    sync.pull()
    field_work(store, parcel_id, photos, per_inspection)
    started = time.perf_counter()
    sync.sync_until_settled(deadline_s=900, workers=workers)
    elapsed = time.perf_counter() - started
    status = store.status()
    if status["queued"] or status["photos_pending"] or status["problems"]:
        raise SystemExit(f"sync did not finish: {status}")
    retries = sum(p["attempts"] for p in store.photos()) + sum(r["attempts"] - 1 for r in store.records())
    store.close()
    return elapsed, retries


def timed_tus_only(photos: list[Path], workers: int, work: Path) -> tuple[float, float]:
    """The field client's tus transfer (tuspy through its session) to a tus-only server.

    Returns seconds (scaled to all photos; the first is a warm-up) and the workers'
    peak RSS growth in MiB.
    """
    from tusclient.client import TusClient

    from offline_client.http import Api
    from offline_client.tus import CHUNK_SIZE, PhotoUploader

    root = work / f"tus-only-{uuid.uuid4().hex[:6]}"
    server = Gunicorn("bench.bench_sync:tus_only_from_env()", {"LATERAL_BENCH_TUS_ONLY": str(root)},
                      OUT / "bench_sync-tus.log")
    server.wait("/")
    local = threading.local()

    def upload(path: Path) -> None:  # as the field client does: one named POST, PATCHes if larger
        if not hasattr(local, "api"):
            local.api = Api(server.url)
        client = TusClient(local.api.url("uploads"))
        uploader = PhotoUploader(local.api, file_path=str(path), client=client, chunk_size=CHUNK_SIZE,
                                 metadata={"filename": path.name})
        uploader.url = f"{local.api.url('uploads')}/{uuid.uuid4().hex}"
        uploader.create_with_upload()
        while uploader.offset < uploader.stop_at:
            uploader.upload_chunk()

    try:
        upload(photos[0])  # warm-up
        with RssSampler(server) as sampler:
            before = sampler.current()
            started = time.perf_counter()
            with ThreadPoolExecutor(workers) as pool:
                list(pool.map(upload, photos[1:]))
            elapsed = time.perf_counter() - started
        growth = max(sampler.peak.get(pid, 0) - rss for pid, rss in before.items()) / 2**20
        return elapsed * len(photos) / (len(photos) - 1), growth
    finally:
        server.stop()
        shutil.rmtree(root, ignore_errors=True)


def ingest_breakdown(photo: Path, work: Path) -> dict[str, float]:
    """Median seconds of each step the server runs on a photo (in-process).

    On the last byte: ``validate_photo`` and the blob store taking the staged file
    (hard link). On the first GET of display/thumbnail: ``make_derivatives``.
    """
    import hashlib
    import statistics

    from server.core.storage import LocalBlobStore
    from server.field.photos import make_derivatives, validate_photo

    blobs = LocalBlobStore(work / "breakdown-blobs")
    sha256 = hashlib.sha256(photo.read_bytes()).hexdigest()

    def store_blob() -> None:
        blobs.delete(sha256)  # a new blob each time, as on the server
        blobs.put_file(photo, sha256, verified=True, link=True)

    steps = {"validate_photo": lambda: validate_photo(photo), "blob put_file (link)": store_blob,
             "make_derivatives (first GET, not in the sync)": lambda: make_derivatives(photo)}
    out = {}
    for name, step in steps.items():
        times = []
        for _ in range(5):
            started = time.perf_counter()
            step()
            times.append(time.perf_counter() - started)
        out[name] = statistics.median(times)
    return out


def timed_raw(photos: list[Path], workers: int, work: Path, delete: bool = False) -> float:
    """Seconds to PUT ``photos`` to the raw sink; the files it kept are deleted after timing."""
    sink = work / f"sink-{uuid.uuid4().hex[:6]}"
    sink.mkdir()
    env = {"LATERAL_BENCH_SINK": str(sink), **({"LATERAL_BENCH_SINK_DELETE": "1"} if delete else {})}
    server = Gunicorn("bench.bench_sync:raw_sink", env, OUT / "bench_sync-raw.log")
    server.wait("/")
    local = threading.local()

    def put(path: Path) -> None:
        if not hasattr(local, "session"):
            local.session = requests.Session()
        with open(path, "rb") as fh:
            local.session.put(f"{server.url}/upload", data=fh, timeout=120).raise_for_status()

    try:
        put(photos[0])  # warm-up
        started = time.perf_counter()
        with ThreadPoolExecutor(workers) as pool:
            list(pool.map(put, photos))
        return time.perf_counter() - started
    finally:
        server.stop()
        shutil.rmtree(sink, ignore_errors=True)


def timed_floors(photos: list[Path], workers: int, work: Path) -> tuple[float, float, float]:
    """The raw upload (the floor), the old deleting sink, and the tus transfer alone, in seconds."""
    raw_s = timed_raw(photos, workers, work)
    deleting_s = timed_raw(photos, workers, work, delete=True)
    tus_s, _ = timed_tus_only(photos, workers, work)
    return raw_s, deleting_s, tus_s


def memory_run(server: Gunicorn, work: Path, parcel_id: int, mb: float, count: int, workers: int) -> dict:
    photos = unique_copies(noise_jpeg(int(mb * 1e6), seed=int(mb * 10)), work / f"photos-{mb}", count, f"m{mb}")
    with RssSampler(server) as sampler:
        before = sampler.current()
        timed_sync(server, work, f"mem{mb}", parcel_id, photos, 5, workers)
    growth = max(sampler.peak.get(pid, 0) - rss for pid, rss in before.items())
    with Image.open(photos[0]) as image:
        pixels = image.width * image.height
    return {"photos": count, "size": photos[0].stat().st_size, "pixels": pixels, "growth_mb": growth / 2**20,
            "photos_list": photos}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--inspections", type=int, default=30)
    parser.add_argument("--photos-each", type=int, default=5)
    parser.add_argument("--mb", type=float, default=4.0)
    parser.add_argument("--workers", type=int, default=2, help="photos in flight (client) and raw PUTs in flight")
    parser.add_argument("--rss-sizes", default="1,4,8", help="photo sizes (MB) for the memory runs")
    parser.add_argument("--rss-photos", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=5,
                        help="days of work, each timed beside its raw upload; the ratio is their median")
    args = parser.parse_args(argv)

    OUT.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="sync-", dir=OUT))
    try:
        server, parcel_id = prepare_lateral(work)
        try:
            warm = unique_copies(noise_jpeg(1_000_000, seed=99), work / "warm", 2, "warm")
            timed_sync(server, work, "warm", parcel_id, warm, 2, args.workers)
            count = args.inspections * args.photos_each
            base = noise_jpeg(int(args.mb * 1e6), seed=1)
            rounds = []  # (sync s, raw s, tus-only s, retries, server RSS growth MiB), one per day of work
            for day in range(args.rounds):
                # A new day, new photos (the server would recognise yesterday's); the raw
                # upload and the tus transfer of the same files right after, on the same machine.
                photos = unique_copies(base, work / f"day{day}", count, f"day{day}")
                if day % 2:  # every other day the floors go first, so a drift favours neither
                    raw_s, deleting_s, tus_s = timed_floors(photos, args.workers, work)
                with RssSampler(server) as sampler:
                    before = sampler.current()
                    sync_s, retries = timed_sync(server, work, f"day{day}", parcel_id, photos, args.photos_each,
                                                 args.workers)
                growth = max(sampler.peak.get(pid, 0) - rss for pid, rss in before.items()) / 2**20
                if not day % 2:  # Lateral's workers sit idle meanwhile
                    raw_s, deleting_s, tus_s = timed_floors(photos, args.workers, work)
                rounds.append((sync_s, raw_s, tus_s, retries, growth, deleting_s))
            total = sum(p.stat().st_size for p in photos)
            memory = [memory_run(server, work, parcel_id, float(mb), args.rss_photos, args.workers)
                      for mb in args.rss_sizes.split(",")]
        finally:
            server.stop()
        breakdown = ingest_breakdown(photos[0], work)
        for m in memory:
            m["tus_growth_mb"] = timed_tus_only(m["photos_list"], args.workers, work)[1]
    finally:
        shutil.rmtree(work, ignore_errors=True)

    mb_s = total / 2**20
    print(f"\n{args.inspections} inspections, {count} photos of {total / count / 1e6:.2f} MB "
          f"({mb_s:.0f} MiB), {args.workers} in flight, {args.rounds} days of work\n")
    print("| day | field sync (push + tus + pull) | raw HTTP PUT, same files, kept | tus transfer alone | "
          "sync ÷ raw | tus ÷ raw | raw PUT, each file deleted once synced | sync ÷ that | retries | "
          "server RSS growth |\n|---|---|---|---|---|---|---|---|---|---|")
    for day, (sync_s, raw_s, tus_s, retries, growth, deleting_s) in enumerate(rounds, 1):
        print(f"| {day} | {sync_s:.2f} s, {mb_s / sync_s:.0f} MiB/s | {raw_s:.2f} s, {mb_s / raw_s:.0f} MiB/s | "
              f"{tus_s:.2f} s, {mb_s / tus_s:.0f} MiB/s | {raw_s / sync_s:.2f} | {raw_s / tus_s:.2f} | "
              f"{deleting_s:.2f} s | {deleting_s / sync_s:.2f} | {retries} | {growth:.1f} MiB |")
    ratio = statistics.median(raw_s / sync_s for sync_s, raw_s, *_ in rounds)
    deleting = statistics.median(r[5] / r[0] for r in rounds)
    print(f"\n**sync ÷ raw throughput, median of {len(rounds)} days: {ratio:.2f}** (target ≥ 0.8); "
          f"against the sink that deletes each file: {deleting:.2f}; "
          f"server peak RSS growth at most {max(r[4] for r in rounds):.1f} MiB (target ≤ 64)")
    steps = ", ".join(f"{name} {sec * 1000:.0f} ms" for name, sec in breakdown.items())
    print(f"| server work per photo (median of 5, in-process) | {steps} |")
    print("\n| photos | Lateral worker peak RSS growth | tus-only worker peak RSS growth |\n|---|---|---|")
    for m in memory:
        print(f"| {m['photos']} × {m['size'] / 1e6:.1f} MB ({m['pixels'] / 1e6:.1f} MP) | {m['growth_mb']:.1f} MiB "
              f"| {m['tus_growth_mb']:.1f} MiB |")


if __name__ == "__main__":
    main()
