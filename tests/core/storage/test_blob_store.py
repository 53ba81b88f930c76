"""The BlobStore contract, run on local disk and on S3 (moto_server)."""

from __future__ import annotations

import hashlib
import os

import pytest

from server.core.storage import (
    BlobNotFound,
    DigestMismatch,
    LocalBlobStore,
    S3BlobStore,
    blob_key,
    derived_key,
    make_blob_store,
)
from tests.support.storage import s3_config


@pytest.fixture
def photo_file(tmp_path):
    data = os.urandom(300_000)
    path = tmp_path / "upload.bin"
    path.write_bytes(data)
    return path, data, hashlib.sha256(data).hexdigest()


def _read_all(stream) -> bytes:
    with stream:
        return stream.read()


def test_put_file_keys_by_sha256(blob_store, photo_file):
    path, _, sha = photo_file
    key = blob_store.put_file(path, sha)
    assert key == f"blobs/{sha[:2]}/{sha[2:4]}/{sha}"
    assert blob_store.exists(sha)


def test_put_file_computes_the_digest_when_not_given(blob_store, photo_file):
    path, _, sha = photo_file
    assert blob_store.put_file(path) == blob_key(sha)


def test_round_trip_is_byte_identical(blob_store, photo_file):
    path, data, sha = photo_file
    blob_store.put_file(path, sha)
    assert _read_all(blob_store.open(sha)) == data
    assert blob_store.size(sha) == len(data)


def test_stream_yields_the_whole_blob_in_chunks(blob_store, photo_file):
    path, data, sha = photo_file
    blob_store.put_file(path, sha)
    chunks = list(blob_store.stream(blob_key(sha), chunk_size=65536))
    assert len(chunks) > 1
    assert b"".join(chunks) == data


def test_same_content_twice_is_stored_once(blob_store, photo_file, tmp_path):
    path, data, sha = photo_file
    copy = tmp_path / "again.bin"
    copy.write_bytes(data)
    assert blob_store.put_file(path, sha) == blob_store.put_file(copy, sha)
    assert blob_store.size(sha) == len(data)


def test_wrong_digest_is_refused_and_nothing_stored(blob_store, photo_file):
    path, _, _ = photo_file
    wrong = hashlib.sha256(b"something else").hexdigest()
    with pytest.raises(DigestMismatch):
        blob_store.put_file(path, wrong)
    assert not blob_store.exists(wrong)


def test_missing_blob(blob_store):
    sha = hashlib.sha256(b"never stored").hexdigest()
    assert not blob_store.exists(sha)
    with pytest.raises(BlobNotFound):
        blob_store.open(sha)
    with pytest.raises(BlobNotFound):
        blob_store.size(sha)


def test_derived_bytes_round_trip(blob_store, photo_file):
    _, _, sha = photo_file
    key = blob_store.put_bytes(derived_key(sha, "display.jpg"), b"\xff\xd8jpeg")
    assert key == f"derived/{sha}/display.jpg"
    assert _read_all(blob_store.open_key(key)) == b"\xff\xd8jpeg"


def test_delete_removes_original_and_derivatives(blob_store, photo_file):
    path, _, sha = photo_file
    blob_store.put_file(path, sha)
    thumb = blob_store.put_bytes(derived_key(sha, "thumbnail.jpg"), b"thumb")
    blob_store.delete(sha)
    assert not blob_store.exists(sha)
    assert not blob_store.exists_key(thumb)


def test_delete_of_absent_blob_is_quiet(blob_store):
    blob_store.delete(hashlib.sha256(b"absent").hexdigest())
    assert not blob_store.exists(hashlib.sha256(b"absent").hexdigest())


@pytest.mark.parametrize("key", ["../etc/passwd", "/abs", "derived/../../x", ""])
def test_unsafe_keys_are_refused(blob_store, key):
    with pytest.raises(ValueError):
        blob_store.put_bytes(key, b"x")


def test_malformed_digest_is_refused(blob_store):
    with pytest.raises(ValueError):
        blob_store.exists("../../etc")


def test_local_store_uses_fan_out_dirs_and_leaves_no_temp_files(tmp_path, photo_file):
    path, _, sha = photo_file
    store = LocalBlobStore(tmp_path / "blobs")
    store.put_file(path, sha)
    assert (tmp_path / "blobs" / "blobs" / sha[:2] / sha[2:4] / sha).is_file()
    leftovers = [p for p in (tmp_path / "blobs").rglob(".incoming-*")]
    assert leftovers == []


def test_local_failed_write_leaves_no_temp_file(tmp_path, photo_file):
    path, _, _ = photo_file
    store = LocalBlobStore(tmp_path / "blobs")
    with pytest.raises(DigestMismatch):
        store.put_file(path, "0" * 64)
    assert list((tmp_path / "blobs").rglob(".incoming-*")) == []


def test_local_store_has_no_direct_url(tmp_path, photo_file):
    assert LocalBlobStore(tmp_path).url(blob_key(photo_file[2])) is None


