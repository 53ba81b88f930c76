"""An upload's staging files: two per upload, the record only appended to, crashes survived.

The record (``{key}.json``, the id scoped to its owner) is one JSON line at creation and one more per change;
these tests cut it the way a crash would and check what the server then believes.
"""

from __future__ import annotations

import hashlib
import io
import json
import os

from server.field.uploads import TusServer
from tests.support.tus import create, head, patch

PHOTO = bytes(range(256)) * 12_000  # 3 MB: pieces large enough to be absorbed on a helper thread


def test_an_upload_is_two_files_and_no_more(tus, tmp_path):
    upload_id = create(tus, 10)
    patch(tus, upload_id, 0, b"abc")
    key = tus.data_path(upload_id, "alice").stem
    assert sorted(p.name for p in (tmp_path / "staging").iterdir()) == [f"{key}.bin", f"{key}.json"]


def test_changes_are_appended_as_lines_and_merged_in_order(tus, clock):
    upload_id = create(tus, 6)
    clock.now += 100
    patch(tus, upload_id, 0, b"abc")
    clock.now += 100
    patch(tus, upload_id, 3, b"def")
    lines = tus._info_path(upload_id, "alice").read_bytes().split(b"\n")
    first, *changes = (json.loads(line) for line in lines)
    assert first["length"] == 6 and first["completed"] is False
    assert [c["expires"] for c in changes] == [first["expires"] + 100, first["expires"] + 200]
    assert changes[-1]["completed"] is True
    assert changes[-1]["sha256"] == hashlib.sha256(b"abcdef").hexdigest()
    # The finished upload reads as finished: a repeated last PATCH writes nothing.
    assert patch(tus, upload_id, 6, b"")[0] == 204


def test_a_change_cut_short_by_a_crash_is_ignored_and_later_ones_still_count(tus, clock):
    upload_id = create(tus, 9)
    patch(tus, upload_id, 0, b"abc")
    with tus._info_path(upload_id, "alice").open("ab") as f:
        f.write(b'\n{"expires": 99')  # the append a crash interrupted
    clock.now += 500
    assert patch(tus, upload_id, 3, b"def")[0] == 204  # the record still reads
    status, headers, _ = head(tus, upload_id)
    assert status == 200 and headers["Upload-Offset"] == "6"
    assert tus._read(tus.data_path(upload_id, "alice").stem).expires == clock.now + tus.expires_after


def test_a_record_from_before_the_append_only_format_still_reads(tus, tmp_path):
    upload_id = create(tus, 4)
    whole = tus._read(tus.data_path(upload_id, "alice").stem)
    tus._info_path(upload_id, "alice").write_text(json.dumps({
        "id": upload_id, "length": 4, "owner": "alice", "metadata": {}, "created": whole.created,
        "expires": whole.expires, "completed": False, "sha256": None}))
    (tmp_path / "staging" / f"{tus.data_path(upload_id, 'alice').stem}.lock").touch()  # as that server left it
    assert patch(tus, upload_id, 0, b"abcd")[0] == 204
    assert tus.handle("DELETE", upload_id, {"Tus-Resumable": "1.0.0"}, None, "alice")[0] == 204
    assert list((tmp_path / "staging").iterdir()) == []


def test_a_creation_cut_short_is_no_upload_and_is_purged_once_old(tus, clock, tmp_path):
    upload_id = create(tus, 4)
    record = tus._info_path(upload_id, "alice")
    record.write_bytes(b'{"id": "')  # the crash came while the record was written
    assert head(tus, upload_id)[0] == 404
    os.utime(record, (clock.now, clock.now))  # written "now" by the test's clock
    assert tus.purge_expired() == 0  # it might be a creation still being written
    old = clock.now - tus.expires_after - 1
    os.utime(record, (old, old))
    assert tus.purge_expired() == 1
    assert list((tmp_path / "staging").iterdir()) == []


def test_a_leftover_record_does_not_block_a_new_upload_of_its_id(tus, tmp_path):
    upload_id = "ab" * 16
    tus._info_path(upload_id, "alice").write_text("{}")  # removal cut between its two files
    assert create(tus, 3, **{"Upload-Metadata": "upload_id " + _b64(upload_id)}) == upload_id
    assert patch(tus, upload_id, 0, b"abc")[0] == 204


def test_large_pieces_are_written_and_hashed_in_order(tmp_path):
    digests = []
    tus = TusServer(tmp_path / "staging", on_complete=lambda info, path: digests.append(
        (info.sha256, hashlib.sha256(path.read_bytes()).hexdigest())))
    upload_id = create(tus, len(PHOTO))
    assert patch(tus, upload_id, 0, PHOTO)[0] == 204
    assert tus.data_path(upload_id, "alice").read_bytes() == PHOTO
    assert digests == [(hashlib.sha256(PHOTO).hexdigest(),) * 2]


class _DropsAfter(io.RawIOBase):
    """A body that hands over ``limit`` bytes in large pieces, then the connection drops."""

    def __init__(self, data: bytes, limit: int) -> None:
        self.data, self.limit, self.pos = data, limit, 0

    def read(self, size: int = -1) -> bytes:
        if self.pos >= self.limit:
            raise ConnectionResetError("gone")
        end = min(self.limit, self.pos + (size if size >= 0 else self.limit))
        piece, self.pos = self.data[self.pos:end], end
        return piece


def test_a_drop_between_large_pieces_keeps_what_arrived_and_its_hash(tmp_path):
    digests = []
    tus = TusServer(tmp_path / "staging", on_complete=lambda info, path: digests.append(info.sha256))
    upload_id = create(tus, len(PHOTO))
    cut = 5 * 256 * 1024 + 1000
    patch(tus, upload_id, 0, _DropsAfter(PHOTO, cut))
    assert head(tus, upload_id)[1]["Upload-Offset"] == str(cut)
    assert patch(tus, upload_id, cut, PHOTO[cut:])[0] == 204
    assert digests == [hashlib.sha256(PHOTO).hexdigest()]


def test_a_write_that_fails_on_the_helper_thread_fails_the_request(tmp_path, monkeypatch):
    tus = TusServer(tmp_path / "staging")
    upload_id = create(tus, len(PHOTO))

    class FullDisk:
        def update(self, chunk):
            raise OSError(28, "No space left on device")

        def copy(self):
            return self

    monkeypatch.setattr(tus, "_running_hash", lambda *args: FullDisk())
    status, _, body = patch(tus, upload_id, 0, PHOTO)
    # Not swallowed: the request fails as a full disk does (507), and nothing it wrote stays.
    assert status == 507 and json.loads(body)["error"]["code"] == "insufficient_storage"
    monkeypatch.undo()
    assert head(tus, upload_id)[1]["Upload-Offset"] == "0"
    assert tus.data_path(upload_id, "alice").stat().st_size == 0


def _b64(text: str) -> str:
    import base64

    return base64.b64encode(text.encode()).decode()


def test_an_upload_staged_before_ids_were_scoped_is_purged_once_old(tus, clock, tmp_path):
    """Files named by the bare id (before issue 30) are nobody's now; the purge clears them."""
    legacy = "cd" * 16
    for suffix in (".bin", ".json"):
        (tmp_path / "staging" / f"{legacy}{suffix}").write_bytes(b"x")
        os.utime(tmp_path / "staging" / f"{legacy}{suffix}", (clock.now, clock.now))
    assert tus.purge_expired() == 0
    old = clock.now - tus.expires_after - 1
    for path in (tmp_path / "staging").iterdir():
        os.utime(path, (old, old))
    assert tus.purge_expired() == 1
    assert list((tmp_path / "staging").iterdir()) == []
