"""TusServer: every status of tus 1.0.0 core, creation, checksum, termination, expiration."""

from __future__ import annotations

import base64
import hashlib
import io
import json

import pytest

from server.field.uploads import TUS_VERSION, TusServer
from tests.support.tus import OCTETS, TUS, checksum, create, head, patch


class DroppingBody(io.RawIOBase):
    """A request body whose client hangs up after ``data`` has been read."""

    def __init__(self, data: bytes) -> None:
        self._data = io.BytesIO(data)

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        chunk = self._data.read(size)
        if not chunk:
            raise ConnectionError("client went away")
        return chunk


# -- OPTIONS ---------------------------------------------------------------


def test_options_advertises_capabilities_without_tus_resumable(tus):
    status, headers, _ = tus.handle("OPTIONS", None, {}, None, "alice")
    assert status == 204
    assert headers["Tus-Version"] == "1.0.0"
    assert headers["Tus-Extension"] == "creation,creation-with-upload,checksum,termination,expiration"
    assert headers["Tus-Max-Size"] == "1000000"
    assert headers["Tus-Checksum-Algorithm"] == "sha1,md5,sha256"


@pytest.mark.parametrize("method", ["POST", "HEAD", "PATCH", "DELETE"])
def test_tus_resumable_is_required(tus, method):
    upload_id = None if method == "POST" else create(tus, 10)
    status, headers, _ = tus.handle(method, upload_id, {"Upload-Length": "10"}, None, "alice")
    assert status == 412
    assert headers["Tus-Version"] == TUS_VERSION


@pytest.mark.parametrize("version", ["0.2.2", "1.0"])
def test_other_tus_versions_are_refused(tus, version):
    status, _, _ = tus.handle(
        "POST", None, {"Tus-Resumable": version, "Upload-Length": "1"}, None, "a"
    )
    assert status == 412


# -- POST (creation) ---------------------------------------------------------


def test_create_returns_location_under_the_collection(tus):
    status, headers, _ = tus.handle(
        "POST", None, {**TUS, "Upload-Length": "10"}, None, "alice", "http://h/api/v1/uploads"
    )
    assert status == 201
    assert headers["Location"].startswith("http://h/api/v1/uploads/")
    assert headers["Upload-Expires"].endswith("GMT")


@pytest.mark.parametrize("length", [None, "", "-1", "ten", "1.5"])
def test_create_needs_a_valid_upload_length(tus, length):
    headers = dict(TUS) if length is None else {**TUS, "Upload-Length": length}
    assert tus.handle("POST", None, headers, None, "alice")[0] == 400


def test_deferred_length_is_not_supported(tus):
    headers = {**TUS, "Upload-Defer-Length": "1"}
    assert tus.handle("POST", None, headers, None, "alice")[0] == 400


def test_create_over_max_size_is_413(tus):
    headers = {**TUS, "Upload-Length": "1000001"}
    assert tus.handle("POST", None, headers, None, "alice")[0] == 413


def test_metadata_is_decoded(tus, completed):
    name = base64.b64encode("manhole 12 façade.jpg".encode()).decode()
    upload_id = create(tus, 3, **{"Upload-Metadata": f"filename {name},is_evidence"})
    patch(tus, upload_id, 0, b"abc")
    assert completed.calls[0][2] == {"filename": "manhole 12 façade.jpg", "is_evidence": None}


@pytest.mark.parametrize("metadata", ["filename !!notbase64", "a b c", "k dg==,k dg=="])
def test_malformed_metadata_is_400(tus, metadata):
    headers = {**TUS, "Upload-Length": "3", "Upload-Metadata": metadata}
    assert tus.handle("POST", None, headers, None, "alice")[0] == 400


# -- HEAD ------------------------------------------------------------------


