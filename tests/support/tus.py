"""Requests to a TusServer (create, PATCH, HEAD, checksums), a clock the test controls, and a
completion hook that remembers what it was given."""

from __future__ import annotations

import base64
import hashlib
import io

from server.field.uploads import TusServer

TUS = {"Tus-Resumable": "1.0.0"}
OCTETS = {**TUS, "Content-Type": "application/offset+octet-stream"}


class FakeClock:
    """Unix time that only moves when the test says so."""

    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


class CompletionRecorder:
    """A completion hook that remembers what it was given (and the bytes then)."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, bytes, dict]] = []
        self.fail = False

    def __call__(self, info, path) -> None:
        if self.fail:
            raise RuntimeError("storage unavailable")
        self.calls.append((info.id, path.read_bytes(), dict(info.metadata)))


def checksum(algorithm: str, data: bytes) -> str:
    """An ``Upload-Checksum`` header value."""
    digest = hashlib.new(algorithm, data).digest()
    return f"{algorithm} {base64.b64encode(digest).decode()}"


def create(tus: TusServer, length: int, owner: str = "alice", **headers) -> str:
    """Create an upload and return its id."""
    status, out, _ = tus.handle(
        "POST", None, {**TUS, "Upload-Length": str(length), **headers}, None, owner, "/up"
    )
    assert status == 201, status
    return out["Location"].rsplit("/", 1)[1]


def patch(tus: TusServer, upload_id: str, offset: int, data, owner: str = "alice", **headers):
    """PATCH ``data`` (bytes or a stream) at ``offset``."""
    body = io.BytesIO(data) if isinstance(data, bytes) else data
    headers = {**OCTETS, "Upload-Offset": str(offset), **headers}
    return tus.handle("PATCH", upload_id, headers, body, owner)


def head(tus: TusServer, upload_id: str, owner: str = "alice"):
    return tus.handle("HEAD", upload_id, TUS, None, owner)
