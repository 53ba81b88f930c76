"""When the tus server flushes an upload to disk: before it acknowledges any offset,
once per photo (the completion hook's store does it for the last bytes)."""

from __future__ import annotations

import os

import pytest

from server.field.uploads import TusServer
from tests.support.tus import create, patch


@pytest.fixture
def synced(monkeypatch):
    """Paths fsynced by the tus server, in order."""
    seen = []
    real = os.fsync

    def recording(fd):
        seen.append(os.readlink(f"/proc/self/fd/{fd}"))
        return real(fd)

    monkeypatch.setattr("server.field.uploads.tus.os.fsync", recording)
    return seen


def test_a_patch_that_does_not_finish_is_flushed_before_its_answer(tus, synced):
    upload_id = create(tus, 6)
    assert patch(tus, upload_id, 0, b"abc")[0] == 204
    assert synced == [str(tus.data_path(upload_id, "alice"))]


def test_the_last_bytes_are_left_to_the_hook_that_stores_them(tmp_path, synced):
    stored = []
    tus = TusServer(tmp_path / "staging", on_complete=lambda info, path: stored.append(path.read_bytes()))
    upload_id = create(tus, 3)
    assert patch(tus, upload_id, 0, b"abc")[0] == 204
    assert stored == [b"abc"] and synced == []


def test_the_last_bytes_are_flushed_when_the_hook_fails(tus, completed, synced):
    completed.fail = True
    upload_id = create(tus, 3)
    assert patch(tus, upload_id, 0, b"abc")[0] == 500
    assert synced == [str(tus.data_path(upload_id, "alice"))]


def test_without_a_hook_the_last_bytes_are_flushed_too(tmp_path, synced):
    tus = TusServer(tmp_path / "staging")
    upload_id = create(tus, 3)
    assert patch(tus, upload_id, 0, b"abc")[0] == 204
    assert synced == [str(tus.data_path(upload_id, "alice"))]
