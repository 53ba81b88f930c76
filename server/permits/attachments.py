"""Scanned forms attached to a permit: the application signed at the counter, the owner's
written consent (§ 315-11E(1)), a plan.

A file is checked before anything is written: its size (``PERMIT_FILE_MAX_BYTES``), its
type by content, never by its name (a PDF, or a JPEG or PNG scan), and an image's pixels
decoded in the same sandbox as the tablets' photos (``python -m server.field.photos.child``:
a child process with an address-space limit), so a damaged or hostile scan is refused
before it reaches the store. Kept files go to the app's blob store by SHA-256 (the photos'
store), one :class:`PermitAttachment` row each, audited with the permit.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from dataclasses import dataclass

from flask import current_app
from sqlalchemy import select

from server.core import settings
from server.core.audit import trail as audit
from server.core.errors import LateralError
from server.core.extensions import db
from server.core.storage import BlobNotFound, BlobStore, StoreUnavailable
from server.field.photos.errors import PhotoDecodeFailed, PhotoRejected
from server.field.photos.inspect import open_image
from server.field.photos.isolated import run_child
from server.permits.models import Permit, PermitAttachment

#: A scan's image formats, by what Pillow reads in the file, and their media types.
IMAGE_TYPES = {"JPEG": "image/jpeg", "PNG": "image/png"}
PDF_MAGIC = b"%PDF-"
#: A PDF ends with its end-of-file marker, give or take trailing whitespace and junk.
PDF_TAIL_BYTES = 1024
MAX_FILES = 10
#: The blob store the photos' wiring made (server/field/api/photos.py).
BLOBS = "lateral_blobs"


@dataclass(frozen=True)
class Upload:
    """A file as the form or the API sent it."""

    filename: str
    data: bytes


def _refuse(code: str, upload: Upload, message: str, **details) -> LateralError:
    return LateralError(code, f"{upload.filename}: {message}", {"file": upload.filename, **details})


def _pdf_type(upload: Upload) -> str:
    if b"%%EOF" not in upload.data[-PDF_TAIL_BYTES:]:
        raise _refuse("truncated", upload, "the PDF ends early (no end-of-file marker): scan it again")
    return "application/pdf"


def _image_type(upload: Upload, folder: str) -> str:
    """A JPEG or PNG scan whose every pixel decodes in the photos' sandbox."""
    s = settings.current()
    path = os.path.join(folder, "scan")
    with open(path, "wb") as f:
        f.write(upload.data)
    try:
        with open_image(path) as image:
            image_format, (width, height) = image.format, image.size
        if image_format not in IMAGE_TYPES:
            raise _refuse("unsupported_format", upload, f"a {image_format} image; scans are kept as PDF, JPEG or PNG")
        if width * height > s.photo_max_pixels:
            raise _refuse("decompression_bomb", upload, f"{width} × {height} pixels is more than a scan has "
                                                        f"(at most {s.photo_max_pixels / 1e6:g} megapixels)")
        run_child("check", path, memory_limit_mib=s.photo_decode_memory_mib)
    except PhotoRejected as exc:
        if exc.code == "not_an_image":
            raise _refuse("unsupported_format", upload, "neither a PDF nor a JPEG or PNG image") from None
        raise _refuse(exc.code, upload, exc.message) from None
    except PhotoDecodeFailed as exc:
        raise LateralError("service_unavailable", f"{upload.filename}: the scan could not be checked just now "
                                                  f"({exc.message}); nothing was kept, try again") from None
    return IMAGE_TYPES[image_format]


