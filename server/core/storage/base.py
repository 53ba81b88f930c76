"""The BlobStore interface and the key scheme every backend shares."""

from __future__ import annotations

import hashlib
import os
import re
from abc import ABC, abstractmethod
from collections.abc import Iterator
from os import PathLike
from typing import BinaryIO

CHUNK_SIZE = 1024 * 1024
_SHA256 = re.compile(r"^[0-9a-f]{64}$")
_SAFE_KEY = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*(/[A-Za-z0-9][A-Za-z0-9._-]*)*$")


class BlobNotFound(KeyError):
    """No blob is stored under the given digest or key."""


class StoreUnavailable(RuntimeError):
    """The blob store did not answer, or kept refusing, after its own retries.

    Raised for an S3 service that is down, throttling past its retry budget, or
    refusing requests; the caller answers with a retryable status, never a 500.
    """


class DigestMismatch(ValueError):
    """The file's content does not hash to the SHA-256 it was stored under."""


def check_sha256(sha256: str) -> str:
    """The digest, lower-case, or ``ValueError`` if it is not 64 hex digits."""
    digest = sha256.lower()
    if not _SHA256.match(digest):
        raise ValueError(f"not a SHA-256 hex digest: {sha256!r}")
    return digest


def check_key(key: str) -> str:
    """The key, or ``ValueError`` if it could escape the store (``..``, ``/x``)."""
    if not _SAFE_KEY.match(key) or ".." in key.split("/"):
        raise ValueError(f"unsafe blob key: {key!r}")
    return key


def blob_key(sha256: str) -> str:
    """Key of an original: ``blobs/ab/cd/abcd…`` (fan-out keeps directories small)."""
    digest = check_sha256(sha256)
    return f"blobs/{digest[:2]}/{digest[2:4]}/{digest}"


def derived_key(sha256: str, name: str) -> str:
    """Key of an image made from an original, e.g. ``derived/{sha}/display.jpg``."""
    return check_key(f"derived/{check_sha256(sha256)}/{name}")


def fsync_path(path: str | PathLike, *, drop_cached: bool = False) -> None:
    """Flush a file's (or a directory's) data and metadata to disk.

    ``drop_cached``: then let the kernel drop the file's pages from its cache (see
    :func:`drop_cached_pages`).
    """
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
        if drop_cached:
            drop_cached_pages(fd)
    finally:
        os.close(fd)


def drop_cached_pages(fd: int) -> None:
    """Tell the kernel a file just flushed will not be read again soon (where it listens).

    An original photo is written once and read again only when someone first views it.
    Kept in the page cache, every new photo is written into fresh memory, which on the
    VMs a city runs on cost a third of an upload's time (``bench/README.md``, "Field
    sync"); dropped once it is on disk, its pages take the next photo.
    """
    if hasattr(os, "posix_fadvise"):
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)


def sha256_of(path: str | PathLike) -> str:
    """SHA-256 of a file, read in chunks."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(CHUNK_SIZE), b""):
            digest.update(chunk)
    return digest.hexdigest()


class BlobStore(ABC):
    """Where photo bytes live. Originals are addressed by SHA-256; derived images by key.

    Implementations never hold a whole photo in memory: they copy and serve in
    chunks.
    """

    @abstractmethod
    def put_file(
        self,
        path: str | PathLike,
        sha256: str | None = None,
        *,
        verified: bool = False,
        link: bool = False,
    ) -> str:
        """Store a file's content under its digest; a no-op if already stored.

        Args:
            path: The file on local disk (e.g. a finished tus upload).
            sha256: Its digest if the caller already knows it; verified, not trusted,
                unless ``verified``.
            verified: The caller computed ``sha256`` from these very bytes (the tus
                server hashes while it receives), so the store need not read the
                file again to check it.
            link: The store may take the file itself (a hard link on the same
                file system) instead of copying it; the caller must not modify it
                afterwards. Backends that cannot link copy.

        Returns:
            The blob key.

        Raises:
            DigestMismatch: the content does not hash to ``sha256``.
        """

    @abstractmethod
    def put_bytes(self, key: str, data: bytes) -> str:
        """Store a small object (a derived image) under ``key``; returns the key."""

    @abstractmethod
    def exists_key(self, key: str) -> bool:
        """Whether an object is stored under ``key``."""

    @abstractmethod
    def open_key(self, key: str) -> BinaryIO:
        """A binary stream of the object; the caller closes it.

        Raises:
            BlobNotFound: nothing is stored under ``key``.
        """

    @abstractmethod
    def size_key(self, key: str) -> int:
        """Size in bytes of the object under ``key``.

        Raises:
            BlobNotFound: nothing is stored under ``key``.
        """

    @abstractmethod
    def delete(self, sha256: str) -> None:
        """Remove an original and everything derived from it; absent is not an error."""

    @abstractmethod
    def iter_keys(self, prefix: str = "") -> Iterator[tuple[str, int]]:
        """Every stored object under ``prefix`` as ``(key, size)``, for backups and checks."""

    def url(self, key: str, expires_in: int = 3600) -> str | None:
        """A time-limited URL a browser may fetch directly, or ``None`` to stream."""
        return None

    def exists(self, sha256: str) -> bool:
        """Whether the original with this digest is stored."""
        return self.exists_key(blob_key(sha256))

    def open(self, sha256: str) -> BinaryIO:
        """A binary stream of the original with this digest."""
        return self.open_key(blob_key(sha256))

    def size(self, sha256: str) -> int:
        """Size in bytes of the original with this digest."""
        return self.size_key(blob_key(sha256))

    def stream(self, key: str, chunk_size: int = CHUNK_SIZE) -> Iterator[bytes]:
        """The object under ``key`` in chunks, for a streamed HTTP response."""
        with self.open_key(key) as f:
            yield from iter(lambda: f.read(chunk_size), b"")
