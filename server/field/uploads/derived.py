"""The display image and thumbnail of a stored photo, made on first request.

Making them costs a whole-image decode (~0.3 s and memory that follows the pixel
count for a 4 MB photo), so it stays out of the upload: a day of field photos
syncs at the speed of the network, and a photo nobody opens costs nothing more.
The first ``GET …/display`` or ``…/thumbnail`` makes both and stores them in the
blob store under ``derived/<sha>/``; later requests stream the stored JPEGs.

One photo at a time per process: the decode's memory is bounded by the largest
photo accepted, not by how many pictures a gallery asks for at once.
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

from server.core.storage import BlobStore, LocalBlobStore, derived_key
from server.field.photos import DEFAULT_DECODE_MEMORY_MIB, make_derivatives

DISPLAY_NAME = "display.jpg"
THUMBNAIL_NAME = "thumbnail.jpg"
_ONE_DECODE_AT_A_TIME = threading.Lock()


def derivative_keys(sha256: str) -> tuple[str, str]:
    """Blob keys of the display image and the thumbnail of the original ``sha256``."""
    return derived_key(sha256, DISPLAY_NAME), derived_key(sha256, THUMBNAIL_NAME)


def ensure_derivatives(blob_store: BlobStore, sha256: str, *,
                       decode_memory_mib: int = DEFAULT_DECODE_MEMORY_MIB) -> tuple[str, str]:
    """Make and store the display JPEG and thumbnail unless they are stored already.

    A big non-JPEG photo is decoded in a child process limited to ``decode_memory_mib``
    of address space (:mod:`server.field.photos.isolated`); if it fails, nothing is stored and
    the next request tries again.

    Returns:
        ``(display_key, thumbnail_key)``.

    Raises:
        BlobNotFound: the original is not stored.
        PhotoDecodeFailed: the child process ran out of memory, crashed or overran its time.
        Exception: whatever Pillow raises for pixels it cannot decode.
    """
    keys = derivative_keys(sha256)
    if all(blob_store.exists_key(key) for key in keys):
        return keys
    with _ONE_DECODE_AT_A_TIME:
        if all(blob_store.exists_key(key) for key in keys):
            return keys  # another thread made them while this one waited
        with _local_original(blob_store, sha256) as path:
            display, thumbnail = make_derivatives(path, memory_limit_mib=decode_memory_mib)
        # Thumbnail first: both exist once the display image does.
        blob_store.put_bytes(keys[1], thumbnail)
        blob_store.put_bytes(keys[0], display)
    return keys


@contextlib.contextmanager
def _local_original(blob_store: BlobStore, sha256: str) -> Iterator[Path]:
    """The original as a local file: itself on local disk, else a streamed temporary copy."""
    if isinstance(blob_store, LocalBlobStore):
        if not blob_store.exists(sha256):
            blob_store.open(sha256).close()  # raises BlobNotFound
        yield blob_store.local_path(sha256)
        return
    with tempfile.NamedTemporaryFile(prefix="lateral-original-") as tmp:
        with blob_store.open(sha256) as src:
            shutil.copyfileobj(src, tmp, 1024 * 1024)
        tmp.flush()
        yield Path(tmp.name)
