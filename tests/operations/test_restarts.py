"""Restarts without loss: SIGTERM lets requests in flight finish, and a rolling restart of
gunicorn (graceful reloads, then a stop and a start) in the middle of a sync loses and
duplicates nothing (issue 18, item 6).

gunicorn runs as deploy/systemd/lateral.service runs it (``--graceful-timeout 30``,
reload by SIGHUP); the tablets are threads that retry a push whose answer they did not
get, with the same record UUIDs, as the field clients do.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest
import requests
from sqlalchemy import func, select

from tests.support.databases import ENGINES, PASSWORD, make_migrated_app
from tests.support.sync import location

ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """gunicorn serving the test's database, started and stopped by signal."""

    def __init__(self, app, tmp_path):
        self.env = {**os.environ, "DATABASE_URL": app.config["SQLALCHEMY_DATABASE_URI"],
                    "SECRET_KEY": "restart-test-secret-0123456789",
                    "BLOB_STORE": "local", "BLOB_ROOT": str(tmp_path / "blobs"),
                    "TUS_STAGING_DIR": str(tmp_path / "tus"), "PYTHONPATH": str(ROOT)}
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = open(tmp_path / "gunicorn.log", "ab")
        self.proc = None

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "--bind", f"127.0.0.1:{self.port}", "--workers", "2",
             "--threads", "4", "--graceful-timeout", "30", "--no-control-socket", "server:create_app()"],
            cwd=ROOT, env=self.env, stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and self.proc.poll() is None:
            try:
                requests.get(f"{self.url}/api/v1/health", timeout=2)
                return
            except requests.RequestException:
                time.sleep(0.1)
        raise AssertionError("gunicorn did not start")

    def reload(self) -> None:
        self.proc.send_signal(signal.SIGHUP)

    def stop(self) -> int:
        self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(120)


def _setup(app, tablets: int) -> tuple[list[str], int]:
    from server.core.accounts.service import create_user, issue_token
    from server.core.extensions import db
    from server.field.checklist_templates import load_templates
    from server.field.models import Assignment
    from server.network import features
    from server.network.layers import LAYERS
    from tests.support.features import SAMPLES

    with app.app_context():
        load_templates()
        parcel_id = features.create_feature(LAYERS["parcels"], *SAMPLES["parcels"], None)[1]
        tokens = []
        for i in range(tablets):
            user = create_user(f"tablet{i}", "inspector", PASSWORD)
            db.session.add(Assignment(inspector_id=user.id, parcel_id=parcel_id, template_id="clear-water-survey",
                                      status="open"))
            tokens.append(issue_token(user, "tablet")[0])
        db.session.commit()
        db.session.remove()
    return tokens, parcel_id


def _record(parcel_id: int) -> dict:
    return {"uuid": str(uuid.uuid4()), "kind": "inspection", "data": {
        "template_id": "clear-water-survey", "template_version": 1, "parcel_id": parcel_id,
        "location": location(), "started_at": "2026-11-30T09:00:00-06:00",
        "finished_at": "2026-11-30T09:10:00-06:00", "answers": {"access": "granted", "sources": []},
        "photos": []}}


def _push_until_answered(url: str, token: str, records: list, answers: list) -> None:
    """Push as a tablet does: a push whose answer is lost is sent again, same UUIDs."""
    for _ in range(600):
        try:
            r = requests.post(f"{url}/api/v1/sync/push", json={"records": records},
                              headers={"Authorization": f"Bearer {token}"}, timeout=30)
        except (requests.ConnectionError, requests.Timeout):
            # Between processes, or an answer that never came (new workers still booting
            # on a busy machine): the tablet sends the same records again.
            time.sleep(0.05)
            continue
        answers.append(r.status_code)
        if r.status_code == 200:
            return
        time.sleep(0.05)
    raise AssertionError("never answered")


def _inspections(app) -> tuple[int, int]:
    from server.core.extensions import db
    from server.field.models import Inspection

    with app.app_context():
        total = db.session.scalar(select(func.count()).select_from(Inspection))
        distinct = db.session.scalar(select(func.count(func.distinct(Inspection.uuid))))
        db.session.remove()
    return total, distinct


@pytest.fixture(params=ENGINES)
def served(request, tmp_path):
    app, drop = make_migrated_app(request.param, tmp_path)
    server = Server(app, tmp_path)
    try:
        yield app, server
    finally:
        if server.proc is not None and server.proc.poll() is None:
            server.proc.kill()
            server.proc.wait(10)
        from server.core.extensions import db

        with app.app_context():
            db.session.remove()
            db.engine.dispose()
        if drop:
            drop()


@pytest.mark.slow
def test_sigterm_lets_a_request_in_flight_finish(served, tmp_path):
    """A photo arriving slowly (a tablet on a weak signal) while the server is told to stop."""
    import base64
    import io

    from PIL import Image

    from server.core.extensions import db
    from server.field.models import Photo

    app, server = served
    tokens, _ = _setup(app, 1)
    image = Image.frombytes("RGB", (600, 600), os.urandom(600 * 600 * 3))
    out = io.BytesIO()
    image.save(out, "JPEG", quality=90)
    photo = out.getvalue()
    server.start()
    auth = {"Authorization": f"Bearer {tokens[0]}", "Tus-Resumable": "1.0.0"}
    created = requests.post(f"{server.url}/api/v1/uploads", timeout=30, headers={
        **auth, "Upload-Length": str(len(photo)), "Upload-Metadata": "filename " + base64.b64encode(b"a.jpg").decode()})
    assert created.status_code == 201
    in_flight = threading.Event()

    class Slowly(io.BytesIO):
        """The photo's bytes, a little at a time."""

        def __len__(self):
            return len(photo)

        def read(self, size=-1):
            if self.tell() >= 96 * 1024:
                in_flight.set()
            time.sleep(0.02)
            return super().read(min(size if size > 0 else 8192, 8192))

    answers: list = []
    patching = threading.Thread(target=lambda: answers.append(requests.patch(
        created.headers["Location"], data=Slowly(photo), timeout=120,
        headers={**auth, "Content-Type": "application/offset+octet-stream", "Upload-Offset": "0"})))
    patching.start()
    assert in_flight.wait(60)
    assert server.stop() == 0  # returns once the worker has finished the PATCH and exited cleanly
    patching.join(60)
    assert answers and answers[0].status_code == 204, answers
    with app.app_context():
        assert db.session.scalar(select(func.count()).select_from(Photo)) == 1
        db.session.remove()


@pytest.mark.slow
def test_a_rolling_restart_during_a_sync_loses_and_duplicates_nothing(served):
    app, server = served
    tokens, parcel_id = _setup(app, 4)
    server.start()
    plans = {token: [[_record(parcel_id) for _ in range(3)] for _ in range(12)] for token in tokens}
    answers: list = []

    def tablet(token):
        for records in plans[token]:
            _push_until_answered(server.url, token, records, answers)

    threads = [threading.Thread(target=tablet, args=(t,)) for t in tokens]
    for t in threads:
        t.start()
    for _ in range(2):  # graceful reloads: new workers up, old ones finish what they hold
        time.sleep(1)
        server.reload()
    time.sleep(1)
    assert server.stop() == 0  # then a full stop and start, as an upgrade does
    server.start()
    for t in threads:
        t.join(180)
    assert server.stop() == 0
    expected = sum(len(records) for batches in plans.values() for records in batches)
    assert _inspections(app) == (expected, expected)
    assert not [status for status in answers if status >= 500]
