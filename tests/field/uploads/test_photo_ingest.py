"""make_photo_ingest: a finished upload becomes a stored original plus derivatives."""

from __future__ import annotations

import base64
import hashlib
import io
import json

import pytest
from PIL import Image

from server.field.uploads import TusServer, ensure_derivatives, make_photo_ingest
from tests.support.env import need_shared
from tests.support.tus import create, head, patch


@pytest.fixture
def stored() -> list:
    return []


@pytest.fixture
def ingest_tus(tmp_path, blobs, stored) -> TusServer:
    return TusServer(tmp_path / "staging", on_complete=make_photo_ingest(blobs, stored.append))


def _upload(tus: TusServer, data: bytes, **metadata: str):
    header = ",".join(f"{k} {base64.b64encode(v.encode()).decode()}" for k, v in metadata.items())
    upload_id = create(tus, len(data), **({"Upload-Metadata": header} if header else {}))
    return upload_id, patch(tus, upload_id, 0, data)


@pytest.mark.realdata
def test_real_photo_is_stored_with_derivatives_and_facts(ingest_tus, blobs, stored):
    data = need_shared("realdata", "photos", "et__GoPro.jpg").read_bytes()
    sha = hashlib.sha256(data).hexdigest()
    _, (status, _, _) = _upload(ingest_tus, data, sha256=sha, inspection="a1b2")
    assert status == 204
    [photo] = stored
    assert (photo.sha256, photo.size) == (sha, len(data))
    assert photo.info.alt == pytest.approx(-3.983)
    assert photo.upload.metadata["inspection"] == "a1b2"
    assert blobs.exists(sha)
    # The display image and thumbnail are made on first request, not in the upload.
    assert not blobs.exists_key(photo.thumbnail_key)
    assert ensure_derivatives(blobs, sha) == (photo.display_key, photo.thumbnail_key)
    with blobs.open_key(photo.thumbnail_key) as thumb:
        assert Image.open(thumb).format == "JPEG"
    with blobs.open_key(photo.display_key) as display:
        assert max(Image.open(display).size) <= 2048


def test_not_a_photo_is_422_with_its_code_and_discarded(ingest_tus, stored):
    upload_id, (status, _, body) = _upload(ingest_tus, b"this is not a photo")
    assert status == 422
    assert json.loads(body)["error"]["code"] == "not_an_image"
    assert head(ingest_tus, upload_id)[0] == 404
    assert stored == []


def test_declared_sha256_must_match(ingest_tus, blobs, stored):
    out = io.BytesIO()
    Image.new("RGB", (8, 8), "red").save(out, "JPEG")
    _, (status, _, body) = _upload(ingest_tus, out.getvalue(), sha256="0" * 64)
    assert status == 422
    assert json.loads(body)["error"]["code"] == "digest_mismatch"
    assert not blobs.exists(hashlib.sha256(out.getvalue()).hexdigest())


def test_truncated_jpeg_is_422_and_leaves_nothing(ingest_tus, blobs, stored, tmp_path):
    out = io.BytesIO()
    Image.effect_noise((256, 256), 64).convert("RGB").save(out, "JPEG", quality=95)
    cut = out.getvalue()[:4000]
    upload_id, (status, _, body) = _upload(ingest_tus, cut)
    assert status == 422
    assert json.loads(body)["error"]["code"] == "truncated"
    assert head(ingest_tus, upload_id)[0] == 404
    assert not blobs.exists(hashlib.sha256(cut).hexdigest())
    assert stored == []


def test_a_photo_over_the_hooks_limit_is_413_too_large_as_at_creation(tmp_path, blobs, stored):
    # too_large has one status (413), whether tus refuses the Upload-Length or the photo
    # check refuses the bytes (it answered 422 before the error catalogue).
    out = io.BytesIO()
    Image.new("RGB", (8, 8), "red").save(out, "JPEG")
    small = TusServer(tmp_path / "staging", on_complete=make_photo_ingest(blobs, stored.append, max_bytes=10))
    upload_id, (status, _, body) = _upload(small, out.getvalue())
    assert (status, json.loads(body)["error"]["code"]) == (413, "too_large")
    assert head(small, upload_id)[0] == 404
    assert stored == []


def test_stored_original_is_the_staged_file_not_a_copy(ingest_tus, blobs, stored):
    out = io.BytesIO()
    Image.new("RGB", (32, 32), "blue").save(out, "JPEG")
    upload_id, (status, _, _) = _upload(ingest_tus, out.getvalue())
    assert status == 204
    [photo] = stored
    assert blobs.local_path(photo.sha256).read_bytes() == out.getvalue()
    assert blobs.local_path(photo.sha256).stat().st_ino == ingest_tus.data_path(upload_id, "alice").stat().st_ino
    assert head(ingest_tus, upload_id)[1]["Upload-Offset"] == str(len(out.getvalue()))


def test_a_big_photo_whose_check_runs_out_of_memory_is_deferred_and_kept(tmp_path, blobs, stored):
    """Issue 15 item 8: a big PNG is checked in a child process with an address-space
    limit; if the child fails, the upload is deferred (503), not refused: the bytes stay
    in staging and the same PATCH retries."""
    buf = io.BytesIO()
    Image.new("RGB", (5000, 3600), "navy").save(buf, "PNG")
    data = buf.getvalue()
    tight = TusServer(tmp_path / "staging", on_complete=make_photo_ingest(blobs, stored.append, decode_memory_mib=200))
    upload_id, (status, headers, body) = _upload(tight, data)
    assert status == 503 and "photo_check_failed" in body.decode() and headers["Retry-After"] == "60"
    assert stored == [] and head(tight, upload_id)[1]["Upload-Offset"] == str(len(data))
    roomy = TusServer(tmp_path / "staging", on_complete=make_photo_ingest(blobs, stored.append))
    assert patch(roomy, upload_id, len(data), b"")[0] == 204
    assert [p.sha256 for p in stored] == [hashlib.sha256(data).hexdigest()]