def check(upload: Upload, folder: str) -> str:
    """The media type of an acceptable scanned form, or why it is refused.

    Raises:
        LateralError: ``too_large``, ``unsupported_format``, ``truncated``,
            ``decompression_bomb``; ``service_unavailable`` when the sandbox could not
            decode it this time.
    """
    limit = settings.current().permit_file_max_bytes
    if len(upload.data) > limit:
        raise _refuse("too_large", upload, f"larger than the {limit // (1024 * 1024)} MB a scanned form may be",
                      max_bytes=limit)
    if not upload.data:
        raise _refuse("invalid_fields", upload, "the file is empty", fields={"files": ["an empty file"]})
    if upload.data.startswith(PDF_MAGIC):
        return _pdf_type(upload)
    return _image_type(upload, folder)


def _store() -> BlobStore:
    store = current_app.extensions.get(BLOBS)
    if store is None:
        raise LateralError("service_unavailable", "files cannot be kept just now: no file store is set up")
    return store


def attach(permit: Permit, uploads: list[Upload], actor, description: str | None = None) -> list[PermitAttachment]:
    """Check every file, then keep them all with the permit (all or none), audited.

    Raises:
        LateralError: ``invalid_fields`` (no file, too many), and :func:`check`'s codes;
            nothing is written or stored then.
    """
    uploads = [u for u in uploads if u.filename or u.data]
    if not uploads or len(uploads) > MAX_FILES:
        raise LateralError("invalid_fields", f"attach 1 to {MAX_FILES} scanned forms (PDF, JPEG or PNG)",
                           {"fields": {"files": [f"1 to {MAX_FILES} files"]}})
    note = (description or "").strip()[:200] or None
    store = _store()
    with tempfile.TemporaryDirectory(prefix="lateral-permit-") as folder:
        checked = [(upload, check(upload, folder)) for upload in uploads]
    rows = []
    for upload, media_type in checked:
        row = PermitAttachment(permit_id=permit.id, sha256=_put(store, upload), media_type=media_type,
                               filename=os.path.basename(upload.filename.replace("\\", "/"))[:200] or "scan",
                               size=len(upload.data), description=note, attached_by_id=getattr(actor, "id", None))
        db.session.add(row)
        rows.append(row)
    db.session.flush()
    audit.record("attach", "permit", permit.id, None,
                 {"number": permit.number, "attachments": [out(r) for r in rows]}, actor)
    return rows


def _put(store: BlobStore, upload: Upload) -> str:
    """Keep the bytes in the blob store by their SHA-256 (the same bytes twice are stored once)."""
    digest = hashlib.sha256(upload.data).hexdigest()
    with tempfile.NamedTemporaryFile(prefix="lateral-permit-") as tmp:
        tmp.write(upload.data)
        tmp.flush()
        try:
            store.put_file(tmp.name, digest, verified=True)
        except StoreUnavailable as exc:
            raise LateralError("store_unavailable", "the file store is not answering; nothing was kept, "
                                                    "try again shortly", headers={"Retry-After": "30"}) from exc
    return digest


def of_permit(permit_id: int) -> list[PermitAttachment]:
    return list(db.session.scalars(select(PermitAttachment).where(PermitAttachment.permit_id == permit_id)
                                   .order_by(PermitAttachment.id)))


def open_attachment(permit_id: int, attachment_id: int):
    """One of a permit's files: (the row, a binary stream from the blob store)."""
    row = db.session.get(PermitAttachment, attachment_id)
    if row is None or row.permit_id != permit_id:
        raise LateralError("not_found", f"permit {permit_id} has no attachment {attachment_id}")
    try:
        return row, _store().open(row.sha256)
    except BlobNotFound as exc:
        raise LateralError("not_found", f"attachment {attachment_id}'s file is not in the store") from exc
    except StoreUnavailable as exc:
        raise LateralError("store_unavailable", "the file store is not answering; try again shortly",
                           headers={"Retry-After": "30"}) from exc


def out(row: PermitAttachment) -> dict:
    return {"id": row.id, "filename": row.filename, "media_type": row.media_type, "size": row.size,
            "sha256": row.sha256, "description": row.description, "attached_at": row.attached_at.isoformat()
            if row.attached_at else None, "attached_by_id": row.attached_by_id}
