"""Blobs on a local file system (one server, or a shared volume)."""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from os import PathLike
from pathlib import Path
from typing import BinaryIO

from server.storage.base import (
    CHUNK_SIZE,
    BlobNotFound,
    BlobStore,
    DigestMismatch,
    blob_key,
    check_key,
    check_sha256,
    sha256_of,
)


class LocalBlobStore(BlobStore):
    """Blobs as files under ``root``; every write is atomic.

    A write goes to a temporary file in the destination directory, is fsynced and
    then renamed into place, so a reader never sees half a photo and a crash
    leaves at most a stray temporary file.
    """

    def __init__(self, root: str | PathLike) -> None:
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)

    def _path(self, key: str) -> Path:
        return self.root / check_key(key)

    def _atomic_write(self, dest: Path, write) -> None:
        dest.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=dest.parent, prefix=".incoming-")
        try:
            with os.fdopen(fd, "wb") as out:
                write(out)
                out.flush()
                os.fsync(out.fileno())
            os.replace(tmp, dest)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def put_file(self, path: str | PathLike, sha256: str | None = None) -> str:
        # Without a digest, hash first (one extra read) so the copy can go straight
        # to its final directory and be renamed into place.
        expected = check_sha256(sha256) if sha256 else sha256_of(path)
        key = blob_key(expected)
        if self.exists_key(key):
            return key

        def copy(out: BinaryIO) -> None:
            digest = hashlib.sha256()
            with open(path, "rb") as src:
                for chunk in iter(lambda: src.read(CHUNK_SIZE), b""):
                    digest.update(chunk)
                    out.write(chunk)
            if digest.hexdigest() != expected:
                raise DigestMismatch(f"content hashes to {digest.hexdigest()}, not {expected}")

        self._atomic_write(self._path(key), copy)
        return key

    def put_bytes(self, key: str, data: bytes) -> str:
        self._atomic_write(self._path(key), lambda out: out.write(data))
        return key

    def exists_key(self, key: str) -> bool:
        return self._path(key).is_file()

    def open_key(self, key: str) -> BinaryIO:
        try:
            return self._path(key).open("rb")
        except FileNotFoundError:
            raise BlobNotFound(key) from None

    def size_key(self, key: str) -> int:
        try:
            return self._path(key).stat().st_size
        except FileNotFoundError:
            raise BlobNotFound(key) from None

    def delete(self, sha256: str) -> None:
        digest = check_sha256(sha256)
        self._path(blob_key(digest)).unlink(missing_ok=True)
        shutil.rmtree(self.root / "derived" / digest, ignore_errors=True)

    def local_path(self, sha256: str) -> Path:
        """The original's file on disk, for ``send_file`` (local backend only)."""
        return self._path(blob_key(sha256))
