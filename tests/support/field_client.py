"""The field client against a live server: logged-in profiles, inspections with real
photos, and fault injection (a proxy that drops connections at random byte counts, a
gunicorn server whose worker dies between commit and response), with the checks that
everything arrived exactly once."""

from __future__ import annotations

import hashlib
import json
import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import requests

from offline_client.http import Api
from offline_client.store import Store
from offline_client.sync import Backoff, Sync
from tests.support.databases import PASSWORD, make_migrated_app
from tests.support.env import REPO_ROOT
from tests.support.permits import issue_tap_permit

# Real, accepted photos of 150–160 kB (../shared/realdata/photos).
SMALL_PHOTOS = ("es__jpg_gps_DSCN0010.jpg", "es__jpg_gps_DSCN0021.jpg", "es__jpg_gps_DSCN0042.jpg")
PARCEL = {
    "type": "Feature",
    "geometry": {"type": "Polygon", "coordinates": [[[-91.501, 44.253], [-91.5008, 44.253],
                                                     [-91.5008, 44.2532], [-91.501, 44.2532],
                                                     [-91.501, 44.253]]]},
    "properties": {"parcel_number": "206-00001-0000", "owner_name": "Ann Kulig",
                   "mailing_street": "412 N Dettloff Dr", "mailing_city": "Arcadia", "mailing_state": "WI",
                   "mailing_zip": "54612-1123", "site_address": "412 N Dettloff Dr"},
}
TAP_ANSWERS = {"permit_number": "T-1", "method": "wye", "material_matches_main": "yes",
               "clock_position": 12, "joint_distance_in": 10, "connection_distance_in": 30,
               "ground_frozen": "no"}


def app_overrides(tmp_dir: Path) -> dict:
    """Where a test server keeps photos (never the repository's ``instance/``)."""
    return {
        "BLOB_STORE": {"backend": "local", "root": str(tmp_dir / "blobs")},
        "TUS_STAGING_DIR": str(tmp_dir / "tus"),
    }


def unique_photo(source: Path, dest: Path, label: str) -> Path:
    """A copy of a real JPEG with a comment segment, so each copy has its own digest."""
    data = source.read_bytes()
    assert data[:2] == b"\xff\xd8"
    comment = label.encode()
    segment = b"\xff\xfe" + (len(comment) + 2).to_bytes(2, "big") + comment
    dest.write_bytes(data[:2] + segment + data[2:])
    return dest


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


