"""An outside service that accepts connections and never answers (issue 31, item 3).

An S3 that hung froze a city's app host: uploads waited 117 s, and nothing else answered.
Here the store is a socket that accepts and stays silent. An upload answers 503
``store_unavailable`` within the settings' timeout (one attempt: a timeout is not
retried), a photo read likewise, and a page that needs no store answers meanwhile. A
Redis that hangs costs a log-in the same timeout.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests
from PIL import Image

from server.core.extensions import db
from tests.support.databases import PASSWORD, fresh_app
from tests.support.live_server import LiveServer
from tests.support.storage import MOTO_CREDENTIALS

TIMEOUT = 1.0  # LATERAL_CONNECT_TIMEOUT and LATERAL_READ_TIMEOUT in these tests
SLACK = 2.5  # the rest of the request: staging, hashing, the database


class SilentServer:
    """Accepts every connection, reads what it is sent, and never answers."""

    def __init__(self) -> None:
        self._socket = socket.create_server(("127.0.0.1", 0))
        self.port = self._socket.getsockname()[1]
        self.accepted = 0
        self._held: list[socket.socket] = []
        self._thread = threading.Thread(target=self._serve, daemon=True)

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self._socket.accept()
            except OSError:
                return
            self.accepted += 1
            self._held.append(conn)  # open, silent

    def __enter__(self) -> SilentServer:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._socket.close()
        for conn in self._held:
            conn.close()


@pytest.fixture
def silent():
    with SilentServer() as server:
        yield server


@pytest.fixture
def hanging_store_app(tmp_path, silent):
    store = {"backend": "s3", "bucket": "evidence", "endpoint_url": f"http://127.0.0.1:{silent.port}",
             "region": "us-east-1", **MOTO_CREDENTIALS}
    with fresh_app("spatialite", tmp_path, BLOB_STORE=store, LATERAL_CONNECT_TIMEOUT=TIMEOUT,
                   LATERAL_READ_TIMEOUT=TIMEOUT) as app:
        from server.core.accounts.service import create_user, issue_token

        with app.app_context():
            token = issue_token(create_user("field1", "inspector", PASSWORD), "tablet")[0]
            db.session.commit()
        app.bearer = {"Authorization": f"Bearer {token}"}
        yield app


def _jpeg() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (320, 240), (90, 120, 160)).save(out, "JPEG")
    return out.getvalue()


def _upload(base: str, auth: dict, data: bytes) -> tuple[requests.Response, float]:
    tus = {"Tus-Resumable": "1.0.0", **auth}
    meta = "filename " + base64.b64encode(b"sump.jpg").decode()
    created = requests.post(f"{base}/api/v1/uploads", headers={**tus, "Upload-Length": str(len(data)),
                                                                "Upload-Metadata": meta}, timeout=30)
    assert created.status_code == 201, created.text
    start = time.monotonic()
    r = requests.patch(created.headers["Location"] if created.headers["Location"].startswith("http")
                       else base + created.headers["Location"], data=data, timeout=60,
                       headers={**tus, "Content-Type": "application/offset+octet-stream", "Upload-Offset": "0"})
    return r, time.monotonic() - start


def test_an_upload_to_a_hanging_store_is_503_within_the_timeout_and_pages_keep_answering(
        hanging_store_app, silent):
    with LiveServer(hanging_store_app) as server, ThreadPoolExecutor(1) as pool:
        upload = pool.submit(_upload, server.url, hanging_store_app.bearer, _jpeg())
        deadline = time.monotonic() + 10
        while silent.accepted == 0 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert silent.accepted >= 1, "the upload never reached the store"
        page_start = time.monotonic()
        page = requests.get(f"{server.url}/field/", timeout=10)  # while the upload waits on the store
        page_seconds = time.monotonic() - page_start
        r, seconds = upload.result(timeout=60)

    assert page.status_code == 200 and page_seconds < TIMEOUT
    assert r.status_code == 503, r.text
    assert json.loads(r.text)["error"]["code"] == "store_unavailable"
    assert r.headers["Retry-After"].isdigit()
    assert seconds < TIMEOUT + SLACK  # one timeout, not five attempts of it
    assert silent.accepted == 1  # a timed-out store is not asked again


def test_a_photo_read_from_a_hanging_store_is_503_within_the_timeout(hanging_store_app, silent):
    from server.field.models import Photo

    sha = hashlib.sha256(b"a photo stored before the store hung").hexdigest()
    with hanging_store_app.app_context():
        db.session.add(Photo(sha256=sha, size=36, format="JPEG", width=4, height=3))
        db.session.commit()
    client = hanging_store_app.test_client()

    start = time.monotonic()
    r = client.get(f"/api/v1/photos/{sha}", headers=hanging_store_app.bearer)
    seconds = time.monotonic() - start

    assert r.status_code == 503, r.get_data(as_text=True)
    assert r.get_json()["error"]["code"] == "store_unavailable"
    assert seconds < TIMEOUT + SLACK


def test_a_hanging_redis_costs_a_basic_log_in_one_timeout(tmp_path, silent):
    from server.core.web.basic_cache import make_store

    store = make_store(f"redis://127.0.0.1:{silent.port}/0", 300, TIMEOUT, TIMEOUT)

    start = time.monotonic()
    with pytest.raises(Exception, match="[Tt]imeout|timed out"):
        store.get("a checked log-in")
    assert time.monotonic() - start < TIMEOUT + SLACK