def test_head_reports_offset_length_and_no_store(tus):
    upload_id = create(tus, 10)
    patch(tus, upload_id, 0, b"12345")
    status, headers, body = head(tus, upload_id)
    assert status == 200
    assert (headers["Upload-Offset"], headers["Upload-Length"]) == ("5", "10")
    assert headers["Cache-Control"] == "no-store"
    assert "Upload-Expires" in headers
    assert body == b""


@pytest.mark.parametrize("upload_id", ["0" * 32, "../../etc/passwd", "abc"])
def test_unknown_upload_is_404(tus, upload_id):
    assert head(tus, upload_id)[0] == 404


def test_someone_elses_upload_is_invisible(tus):
    upload_id = create(tus, 10, owner="alice")
    assert head(tus, upload_id, owner="bob")[0] == 404
    assert patch(tus, upload_id, 0, b"x", owner="bob")[0] == 404
    assert tus.handle("DELETE", upload_id, TUS, None, "bob")[0] == 404
    assert head(tus, upload_id, owner="alice")[0] == 200


def test_upload_ids_are_scoped_per_user(tus):
    """Another user's id is no conflict, and says nothing of the first upload (issue 30)."""
    import base64

    upload_id = "ab" * 16
    named = {"Upload-Metadata": f"upload_id {base64.b64encode(upload_id.encode()).decode()}"}
    assert create(tus, 10, owner="alice", **named) == upload_id
    assert create(tus, 4, owner="bob", **named) == upload_id  # bob's own upload, not a 409
    assert patch(tus, upload_id, 0, b"bobs", owner="bob")[0] == 204
    assert head(tus, upload_id, owner="alice")[1]["Upload-Offset"] == "0"
    assert head(tus, upload_id, owner="alice")[1]["Upload-Length"] == "10"


# -- PATCH -------------------------------------------------------------------


def test_patches_append_and_complete(tus, completed):
    upload_id = create(tus, 6)
    status, headers, _ = patch(tus, upload_id, 0, b"abc")
    assert (status, headers["Upload-Offset"]) == (204, "3")
    assert completed.calls == []
    status, headers, _ = patch(tus, upload_id, 3, b"def")
    assert (status, headers["Upload-Offset"]) == (204, "6")
    assert completed.calls == [(upload_id, b"abcdef", {})]


def test_body_is_written_in_chunks_not_read_whole(tus):
    class CountingBody(io.BytesIO):
        sizes: list[int] = []

        def read(self, size=-1):
            self.sizes.append(size)
            return super().read(size)

    body = CountingBody(b"x" * 5000)
    upload_id = create(tus, 5000)
    patch(tus, upload_id, 0, body)
    assert max(body.sizes) <= 1024
    assert -1 not in body.sizes


@pytest.mark.parametrize("content_type", [None, "application/octet-stream", "text/plain"])
def test_patch_needs_offset_octet_stream(tus, content_type):
    upload_id = create(tus, 3)
    headers = {**TUS, "Upload-Offset": "0"}
    if content_type:
        headers["Content-Type"] = content_type
    status, _, _ = tus.handle("PATCH", upload_id, headers, io.BytesIO(b"abc"), "alice")
    assert status == 415


def test_offset_mismatch_is_409_and_writes_nothing(tus):
    upload_id = create(tus, 10)
    patch(tus, upload_id, 0, b"abc")
    assert patch(tus, upload_id, 1, b"zzz")[0] == 409
    assert head(tus, upload_id)[1]["Upload-Offset"] == "3"


def test_missing_offset_is_400(tus):
    upload_id = create(tus, 3)
    status, _, _ = tus.handle("PATCH", upload_id, OCTETS, io.BytesIO(b"abc"), "alice")
    assert status == 400


def test_body_past_upload_length_is_400_and_discarded(tus, completed):
    upload_id = create(tus, 4)
    assert patch(tus, upload_id, 0, b"abcdef")[0] == 400
    assert head(tus, upload_id)[1]["Upload-Offset"] == "0"
    assert completed.calls == []


def test_declared_content_length_past_upload_length_is_400(tus):
    upload_id = create(tus, 4)
    assert patch(tus, upload_id, 0, b"abcde", **{"Content-Length": "5"})[0] == 400


