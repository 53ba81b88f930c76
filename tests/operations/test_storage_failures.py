"""Full disks and a failing S3: a plain answer the client can retry, a true offset, nothing
half-stored, and the upload completes once the store is back.

The full disk is a small tmpfs mounted for the test (CI runs as root); S3 is moto_server,
with throttling and outages injected through botocore's own event hooks, so what is
tested is the retry policy the store really runs with.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import os
import subprocess
from contextlib import contextmanager

import pytest
from botocore.awsrequest import AWSResponse
from PIL import Image
from sqlalchemy import func, select

from server.core.extensions import db
from tests.support.databases import PASSWORD, fresh_app
from tests.support.env import STRICT
from tests.support.storage import s3_config

TUS = {"Tus-Resumable": "1.0.0"}
OCTETS = {**TUS, "Content-Type": "application/offset+octet-stream"}


def _photo() -> bytes:
    """A real JPEG of about 800 kB (noise does not compress)."""
    image = Image.frombytes("RGB", (900, 900), os.urandom(900 * 900 * 3))
    out = io.BytesIO()
    image.save(out, "JPEG", quality=92)
    return out.getvalue()


@contextmanager
def tmpfs(path, size: str):
    """A small file system at ``path``; yields a function that makes it bigger."""
    path.mkdir(parents=True, exist_ok=True)
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)],
                             capture_output=True, text=True)
    if mounted.returncode != 0:
        reason = f"cannot mount a tmpfs to fill (needs root): {mounted.stderr.strip()}"
        pytest.fail(f"strict mode: {reason}", pytrace=False) if STRICT else pytest.skip(reason)

    def grow(new_size: str) -> None:
        subprocess.run(["mount", "-o", f"remount,size={new_size}", str(path)], check=True)

    try:
        yield grow
    finally:
        subprocess.run(["umount", "-l", str(path)], check=False)


class Uploads:
    """tus through the app's test client, as the field app speaks it."""

    def __init__(self, app):
        from server.core.accounts.service import create_user, issue_token

        self.app, self.client = app, app.test_client()
        with app.app_context():
            token = issue_token(create_user("field1", "inspector", PASSWORD), "tablet")[0]
            db.session.commit()
        self.auth = {"Authorization": f"Bearer {token}"}

    def create(self, data: bytes) -> str:
        meta = "filename " + base64.b64encode(b"sump.jpg").decode()
        r = self.client.post("/api/v1/uploads", headers={**TUS, **self.auth, "Upload-Length": str(len(data)),
                                                          "Upload-Metadata": meta})
        assert r.status_code == 201, r.get_data(as_text=True)
        return r.headers["Location"]

    def patch(self, url: str, offset: int, chunk: bytes):
        return self.client.patch(url, data=chunk, headers={**OCTETS, **self.auth, "Upload-Offset": str(offset)})

    def offset(self, url: str) -> int:
        return int(self.client.head(url, headers={**TUS, **self.auth}).headers["Upload-Offset"])

    def photo_rows(self) -> int:
        from server.field.models import Photo

        with self.app.app_context():
            return db.session.scalar(select(func.count()).select_from(Photo))


def _error(response) -> dict:
    return json.loads(response.get_data(as_text=True))["error"]


def test_a_full_staging_disk_is_507_keeps_a_true_offset_and_completes_once_freed(tmp_path):
    data, half = _photo(), 256 * 1024
    with tmpfs(tmp_path / "staging", "512k") as grow, \
            fresh_app("spatialite", tmp_path, TUS_STAGING_DIR=str(tmp_path / "staging")) as app:
        up = Uploads(app)
        url = up.create(data)
        assert up.patch(url, 0, data[:half]).status_code == 204
        r = up.patch(url, half, data[half:])
        assert r.status_code == 507 and _error(r)["code"] == "insufficient_storage"
        assert "disk is full" in _error(r)["message"]
        assert up.offset(url) == half  # what the disk holds, not what was sent
        assert up.photo_rows() == 0
        grow("8m")
        assert up.patch(url, half, data[half:]).status_code == 204
        assert up.photo_rows() == 1
        sha = hashlib.sha256(data).hexdigest()
        stored = tmp_path / "blobs" / "blobs" / sha[:2] / sha[2:4] / sha
        assert stored.read_bytes() == data


def test_a_full_blob_store_disk_is_507_and_the_photo_is_stored_once_freed(tmp_path):
    data = _photo()
    sha = hashlib.sha256(data).hexdigest()
    with tmpfs(tmp_path / "blobs", "256k") as grow, fresh_app("spatialite", tmp_path) as app:
        up = Uploads(app)
        url = up.create(data)
        r = up.patch(url, 0, data)
        assert r.status_code == 507 and _error(r)["code"] == "insufficient_storage"
        assert up.photo_rows() == 0
        assert not list((tmp_path / "blobs").rglob(sha))  # nothing half-written counts as stored
        assert up.offset(url) == len(data)  # the bytes are kept in staging
        grow("8m")
        assert up.patch(url, len(data), b"").status_code == 204  # the zero-byte PATCH retries
        assert up.photo_rows() == 1
        assert (tmp_path / "blobs" / "blobs" / sha[:2] / sha[2:4] / sha).read_bytes() == data


class _Raw:
    def __init__(self, body: bytes):
        self.body = body

    def stream(self, **_):
        yield self.body


def _inject_s3_errors(app, failures: int | None, attempts: list):
    """Answer the store's first ``failures`` PutObject/CompleteMultipart requests with 503 SlowDown."""
    client = app.extensions["lateral_blobs"].client

    def answer(request, **_):
        attempts.append(request.url)
        if failures is None or len(attempts) <= failures:
            body = b"<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>"
            return AWSResponse(request.url, 503, {}, _Raw(body))
        return None

    client.meta.events.register("before-send.s3.PutObject", answer, unique_id="lateral-test-faults")
    return lambda: client.meta.events.unregister("before-send.s3.PutObject", unique_id="lateral-test-faults")


def test_s3_throttling_is_retried_with_back_off_and_the_photo_stored(tmp_path, moto_endpoint):
    data = _photo()
    with fresh_app("spatialite", tmp_path, BLOB_STORE=s3_config(moto_endpoint)) as app:
        up = Uploads(app)
        attempts: list = []
        _inject_s3_errors(app, 2, attempts)
        url = up.create(data)
        assert up.patch(url, 0, data).status_code == 204
        assert len(attempts) == 3  # two throttled, the third stored
        assert up.photo_rows() == 1
        assert app.extensions["lateral_blobs"].exists(hashlib.sha256(data).hexdigest())


def test_s3_down_past_its_retries_is_a_retryable_503_and_stores_nothing(tmp_path, moto_endpoint):
    data = _photo()
    with fresh_app("spatialite", tmp_path, BLOB_STORE=s3_config(moto_endpoint)) as app:
        up = Uploads(app)
        attempts: list = []
        heal = _inject_s3_errors(app, None, attempts)
        url = up.create(data)
        r = up.patch(url, 0, data)
        assert r.status_code == 503 and _error(r)["code"] == "store_unavailable"
        assert r.headers["Retry-After"].isdigit()
        assert len(attempts) == 5  # the retry budget, spent
        assert up.photo_rows() == 0
        assert not app.extensions["lateral_blobs"].exists(hashlib.sha256(data).hexdigest())
        heal()
        assert up.patch(url, len(data), b"").status_code == 204
        assert up.photo_rows() == 1
