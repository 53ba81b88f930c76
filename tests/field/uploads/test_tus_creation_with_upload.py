"""Creation-with-upload: the POST that creates an upload carries its bytes, and a
client may name the upload (``upload_id``) so that it can resume one it never heard back about."""

from __future__ import annotations

import base64
import io
import json
import uuid

from server.field.uploads.tus import UploadRejected
from tests.support.tus import OCTETS, TUS, checksum, head, patch


def _metadata(**values: str) -> str:
    return ",".join(f"{k} {base64.b64encode(v.encode()).decode()}" for k, v in values.items())


def post(tus, data: bytes | None, length: int | None = None, owner: str = "alice", body=None, **headers):
    """POST to the collection; with ``data`` as creation-with-upload."""
    out = {**(OCTETS if data is not None or body is not None else TUS),
           "Upload-Length": str(len(data) if length is None else length), **headers}
    stream = body if body is not None else (io.BytesIO(data) if data is not None else None)
    return tus.handle("POST", None, out, stream, owner, "http://h/api/v1/uploads")


def test_the_whole_upload_in_the_post_completes_it(tus, completed):
    status, headers, _ = post(tus, b"abcdef")
    assert status == 201
    upload_id = headers["Location"].rsplit("/", 1)[1]
    assert headers["Location"] == f"http://h/api/v1/uploads/{upload_id}"
    assert headers["Upload-Offset"] == "6"
    assert completed.calls == [(upload_id, b"abcdef", {})]


def test_the_first_bytes_in_the_post_then_patches(tus, completed):
    status, headers, _ = post(tus, b"abc", length=6)
    assert (status, headers["Upload-Offset"]) == (201, "3")
    upload_id = headers["Location"].rsplit("/", 1)[1]
    assert completed.calls == []
    assert patch(tus, upload_id, 3, b"def")[0] == 204
    assert completed.calls == [(upload_id, b"abcdef", {})]


def test_a_post_cut_short_keeps_what_arrived(tus, completed):
    class Dropping(io.RawIOBase):
        def __init__(self) -> None:
            self.left = io.BytesIO(b"abcd")

        def readable(self) -> bool:
            return True

        def read(self, size: int = -1) -> bytes:
            chunk = self.left.read(size)
            if not chunk:
                raise ConnectionError("client went away")
            return chunk

    wanted = uuid.uuid4().hex
    status, headers, _ = post(tus, None, length=10, body=Dropping(), **{"Upload-Metadata": _metadata(upload_id=wanted)})
    assert status == 201
    # The client never saw that answer; it stored the URL before sending and asks it.
    assert head(tus, wanted)[1]["Upload-Offset"] == "4"
    assert patch(tus, wanted, 4, b"efghij")[0] == 204
    assert completed.calls[0][1] == b"abcdefghij"


def test_a_client_named_upload_is_at_its_own_url(tus):
    wanted = uuid.uuid4().hex
    status, headers, _ = post(tus, b"abc", **{"Upload-Metadata": _metadata(upload_id=wanted, filename="a.jpg")})
    assert status == 201
    assert headers["Location"] == f"http://h/api/v1/uploads/{wanted}"


def test_a_named_upload_is_created_once(tus, completed):
    wanted = uuid.uuid4().hex
    named = {"Upload-Metadata": _metadata(upload_id=wanted)}
    assert post(tus, b"abc", length=6, **named)[0] == 201
    status, headers, body = post(tus, b"xyz", length=6, **named)
    assert status == 409
    assert json.loads(body)["error"]["code"] == "upload_exists"
    assert head(tus, wanted)[1]["Upload-Offset"] == "3"  # the second body wrote nothing
    # Ids are scoped per user (issue 30): another user's same id is their own upload,
    # and learns nothing of alice's.
    assert post(tus, b"xyz", length=6, owner="mallory", **named)[0] == 201
    assert head(tus, wanted, owner="mallory")[1]["Upload-Offset"] == "3"
    assert head(tus, wanted)[1]["Upload-Offset"] == "3"


def test_an_upload_id_that_is_not_32_hex_digits_is_400(tus, tmp_path):
    for bad in ("../../etc/passwd", "ABCDEF" * 6, "abc"):
        assert post(tus, b"abc", **{"Upload-Metadata": _metadata(upload_id=bad)})[0] == 400
    assert list((tmp_path / "staging").iterdir()) == []


def test_a_checksum_mismatch_in_the_post_is_460_with_the_location(tus, completed):
    status, headers, _ = post(tus, b"abc", length=6, **{"Upload-Checksum": checksum("sha1", b"abd")})
    assert status == 460
    upload_id = headers["Location"].rsplit("/", 1)[1]
    assert head(tus, upload_id)[1]["Upload-Offset"] == "0"  # created, bytes discarded: PATCH again


def test_a_refused_upload_leaves_nothing(tmp_path):
    from server.field.uploads import TusServer

    def refuse(info, path):
        raise UploadRejected("not_an_image", "the file is not a photo")

    tus = TusServer(tmp_path / "staging", on_complete=refuse)
    status, headers, body = post(tus, b"not a photo")
    assert status == 422
    assert json.loads(body)["error"]["code"] == "not_an_image"
    assert list((tmp_path / "staging").glob("*.bin")) == []
    assert list((tmp_path / "staging").glob("*.json")) == []