@pytest.mark.parametrize("algorithm", ["sha1", "md5", "sha256"])
def test_good_checksum_is_accepted(tus, algorithm):
    upload_id = create(tus, 3)
    status, headers, _ = patch(
        tus, upload_id, 0, b"abc", **{"Upload-Checksum": checksum(algorithm, b"abc")}
    )
    assert (status, headers["Upload-Offset"]) == (204, "3")


def test_checksum_mismatch_is_460_and_chunk_discarded(tus, completed):
    upload_id = create(tus, 6)
    patch(tus, upload_id, 0, b"abc")
    status, _, _ = patch(tus, upload_id, 3, b"def", **{"Upload-Checksum": checksum("sha1", b"xyz")})
    assert status == 460
    assert head(tus, upload_id)[1]["Upload-Offset"] == "3"
    assert completed.calls == []


@pytest.mark.parametrize("value", ["crc32 AAAA", "sha1", "sha1 ***"])
def test_unsupported_or_malformed_checksum_is_400(tus, value):
    upload_id = create(tus, 3)
    assert patch(tus, upload_id, 0, b"abc", **{"Upload-Checksum": value})[0] == 400


def test_dropped_patch_keeps_what_arrived_and_resumes(tus, completed):
    upload_id = create(tus, 10)
    patch(tus, upload_id, 0, DroppingBody(b"abcd"), **{"Content-Length": "10"})
    assert head(tus, upload_id)[1]["Upload-Offset"] == "4"
    assert patch(tus, upload_id, 4, b"efghij")[0] == 204
    assert completed.calls[0][1] == b"abcdefghij"


def test_short_body_without_exception_counts_as_a_drop(tus):
    upload_id = create(tus, 10)
    patch(tus, upload_id, 0, b"abc", **{"Content-Length": "8"})
    assert head(tus, upload_id)[1]["Upload-Offset"] == "3"


def test_dropped_patch_with_checksum_is_discarded(tus):
    upload_id = create(tus, 10)
    patch(
        tus,
        upload_id,
        0,
        DroppingBody(b"abcd"),
        **{"Content-Length": "10", "Upload-Checksum": checksum("sha1", b"abcdefghij")},
    )
    assert head(tus, upload_id)[1]["Upload-Offset"] == "0"


def test_failed_completion_hook_is_500_and_retried_by_empty_patch(tus, completed):
    upload_id = create(tus, 3)
    completed.fail = True
    status, headers, _ = patch(tus, upload_id, 0, b"abc")
    assert (status, headers["Upload-Offset"]) == (500, "3")
    completed.fail = False
    assert patch(tus, upload_id, 3, b"")[0] == 204
    assert [call[1] for call in completed.calls] == [b"abc"]


def test_completion_hook_runs_once(tus, completed):
    upload_id = create(tus, 3)
    patch(tus, upload_id, 0, b"abc")
    patch(tus, upload_id, 3, b"")
    assert len(completed.calls) == 1


def test_zero_length_upload_completes_on_first_patch(tus, completed):
    upload_id = create(tus, 0)
    assert patch(tus, upload_id, 0, b"")[0] == 204
    assert completed.calls == [(upload_id, b"", {})]


# -- SHA-256 computed while receiving -------------------------------------


class DigestRecorder:
    def __init__(self) -> None:
        self.digests: list[str] = []

    def __call__(self, info, path) -> None:
        assert info.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
        self.digests.append(info.sha256)


def test_completion_hook_gets_the_sha256_of_every_patch_together(tmp_path):
    recorder = DigestRecorder()
    tus = TusServer(tmp_path / "staging", on_complete=recorder, chunk_size=4)
    upload_id = create(tus, 16)
    patch(tus, upload_id, 0, b"abcd")
    # a discarded chunk and a dropped one must not enter the running hash
    assert patch(tus, upload_id, 4, b"efgh", **{"Upload-Checksum": checksum("sha1", b"nope")})[0] == 460
    patch(tus, upload_id, 4, DroppingBody(b"efg"), **{"Content-Length": "6"})
    assert patch(tus, upload_id, 7, b"hijklmnop")[0] == 204
    assert recorder.digests == [hashlib.sha256(b"abcdefghijklmnop").hexdigest()]


