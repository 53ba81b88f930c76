"""The blueprint over real HTTP, driven by tuspy as an independent tus client."""

from __future__ import annotations

import base64
import hashlib

import pytest
import requests
from tusclient import client as tus_client
from tusclient.exceptions import TusCommunicationError, TusUploadFailed

from server.field.uploads import TusServer
from tests.support.env import need_shared
from tests.support.live_server import CuttingProxy, LiveServer, make_app

PHOTO = "es__jpg_hdr_iphone_hdr_YES.jpg"  # 1.9 MB real phone photo


@pytest.fixture
def blob_tus(tmp_path, blobs) -> TusServer:
    def store(info, path) -> None:
        blobs.put_file(path, info.metadata.get("sha256"))

    return TusServer(tmp_path / "staging", on_complete=store, max_size=10_000_000)


@pytest.fixture
def server(blob_tus):
    with LiveServer(make_app(blob_tus)) as live:
        yield live


@pytest.fixture
def phone_photo():
    path = need_shared("realdata", "photos", PHOTO)
    return path, hashlib.sha256(path.read_bytes()).hexdigest()


def _client(base: str) -> tus_client.TusClient:
    return tus_client.TusClient(f"{base}/api/v1/uploads", headers={"X-Test-User": "alice"})


@pytest.mark.realdata
def test_tuspy_uploads_a_real_photo_with_checksums(server, phone_photo, blobs):
    path, sha = phone_photo
    uploader = _client(server.url).uploader(
        str(path),
        chunk_size=256 * 1024,
        metadata={"filename": PHOTO, "sha256": sha},
        upload_checksum=True,
    )
    uploader.upload()
    with blobs.open(sha) as stored:
        assert hashlib.sha256(stored.read()).hexdigest() == sha


@pytest.mark.realdata
def test_cut_off_patch_resumes_byte_identical(server, phone_photo, blobs):
    path, sha = phone_photo
    size = path.stat().st_size
    with CuttingProxy(server.port, cut_after=300_000) as proxy:
        client = _client(proxy.url)
        first = client.uploader(str(path), chunk_size=size, metadata={"sha256": sha})
        with pytest.raises((TusUploadFailed, TusCommunicationError)):
            first.upload()
        assert proxy.cuts == 1
        # Whatever reached the server before the cut is kept, and HEAD says so.
        offset = int(
            requests.head(
                first.url, headers={"Tus-Resumable": "1.0.0", "X-Test-User": "alice"}
            ).headers["Upload-Offset"]
        )
        assert 0 < offset < size
        resumed = client.uploader(str(path), url=first.url, chunk_size=size)
        assert resumed.offset == offset
        resumed.upload()
    with blobs.open(sha) as stored:
        assert hashlib.sha256(stored.read()).hexdigest() == sha


def test_checksum_mismatch_over_http_is_460(server):
    headers = {"Tus-Resumable": "1.0.0", "X-Test-User": "alice"}
    created = requests.post(
        f"{server.url}/api/v1/uploads", headers={**headers, "Upload-Length": "3"}
    )
    wrong = base64.b64encode(hashlib.sha1(b"xyz").digest()).decode()
    response = requests.patch(
        created.headers["Location"],
        data=b"abc",
        headers={
            **headers,
            "Content-Type": "application/offset+octet-stream",
            "Upload-Offset": "0",
            "Upload-Checksum": f"sha1 {wrong}",
        },
    )
    assert response.status_code == 460


def test_location_is_absolute_and_exposed(server):
    response = requests.post(
        f"{server.url}/api/v1/uploads",
        headers={"Tus-Resumable": "1.0.0", "X-Test-User": "alice", "Upload-Length": "1"},
    )
    assert response.status_code == 201
    assert response.headers["Location"].startswith(f"{server.url}/api/v1/uploads/")
    assert "Upload-Offset" in response.headers["Access-Control-Expose-Headers"]


def test_options_needs_no_user(server):
    response = requests.options(f"{server.url}/api/v1/uploads")
    assert response.status_code == 204
    assert response.headers["Tus-Extension"] == "creation,creation-with-upload,checksum,termination,expiration"


def test_other_methods_ask_the_app_who_the_user_is(server):
    response = requests.post(
        f"{server.url}/api/v1/uploads", headers={"Tus-Resumable": "1.0.0", "Upload-Length": "1"}
    )
    assert response.status_code == 401


def test_method_override_reaches_patch(server):
    headers = {"Tus-Resumable": "1.0.0", "X-Test-User": "alice"}
    created = requests.post(
        f"{server.url}/api/v1/uploads", headers={**headers, "Upload-Length": "3"}
    )
    response = requests.post(
        created.headers["Location"],
        data=b"abc",
        headers={
            **headers,
            "X-HTTP-Method-Override": "PATCH",
            "Content-Type": "application/offset+octet-stream",
            "Upload-Offset": "0",
        },
    )
    assert (response.status_code, response.headers["Upload-Offset"]) == (204, "3")


class _Counting:
    """A WSGI input whose reads are counted: which stream the blueprint read from."""

    def __init__(self, data: bytes) -> None:
        import io

        self._data = io.BytesIO(data)
        self.reads = 0

    def read(self, size: int = -1) -> bytes:
        self.reads += 1
        return self._data.read(size)


@pytest.mark.parametrize("terminated", [True, False])
def test_a_server_that_ends_the_body_itself_is_read_directly(blob_tus, terminated, monkeypatch):
    """gunicorn ends wsgi.input at the body's end (wsgi.input_terminated): the blueprint reads
    it without werkzeug's guard; other servers' input goes through the guard."""
    import flask

    if terminated:
        def guarded(self):
            raise AssertionError("read through werkzeug's guard")

        monkeypatch.setattr(flask.Request, "stream", property(guarded))
    app = make_app(blob_tus)
    body = _Counting(b"abcdef")
    environ = {"wsgi.input": body, "CONTENT_LENGTH": "6", **({"wsgi.input_terminated": True} if terminated else {})}
    r = app.test_client().post(
        "/api/v1/uploads", environ_overrides=environ, data=b"",
        headers={"X-Test-User": "alice", "Tus-Resumable": "1.0.0", "Upload-Length": "6",
                 "Content-Type": "application/offset+octet-stream", "Content-Length": "6"})
    assert r.status_code == 201, r.get_data(as_text=True)
    assert r.headers["Upload-Offset"] == "6"
    assert body.reads > 0


def test_a_body_over_the_limit_is_413_before_a_byte_is_read(blob_tus):
    app = make_app(blob_tus)

    @app.before_request
    def _limit():
        from flask import request

        request.max_content_length = 4

    body = _Counting(b"abcdef")
    r = app.test_client().post(
        "/api/v1/uploads", data=b"",
        environ_overrides={"wsgi.input": body, "wsgi.input_terminated": True, "CONTENT_LENGTH": "6"},
        headers={"X-Test-User": "alice", "Tus-Resumable": "1.0.0", "Upload-Length": "6",
                 "Content-Type": "application/offset+octet-stream", "Content-Length": "6"})
    assert r.status_code == 413
    assert body.reads == 0
