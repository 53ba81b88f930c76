"""Fault injection: whatever breaks, every inspection and photo ends on the server once.

1. A proxy drops connections at random byte counts, both ways, for many seeded rounds.
2. The server's worker is SIGKILLed after it committed a push or a PATCH and before
   the answer left; gunicorn starts a new one, the client resends.
3. The client process is SIGKILLed mid-``PATCH``, restarted, and resumes the same tus
   upload from the server's offset; and SIGKILLed at random instants (start-up, push,
   upload, pull).

Each ends with :func:`assert_exactly_once`: every inspection once, every photo once,
linked to its inspection, with the SHA-256 of the file the inspector attached.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time

import pytest

from offline_client.sync import Sync
from tests.support.databases import ENGINES
from tests.support.env import REPO_ROOT, need_shared
from tests.support.field_client import (
    FAST,
    FaultyProxy,
    ServerProcess,
    app_overrides,
    assert_exactly_once,
    dispose,
    logged_in_profile,
    make_live,
    photos_for,
    record_inspection,
    sha256_file,
)

DROP_ROUNDS = 20
KILL_ROUNDS = 6
CLIENT_KILLS = 3
BIG_PHOTO = "es__jpg_hdr_iphone_hdr_YES.jpg"  # 1.9 MB, long enough to be caught mid-PATCH


def _day_of_work(rng: random.Random, store, parcel_id: int, real_photos, folder, label: str) -> dict:
    """1–3 inspections with 1–2 distinct photos each; returns UUID → photo digests."""
    expected = {}
    for i in range(rng.randint(1, 3)):
        photos = photos_for(real_photos, folder, f"{label}-{i}", rng.randint(1, 2))
        expected[record_inspection(store, parcel_id, photos)] = [sha256_file(p) for p in photos]
    return expected


def _assert_nothing_left(store) -> None:
    status = store.status()
    assert (status["queued"], status["photos_pending"], status["problems"]) == (0, 0, [])


@pytest.mark.slow
def test_dropped_connections_lose_and_double_nothing(live, real_photos, tmp_path):
    rng = random.Random(f"drops-{live.kind}")
    expected = {}
    with FaultyProxy(live.port, seed=rng.randrange(2**32), drop=0.35) as proxy:
        store = live.profile(tmp_path / "tablet", url=proxy.url)
        sync = Sync(store, backoff=FAST, chunk_size=64 * 1024)
        for round_no in range(DROP_ROUNDS):
            expected |= _day_of_work(rng, store, live.parcel_id, real_photos, tmp_path / "cam", f"r{round_no}")
            sync.sync_until_settled(deadline_s=30)
            _assert_nothing_left(store)
    assert proxy.cuts >= DROP_ROUNDS, "the proxy should have cut connections"
    assert_exactly_once(live.app, live.blob_root, expected)


@pytest.fixture(params=ENGINES)
def server_db(request, tmp_path):
    """A fresh migrated database for a server in a subprocess: (kind, app, parcel, blobs, overrides)."""
    app, drop, parcel_id, blob_root = make_live(request.param, tmp_path)
    overrides = {**app_overrides(tmp_path), "SECRET_KEY": "test-secret-key-of-a-test-server",
                 "SQLALCHEMY_DATABASE_URI": app.config["SQLALCHEMY_DATABASE_URI"]}
    try:
        yield request.param, app, parcel_id, blob_root, overrides
    finally:
        dispose(app, drop)


@pytest.mark.slow
def test_a_server_killed_between_commit_and_response_loses_and_doubles_nothing(server_db, real_photos, tmp_path):
    kind, app, parcel_id, blob_root, overrides = server_db
    rng = random.Random(f"kills-{kind}")
    expected = {}
    with ServerProcess(overrides, tmp_path, die_after_commit=0.3, seed=rng.randrange(2**32)) as server:
        store = logged_in_profile(tmp_path / "tablet", server.url)
        sync = Sync(store, backoff=FAST)
        for round_no in range(KILL_ROUNDS):
            expected |= _day_of_work(rng, store, parcel_id, real_photos, tmp_path / "cam", f"k{round_no}")
            sync.sync_until_settled(deadline_s=60)
            _assert_nothing_left(store)
        assert server.deaths() > 0, "the worker should have died after a commit"
    assert_exactly_once(app, blob_root, expected)


def _staged(staging) -> dict[str, int]:
    return {p.name: p.stat().st_size for p in staging.glob("*.bin") if p.exists()}


def _patch_in_flight(staging, before: dict[str, int], full: int) -> bool:
    """A tus upload has grown since ``before`` and is not complete: a PATCH is under way."""
    return any(before.get(name, 0) < size < full for name, size in _staged(staging).items())


@pytest.mark.slow
def test_a_client_killed_mid_upload_resumes_the_same_upload(server_db, tmp_path):
    kind, app, parcel_id, blob_root, overrides = server_db
    big = need_shared("realdata", "photos", BIG_PHOTO)
    rng = random.Random(f"client-kill-{kind}")
    with ServerProcess(overrides, tmp_path) as server, \
            FaultyProxy(server.port, bytes_per_second=1_500_000) as slow_link:
        store = logged_in_profile(tmp_path / "tablet", server.url, slow_link.url)
        expected = {}
        for i in range(2):
            photo = photos_for([big], tmp_path / "cam", f"big-{i}", 1)
            expected[record_inspection(store, parcel_id, photo)] = [sha256_file(photo[0])]
        store.close()
        full = min(os.path.getsize(p) for p in (tmp_path / "cam").iterdir())
        command = [sys.executable, "-m", "offline_client.cli", "--profile", str(tmp_path / "tablet"), "sync"]
        env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
        staging = tmp_path / "tus"
        kills = 0
        for _ in range(CLIENT_KILLS):
            before = _staged(staging) if staging.exists() else {}
            client = subprocess.Popen(command, cwd=REPO_ROOT, env=env, stdout=subprocess.DEVNULL,
                                      stderr=subprocess.DEVNULL)
            end = time.monotonic() + 20
            while client.poll() is None and time.monotonic() < end and not _patch_in_flight(staging, before, full):
                time.sleep(0.02)
            time.sleep(rng.uniform(0.05, 0.4))  # somewhere inside the PATCH body
            if client.poll() is None:
                os.kill(client.pid, signal.SIGKILL)
                kills += 1
            client.wait(timeout=10)
        assert kills >= 2, "the client should have been killed mid-upload"
        finished = subprocess.run(command, cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=120)
        assert finished.returncode == 0, finished.stdout + finished.stderr
        # Each photo's upload was created once and resumed after every kill, never restarted.
        assert server.requests_seen("POST /api/v1/uploads ") == len(expected)
    assert_exactly_once(app, blob_root, expected)


@pytest.mark.slow
def test_a_client_killed_at_random_instants_loses_and_doubles_nothing(server_db, real_photos, tmp_path):
    kind, app, parcel_id, blob_root, overrides = server_db
    rng = random.Random(f"client-random-kill-{kind}")
    with ServerProcess(overrides, tmp_path) as server, \
            FaultyProxy(server.port, bytes_per_second=500_000) as slow_link:
        store = logged_in_profile(tmp_path / "tablet", server.url, slow_link.url)
        expected = _day_of_work(rng, store, parcel_id, real_photos, tmp_path / "cam", "rk")
        expected |= _day_of_work(rng, store, parcel_id, real_photos, tmp_path / "cam", "rk2")
        store.close()
        command = [sys.executable, "-m", "offline_client.cli", "--profile", str(tmp_path / "tablet"), "sync"]
        env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
        kills = 0
        for _ in range(CLIENT_KILLS + 1):
            client = subprocess.Popen(command, cwd=REPO_ROOT, env=env, stdout=subprocess.DEVNULL,
                                      stderr=subprocess.DEVNULL)
            time.sleep(rng.uniform(0.3, 1.2))  # start-up, push, an upload or the pull
            if client.poll() is None:
                os.kill(client.pid, signal.SIGKILL)
                kills += 1
            client.wait(timeout=10)
        assert kills >= CLIENT_KILLS
        finished = subprocess.run(command, cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=120)
        assert finished.returncode == 0, finished.stdout + finished.stderr
    assert_exactly_once(app, blob_root, expected)