def test_sha256_survives_a_patch_taken_by_another_process(tmp_path):
    # Two TusServers on one staging directory stand for two gunicorn workers.
    recorder = DigestRecorder()
    first = TusServer(tmp_path / "staging", on_complete=recorder)
    second = TusServer(tmp_path / "staging", on_complete=recorder)
    upload_id = create(first, 9)
    patch(first, upload_id, 0, b"abc")
    patch(second, upload_id, 3, b"def")
    assert patch(first, upload_id, 6, b"ghi")[0] == 204
    assert recorder.digests == [hashlib.sha256(b"abcdefghi").hexdigest()]


def test_patch_on_a_completed_upload_writes_nothing(tus, completed):
    upload_id = create(tus, 3)
    patch(tus, upload_id, 0, b"abc")
    assert patch(tus, upload_id, 3, b"")[0] == 204
    assert tus.data_path(upload_id, "alice").read_bytes() == b"abc"


# -- DELETE (termination) -------------------------------------------------


def test_delete_terminates(tus, tmp_path):
    upload_id = create(tus, 10)
    patch(tus, upload_id, 0, b"abc")
    assert tus.handle("DELETE", upload_id, TUS, None, "alice")[0] == 204
    assert head(tus, upload_id)[0] == 404
    assert list((tmp_path / "staging").iterdir()) == []


# -- expiration ------------------------------------------------------------


def test_expired_upload_is_410(tus, clock):
    upload_id = create(tus, 10)
    clock.now += 3601
    assert head(tus, upload_id)[0] == 410
    assert patch(tus, upload_id, 0, b"abc")[0] == 410


def test_progress_pushes_expiry_forward(tus, clock):
    upload_id = create(tus, 10)
    clock.now += 3000
    patch(tus, upload_id, 0, b"abc")
    clock.now += 3000
    assert head(tus, upload_id)[0] == 200


def test_purge_removes_only_expired_uploads(tus, clock, tmp_path):
    old = create(tus, 10)
    clock.now += 3000
    fresh = create(tus, 10)
    clock.now += 1000
    assert tus.purge_expired() == 1
    assert head(tus, old)[0] == 404
    assert head(tus, fresh)[0] == 200
    assert {p.stem for p in (tmp_path / "staging").iterdir()} == {tus.data_path(fresh, "alice").stem}


def test_unknown_method_is_405(tus):
    assert tus.handle("PUT", create(tus, 1), TUS, None, "alice")[0] == 405


def test_errors_use_the_project_json_error_shape(tus):
    upload_id = create(tus, 10)
    status, headers, body = patch(tus, upload_id, 5, b"abc")
    assert (status, headers["Content-Type"]) == (409, "application/json")
    error = json.loads(body)["error"]
    assert error["code"] == "offset_mismatch"
    assert error["message"]


def test_one_users_unfinished_uploads_have_a_quota(tmp_path):
    """Staged bytes are counted per user (issue 30): past the quota a new upload is refused,
    nothing is staged, and others are not held up; finishing or cancelling frees it."""
    quota = TusServer(tmp_path / "quota", max_staged_per_owner=20)
    first = create(quota, 15)
    status, _, body = quota.handle("POST", None, {**TUS, "Upload-Length": "10"}, None, "alice", "/up")
    assert status == 413 and json.loads(body)["error"]["code"] == "upload_quota_exceeded"
    assert len(list((tmp_path / "quota").glob("*.json"))) == 1
    assert create(quota, 10, owner="bob")
    assert quota.handle("DELETE", first, TUS, None, "alice")[0] == 204
    assert create(quota, 10)