def test_s3_url_is_presigned(moto_endpoint, photo_file):
    store = make_blob_store(s3_config(moto_endpoint))
    url = store.url(blob_key(photo_file[2]), expires_in=60)
    assert url.startswith(moto_endpoint)
    assert "Signature" in url


def test_s3_large_file_goes_up_multipart_and_round_trips(moto_endpoint, tmp_path):
    data = os.urandom(17 * 1024 * 1024)
    path = tmp_path / "big.bin"
    path.write_bytes(data)
    sha = hashlib.sha256(data).hexdigest()
    store = make_blob_store(s3_config(moto_endpoint))
    store.put_file(path, sha)
    assert hashlib.sha256(_read_all(store.open(sha))).hexdigest() == sha


@pytest.mark.parametrize(
    ("config", "kind"),
    [
        ({"backend": "local", "root": "ROOT"}, LocalBlobStore),
        ({"backend": "s3", "bucket": "b", "region": "us-east-1"}, S3BlobStore),
    ],
)
def test_factory_builds_each_backend(tmp_path, config, kind):
    config = {k: (str(tmp_path) if v == "ROOT" else v) for k, v in config.items()}
    assert isinstance(make_blob_store(config), kind)


@pytest.mark.parametrize(
    "config", [{}, {"backend": "ftp"}, {"backend": "local"}, {"backend": "s3"}]
)
def test_factory_refuses_bad_config(config):
    with pytest.raises(ValueError):
        make_blob_store(config)


def test_linked_file_is_stored_and_survives_its_source(blob_store, photo_file):
    # A finished tus upload: the store may take the file itself; the staging
    # copy is removed afterwards and the blob must remain whole.
    path, data, sha = photo_file
    assert blob_store.put_file(path, sha, verified=True, link=True) == blob_key(sha)
    path.unlink()
    assert _read_all(blob_store.open(sha)) == data


def test_link_still_checks_an_unverified_digest(blob_store, photo_file):
    path, _, _ = photo_file
    wrong = hashlib.sha256(b"something else").hexdigest()
    with pytest.raises(DigestMismatch):
        blob_store.put_file(path, wrong, link=True)
    assert not blob_store.exists(wrong)


def test_local_link_writes_no_second_copy(tmp_path, photo_file):
    path, _, sha = photo_file
    store = LocalBlobStore(tmp_path / "blobs")
    store.put_file(path, sha, verified=True, link=True)
    assert store.local_path(sha).stat().st_ino == path.stat().st_ino
    assert not list(store.local_path(sha).parent.glob(".incoming-*"))


def test_local_link_falls_back_to_a_copy_without_hard_links(tmp_path, photo_file, monkeypatch):
    import errno

    def no_links(*args, **kwargs):
        raise OSError(errno.EPERM, "hard links not supported")

    path, data, sha = photo_file
    store = LocalBlobStore(tmp_path / "blobs")
    monkeypatch.setattr(os, "link", no_links)
    store.put_file(path, sha, verified=True, link=True)
    assert store.local_path(sha).read_bytes() == data
    assert store.local_path(sha).stat().st_ino != path.stat().st_ino


@pytest.mark.parametrize("link", [True, False], ids=["linked", "copied"])
def test_local_original_is_flushed_then_dropped_from_the_page_cache(tmp_path, photo_file, monkeypatch, link):
    """An original's pages are let go once it is on disk (never before), derived images' kept."""
    if not hasattr(os, "posix_fadvise"):
        pytest.skip("no posix_fadvise on this platform")
    calls = []
    real_fsync, real_fadvise = os.fsync, os.posix_fadvise

    def fsync(fd):
        calls.append(("fsync", os.fstat(fd).st_ino))
        real_fsync(fd)

    def fadvise(fd, offset, length, advice):
        calls.append(("drop" if advice == os.POSIX_FADV_DONTNEED else advice, os.fstat(fd).st_ino))
        real_fadvise(fd, offset, length, advice)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "posix_fadvise", fadvise)
    path, data, sha = photo_file
    store = LocalBlobStore(tmp_path / "blobs")
    store.put_file(path, sha, verified=True, link=link)
    blob = store.local_path(sha).stat().st_ino
    assert [c for c in calls if c[1] == blob] == [("fsync", blob), ("drop", blob)]
    assert store.local_path(sha).read_bytes() == data

    calls.clear()
    store.put_bytes(derived_key(sha, "display.jpg"), b"derived")
    assert [kind for kind, _ in calls] == ["fsync"]  # served right after it is made: kept


def test_iter_keys_lists_originals_and_derived_images_with_sizes(blob_store, photo_file):
    path, data, digest = photo_file
    blob_store.put_file(path)
    blob_store.put_bytes(derived_key(digest, "thumb.jpg"), b"thumb")
    listed = dict(blob_store.iter_keys())
    assert listed == {blob_key(digest): len(data), derived_key(digest, "thumb.jpg"): 5}
    assert dict(blob_store.iter_keys("derived/")) == {derived_key(digest, "thumb.jpg"): 5}
