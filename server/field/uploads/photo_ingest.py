"""The completion hook that turns a finished tus upload into stored photo evidence.

On the photo's last byte, inside the request: the cheap checks
(``validate_photo``: size, header, pixel count, a JPEG's structure), the digest
the tus server computed while receiving, the staged file hard-linked into the
blob store (no second write on local disk), the header and EXIF read. The display
image and thumbnail are made on first request (``server/field/uploads/derived.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from server.core.storage import BlobStore, StoreUnavailable, sha256_of
from server.field.photos import (
    DEFAULT_DECODE_MEMORY_MIB,
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_PIXELS,
    PhotoDecodeFailed,
    PhotoInfo,
    PhotoRejected,
    inspect_photo,
    validate_photo,
)
from server.field.uploads.derived import derivative_keys
from server.field.uploads.tus import NO_SPACE, CompletionHook, UploadDeferred, UploadInfo, UploadRejected

# Seconds a client waits before retrying a photo the blob store did not take.
STORE_RETRY_AFTER_S = 30
# ... or a photo whose check could not run to the end (the decoder's child process failed).
CHECK_RETRY_AFTER_S = 60


@dataclass(frozen=True)
class StoredPhoto:
    """A photo accepted and stored; what the app records against an inspection.

    Attributes:
        sha256: Digest of the original bytes (its identity everywhere).
        key: Blob key of the original.
        size: Bytes of the original.
        info: What the photo says about itself (time, position, camera...).
        display_key: Blob key of the ≤ 2048 px upright JPEG (made on first
            request by :func:`~server.field.uploads.derived.ensure_derivatives`).
        thumbnail_key: Blob key of the ≤ 256 px upright JPEG (likewise).
        upload: The tus upload it came from (owner, decoded metadata).
    """

    sha256: str
    key: str
    size: int
    info: PhotoInfo
    display_key: str
    thumbnail_key: str
    upload: UploadInfo


def make_photo_ingest(
    blob_store: BlobStore,
    on_stored: Callable[[StoredPhoto], None] | None = None,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_pixels: int = DEFAULT_MAX_PIXELS,
    decode_memory_mib: int = DEFAULT_DECODE_MEMORY_MIB,
) -> CompletionHook:
    """A ``TusServer`` completion hook that validates and stores a photo.

    If the client sent ``sha256`` in ``Upload-Metadata`` it must match the bytes
    received. A refused photo becomes :class:`UploadRejected` (the photo's stable
    code) and the upload is discarded.

    Args:
        blob_store: Where originals and derived images go.
        on_stored: Called with the :class:`StoredPhoto`; the app records it
            (e.g. links it to the inspection named in the upload metadata). If it
            raises, the tus response is 500 and a zero-byte PATCH retries; storing
            again is harmless because blobs are content-addressed.
        max_bytes: Largest photo accepted.
        max_pixels: Largest width × height accepted.
        decode_memory_mib: Address space of the child process that decodes a big
            non-JPEG photo to check it (:mod:`server.field.photos.isolated`). If that child
            fails, the upload is deferred (``photo_check_failed``): the bytes stay
            in staging and the same PATCH retries; the photo is neither kept nor refused.
    """

    def ingest(upload: UploadInfo, path: Path) -> None:
        try:
            validate_photo(path, max_bytes=max_bytes, max_pixels=max_pixels, memory_limit_mib=decode_memory_mib)
        except PhotoRejected as exc:
            raise UploadRejected(exc.code, exc.message) from exc
        except PhotoDecodeFailed as exc:
            raise UploadDeferred("photo_check_failed", f"the photo could not be checked now ({exc.message}); "
                                 "the bytes received are kept, try again later", CHECK_RETRY_AFTER_S) from exc
        # Hashed by the tus server while the bytes arrived; a hook called some
        # other way hashes the file itself.
        sha256 = upload.sha256 or sha256_of(path)
        declared = (upload.metadata.get("sha256") or "").lower()
        if declared and declared != sha256:
            raise UploadRejected("digest_mismatch", "the photo does not match its declared SHA-256")
        info = inspect_photo(path)  # while the file is in the page cache (storing may drop it)
        key = _store(blob_store, path, sha256)
        display_key, thumbnail_key = derivative_keys(sha256)
        stored = StoredPhoto(
            sha256=sha256,
            key=key,
            size=path.stat().st_size,
            info=info,
            display_key=display_key,
            thumbnail_key=thumbnail_key,
            upload=upload,
        )
        if on_stored is not None:
            on_stored(stored)

    return ingest


def _store(blob_store: BlobStore, path: Path, sha256: str) -> str:
    """Put the staged photo into the blob store, or defer it (kept in staging) if it cannot be now."""
    try:
        return blob_store.put_file(path, sha256, verified=True, link=True)
    except OSError as exc:
        if exc.errno not in NO_SPACE:
            raise
        raise UploadDeferred("insufficient_storage", "the photo store's disk is full; the photo is kept "
                                                     "and is stored once space is freed") from exc
    except StoreUnavailable as exc:
        raise UploadDeferred("store_unavailable", "the photo store is not answering; the photo is kept, "
                                                  "try again shortly", STORE_RETRY_AFTER_S) from exc
