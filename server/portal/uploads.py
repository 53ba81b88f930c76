"""Files sent through the portal: checked by type and size, photos decoded in the same
sandbox as the tablets' photos (:func:`server.field.photos.validate.validate_photo`), then
kept in the blob store by SHA-256.

An owner's proof of correction (:mod:`.actions`) and a plumber's owner's consent
(:mod:`.plumber_permits`) both come through here; each says which types it takes.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from dataclasses import dataclass

from flask import current_app

from server.core import settings
from server.core.errors import LateralError
from server.field.photos.errors import PhotoDecodeFailed, PhotoRejected
from server.field.photos.validate import validate_photo
from server.portal.i18n import _

PDF_MAGIC = b"%PDF-"


@dataclass(frozen=True)
class Upload:
    """One file as the browser sent it."""

    filename: str
    data: bytes


def checked_type(upload: Upload, folder: str) -> str:
    """The file's checked media type: a photo decoded as tablets' photos are, or a PDF.

    Raises:
        LateralError: ``too_large``, ``unsupported_format`` and the photo checks' codes.
    """
    limit = settings.current().portal_file_max_bytes
    if len(upload.data) > limit:
        raise LateralError("too_large",
                           _("%(file)s is larger than %(n)s MB", file=upload.filename, n=limit // (1024 * 1024)),
                           {"file": upload.filename, "max_bytes": limit})
    if upload.data.startswith(PDF_MAGIC):
        return "application/pdf"
    path = os.path.join(folder, "upload")
    with open(path, "wb") as f:
        f.write(upload.data)
    s = settings.current()
    try:
        validate_photo(path, max_bytes=limit, max_pixels=s.photo_max_pixels, memory_limit_mib=s.photo_decode_memory_mib)
    except PhotoRejected as exc:
        if exc.code == "not_an_image":
            raise LateralError("unsupported_format", _("%(file)s is neither a photo nor a PDF", file=upload.filename),
                               {"file": upload.filename}) from None
        raise LateralError(exc.code, f"{upload.filename}: {exc.message}", {"file": upload.filename}) from None
    except PhotoDecodeFailed:
        raise LateralError("unsupported_format", _("%(file)s could not be read as a photo", file=upload.filename),
                           {"file": upload.filename}) from None
    return image_type(upload.data)


def image_type(data: bytes) -> str:
    """The media type of a photo that passed the checks, by its first bytes."""
    if data.startswith(b"\xff\xd8"):
        return "image/jpeg"
    if data.startswith(b"\x89PNG"):
        return "image/png"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    if data[:4] in (b"II*\x00", b"MM\x00*"):
        return "image/tiff"
    return "image/heif"


def blob_store():
    """The blob store files are kept in (the photos' store).

    Raises:
        LateralError: ``service_unavailable`` when the app has none.
    """
    store = current_app.extensions.get("lateral_blobs")
    if store is None:
        raise LateralError("service_unavailable", "files cannot be received just now; call the utility")
    return store


def keep(store, upload: Upload) -> str:
    """Keep the file in the blob store by its SHA-256; its digest."""
    digest = hashlib.sha256(upload.data).hexdigest()
    with tempfile.NamedTemporaryFile(prefix="lateral-portal-") as tmp:
        tmp.write(upload.data)
        tmp.flush()
        store.put_file(tmp.name, digest, verified=True)
    return digest
