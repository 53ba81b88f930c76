"""Blobs on a local file system (one server, or a shared volume)."""

from __future__ import annotations

import errno
import hashlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from os import PathLike
from pathlib import Path
from typing import BinaryIO

from server.core.storage.base import (
    CHUNK_SIZE,
    BlobNotFound,
    BlobStore,
    DigestMismatch,
    blob_key,
    check_key,
    check_sha256,
    drop_cached_pages,
    fsync_path,
    sha256_of,
)

# A file system without hard links (some network and FAT volumes) gets a copy.
_NO_HARD_LINKS = frozenset({errno.EPERM, errno.EOPNOTSUPP, errno.ENOTSUP, errno.EMLINK, errno.EXDEV})


class LocalBlobStore(BlobStore):
    """Blobs as files under ``root``; every write is atomic.

    A write goes to a temporary file in the destination directory, is fsynced and
    then renamed into place, so a reader never sees half a photo and a crash
    leaves at most a stray temporary file. ``put_file(..., link=True)`` of a file
    on the same file system (a finished tus upload) hard-links it into place
    instead of copying: the bytes are written once.
    """

    def __init__(self, root: str | PathLike) -> None:
        self.root = Path(root)
        self.root.mkdir(mode=0o700, parents=True, exist_ok=True)

    def _path(self, key: str) -> Path:
        return self.root / check_key(key)

    def _atomic_write(self, dest: Path, write, drop_cached: bool = False) -> None:
        dest.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=dest.parent, prefix=".incoming-")
        try:
            with os.fdopen(fd, "wb") as out:
                write(out)
                out.flush()
                os.fsync(out.fileno())
                if drop_cached:
                    drop_cached_pages(out.fileno())
            os.replace(tmp, dest)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def put_file(
        self,
        path: str | PathLike,
        sha256: str | None = None,
        *,
        verified: bool = False,
        link: bool = False,
    ) -> str:
        # Without a digest, hash first (one extra read) so the copy can go straight
        # to its final directory and be renamed into place.
        expected = check_sha256(sha256) if sha256 else sha256_of(path)
        key = blob_key(expected)
        if self.exists_key(key):
            return key
        dest = self._path(key)
        if link and os.stat(path).st_dev == os.stat(self.root).st_dev:
            if not verified and sha256 and sha256_of(path) != expected:
                raise DigestMismatch(f"content does not hash to {expected}")
            try:
                self._link_into_place(path, dest)
                return key
            except OSError as exc:
                if exc.errno not in _NO_HARD_LINKS:
                    raise
                verified = True  # checked just above, or by the caller; copy instead

        def copy(out: BinaryIO) -> None:
            digest = hashlib.sha256()
            with open(path, "rb") as src:
                for chunk in iter(lambda: src.read(CHUNK_SIZE), b""):
                    if not verified:
                        digest.update(chunk)
                    out.write(chunk)
            if not verified and digest.hexdigest() != expected:
                raise DigestMismatch(f"content hashes to {digest.hexdigest()}, not {expected}")

        self._atomic_write(dest, copy, drop_cached=True)  # an original: see _link_into_place
        return key

    def _link_into_place(self, path: str | PathLike, dest: Path) -> None:
        """The file becomes the blob without a copy: hard link, then fsync file and directory.

        A hard link names a file that is already whole, so ``dest`` appears complete
        and at once without a temporary name. A name taken by another writer holds
        the same bytes (keys are digests), so it is kept.
        """
        dest.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        try:
            os.link(path, dest)
        except FileExistsError:
            return
        # The file: a no-op for its data when the writer already synced it. The
        # directory: the new name survives a crash. One journal commit for both.
        # Its pages are then dropped from the cache: originals are rarely read again, and
        # the next photo written into those pages rather than fresh memory is faster.
        fsync_path(dest, drop_cached=True)
        fsync_path(dest.parent)

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

    def iter_keys(self, prefix: str = "") -> Iterator[tuple[str, int]]:
        base = self.root / prefix if prefix else self.root
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames.sort()
            for name in sorted(filenames):
                if name.startswith(".incoming-"):
                    continue  # a write in flight, or one a crash left behind
                path = Path(dirpath) / name
                yield path.relative_to(self.root).as_posix(), path.stat().st_size
