"""A TusServer over a temporary staging directory, with a clock the test controls, and a
local blob store for the uploads that complete."""

from __future__ import annotations

import pytest

from server.core.storage import LocalBlobStore
from server.field.uploads import TusServer
from tests.support.tus import CompletionRecorder, FakeClock


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def completed() -> CompletionRecorder:
    return CompletionRecorder()


@pytest.fixture
def tus(tmp_path, clock, completed) -> TusServer:
    return TusServer(
        tmp_path / "staging",
        on_complete=completed,
        max_size=1_000_000,
        expires_after=3600,
        chunk_size=1024,
        clock=clock,
    )


@pytest.fixture
def blobs(tmp_path) -> LocalBlobStore:
    return LocalBlobStore(tmp_path / "blobs")