# ------------------------------------------------------------------ the proxy
class FaultyProxy:
    """TCP proxy on 127.0.0.1 that drops a share of connections part-way.

    Each new connection is, with probability ``drop``, cut after a random number of
    bytes: mostly on the way to the server (mid-request, mid-PATCH body), sometimes
    on the way back (the server committed, the answer is lost). ``bytes_per_second``
    throttles the upstream direction so a test can catch a transfer in flight.
    """

    def __init__(self, upstream_port: int, seed: int = 0, drop: float = 0.0,
                 max_cut: int = 400_000, bytes_per_second: int | None = None) -> None:
        self.upstream_port = upstream_port
        self.drop = drop
        self.max_cut = max_cut
        self.bytes_per_second = bytes_per_second
        self.cuts = 0
        self.connections = 0
        self._rng = random.Random(seed)
        self._lock = threading.Lock()
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self._stopped = False

    def __enter__(self) -> FaultyProxy:
        threading.Thread(target=self._accept, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self._stopped = True
        self._listener.close()

    def _plan(self) -> tuple[int | None, int | None]:
        """(cut upstream after, cut downstream after) for a new connection."""
        with self._lock:
            self.connections += 1
            if self._rng.random() >= self.drop:
                return None, None
            if self._rng.random() < 0.75:
                return self._rng.randint(0, self.max_cut), None
            return None, self._rng.randint(0, 600)

    def _accept(self) -> None:
        while not self._stopped:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(("127.0.0.1", self.upstream_port))
            except OSError:
                client.close()  # server down: the client sees a dropped connection
                continue
            up_cut, down_cut = self._plan()
            threading.Thread(target=self._pipe, args=(client, upstream, up_cut, self.bytes_per_second),
                             daemon=True).start()
            threading.Thread(target=self._pipe, args=(upstream, client, down_cut, None), daemon=True).start()

    def _pipe(self, src: socket.socket, dst: socket.socket, cut_after: int | None, rate: int | None) -> None:
        sent = 0
        size = 16384 if rate else 65536
        while True:
            try:
                data = src.recv(size)
            except OSError:
                data = b""
            if not data:
                break
            if cut_after is not None and sent + len(data) >= cut_after:
                try:
                    dst.sendall(data[: cut_after - sent])
                except OSError:
                    pass
                with self._lock:
                    self.cuts += 1
                break
            try:
                dst.sendall(data)
            except OSError:
                break
            sent += len(data)
            if rate:
                time.sleep(len(data) / rate)
        for sock in (src, dst):
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            sock.close()


# ----------------------------------------------------------- gunicorn server
def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class ServerProcess:
    """``gunicorn tests.support.chaos_app:app`` on a database already migrated.

    ``die_after_commit`` (0–1) is the chance that the worker is SIGKILLed after the
    app answered a push or a tus PATCH (so after its commit) and before the answer
    leaves; gunicorn's master then starts a new worker, as a supervisor would.
    """

    def __init__(self, overrides: dict, tmp_dir: Path, die_after_commit: float = 0.0, seed: int = 0) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.tmp_dir = tmp_dir
        self.env = {
            **os.environ,
            "LATERAL_TEST_APP_OVERRIDES": json.dumps(overrides),
            "LATERAL_TEST_DIE_AFTER_COMMIT": str(die_after_commit),
            "LATERAL_TEST_CHAOS_SEED": str(seed),
            "LATERAL_TEST_CHAOS_COUNTER": str(tmp_dir / "chaos-counter"),
            "PYTHONPATH": str(REPO_ROOT),
        }
        self.proc: subprocess.Popen | None = None
        self.log_path = tmp_dir / f"gunicorn-{self.port}.log"

    def requests_seen(self, start: str) -> int:
        """Access-log lines whose request line starts with ``start`` (e.g. ``POST /api/v1/uploads ``)."""
        return sum(f'"{start}' in line for line in self.log_path.read_text(errors="replace").splitlines())

    def start(self) -> ServerProcess:
        log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "--bind", f"127.0.0.1:{self.port}", "--workers", "1",
             "--threads", "4", "--graceful-timeout", "2", "--preload", "--access-logfile", "-",
             "tests.support.chaos_app:app"],
            cwd=REPO_ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        )
        wait_until_up(self.url, self.proc)
        return self

    def kill(self) -> None:
        """SIGKILL the whole server (master and workers)."""
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=10)

    def deaths(self) -> int:
        path = self.tmp_dir / "chaos-deaths"
        return len(path.read_text().splitlines()) if path.exists() else 0

    def __enter__(self) -> ServerProcess:
        return self.start()

    def __exit__(self, *exc) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()


def wait_until_up(url: str, proc: subprocess.Popen | None = None, timeout: float = 30.0) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode}")
        try:
            if requests.get(f"{url}/api/v1/health", timeout=2).status_code < 500:
                return
        except requests.RequestException:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"{url} did not come up in {timeout} s")


# -------------------------------------------------------------- server state
def create_inspector(app, username: str = "inspector1") -> None:
    """A committed inspector account (password ``tests.support.databases.PASSWORD``) and the
    checklist templates loaded."""
    from server.core.accounts.service import create_user
    from server.core.extensions import db
    from server.field.checklist_templates import load_templates

    with app.app_context():
        create_user(username, "inspector", PASSWORD, "Field Inspector")
        load_templates()
        db.session.commit()


def create_parcel(app) -> int:
    """A committed parcel (through the feature API, as an admin); returns its id."""
    from server.core.accounts.service import create_user, issue_token
    from server.core.extensions import db

    with app.app_context():
        admin = create_user("admin-fixture", "admin", PASSWORD)
        token = issue_token(admin, "fixture")[0]
        db.session.commit()
        response = app.test_client().post("/api/v1/parcels", json=PARCEL,
                                          headers={"Authorization": f"Bearer {token}"})
        assert response.status_code == 201, response.get_json()
        parcel_id = response.get_json()["id"]
        # The tap inspections recorded on it are made under a tap permit (TAP-PERMIT).
        issue_tap_permit(app.test_client(), {"Authorization": f"Bearer {token}"}, parcel_id)
        db.session.commit()
        return parcel_id


def server_state(app) -> dict:
    """What the server holds: inspection UUIDs (with repeats), photo links and photos."""
    import sqlalchemy as sa

    from server.core.extensions import db
    from server.field.models import Inspection, InspectionPhoto, Photo

    with app.app_context():
        try:
            uuids = db.session.scalars(sa.select(Inspection.uuid)).all()
            links = db.session.execute(
                sa.select(Inspection.uuid, InspectionPhoto.sha256)
                .join(InspectionPhoto, InspectionPhoto.inspection_id == Inspection.id)
            ).all()
            photos = db.session.scalars(sa.select(Photo.sha256)).all()
        finally:
            db.session.remove()
    return {"inspections": list(uuids), "links": [tuple(r) for r in links], "photos": list(photos)}


def assert_exactly_once(app, blob_root: Path, expected: dict[str, list[str]]) -> None:
    """Every inspection once, every photo once, linked to its inspection, bytes equal.

    Args:
        expected: inspection UUID → SHA-256 of each photo file the client attached
            (other tests' records on the same server are not looked at).
    """
    from collections import Counter

    from server.core.storage import LocalBlobStore

    state = server_state(app)
    inspections = Counter(state["inspections"])
    assert {u: inspections[u] for u in expected} == dict.fromkeys(expected, 1), "an inspection is missing or doubled"
    wanted_photos = {sha for shas in expected.values() for sha in shas}
    photos = Counter(state["photos"])
    assert {s: photos[s] for s in wanted_photos} == dict.fromkeys(wanted_photos, 1), "a photo is missing or doubled"
    links = sorted(link for link in state["links"] if link[0] in expected)
    assert links == sorted((u, sha) for u, shas in expected.items() for sha in shas)
    blobs = LocalBlobStore(blob_root)
    for sha in wanted_photos:
        digest = hashlib.sha256()
        with blobs.open(sha) as fh:
            while chunk := fh.read(1 << 20):
                digest.update(chunk)
        assert digest.hexdigest() == sha, f"stored bytes of {sha[:12]} differ"


# Tests retry within milliseconds; the field default is seconds to minutes.
FAST = Backoff(base=0.01, cap=0.1)


LOCATION = {"type": "Point", "coordinates": [-91.5009, 44.2531]}


@dataclass
class Live:
    kind: str
    app: object
    url: str
    parcel_id: int
    blob_root: Path
    tmp: Path

    @property
    def port(self) -> int:
        return int(self.url.rsplit(":", 1)[1])

    def profile(self, folder: Path, url: str | None = None) -> Store:
        return logged_in_profile(folder, self.url, url)


def logged_in_profile(folder: Path, login_url: str, url: str | None = None) -> Store:
    """A profile in ``folder``, logged in and pulled at ``login_url``; it then talks to
    ``url`` (a proxy) if given."""
    store = Store(folder)
    api = Api(login_url)
    store.set(server_url=url or login_url, token=api.login("inspector1", PASSWORD, f"pytest {folder.name}"))
    Sync(store, api).pull()
    return store


def make_live(kind: str, tmp: Path):
    overrides = app_overrides(tmp)
    app, drop = make_migrated_app(kind, tmp, **overrides)
    create_inspector(app)
    parcel_id = create_parcel(app)
    return app, drop, parcel_id, Path(overrides["BLOB_STORE"]["root"])


def dispose(app, drop) -> None:
    from server.core.extensions import db

    with app.app_context():
        db.session.remove()
        db.engine.dispose()
    if drop:
        drop()


def record_inspection(store: Store, parcel_id: int, photos: list[Path]) -> str:
    """A finished tap inspection with ``photos`` attached; returns its UUID."""
    record_uuid = store.start_inspection("tap", parcel_id, LOCATION)
    for item, value in TAP_ANSWERS.items():
        store.answer(record_uuid, item, value)
    for photo in photos:
        store.attach_photo(record_uuid, "tap_photo", photo)
    store.finish(record_uuid)
    return record_uuid


def photos_for(real_photos: list[Path], folder: Path, label: str, count: int) -> list[Path]:
    """``count`` distinct photos (real JPEGs, each with its own comment segment)."""
    folder.mkdir(parents=True, exist_ok=True)
    return [
        unique_photo(real_photos[i % len(real_photos)], folder / f"{label}-{i}.jpg", f"{label}-{i}")
        for i in range(count)
    ]
