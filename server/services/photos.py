"""Stored photos in the database: the row a finished upload leaves, and reading them back.

The bytes live in the blob store (``server/storage``), named by SHA-256; the row
keeps what the photo says about itself and who sent it. An inspection names its
photos by digest (``InspectionPhoto``), so the two may arrive in either order.
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from server.dialects import begin_write
from server.errors import ApiError
from server.extensions import db
from server.models import Photo
from server.services import audit
from server.storage import derived_key
from server.uploads import StoredPhoto

MIMETYPES = {"JPEG": "image/jpeg", "HEIF": "image/heif", "PNG": "image/png", "TIFF": "image/tiff",
             "WEBP": "image/webp"}
UPLOAD_METADATA = ("inspection_uuid", "item_id", "filename")
DERIVED = {"display": "display.jpg", "thumbnail": "thumbnail.jpg"}


def record_stored_photo(stored: StoredPhoto, uploaded_by: int | None) -> Photo:
    """The ``Photo`` row for a photo now in the blob store; an existing row is kept.

    Commits: the tus completion hook is its own unit of work (the blob is already
    stored, content-addressed, so a retry after a failure here is harmless).
    """
    db.session.rollback()  # end the request's read transaction: this one writes
    begin_write(db.session)
    photo = find_photo(stored.sha256)
    if photo is not None:
        db.session.rollback()
        return photo
    info = stored.info
    photo = Photo(
        sha256=stored.sha256, size=stored.size, format=info.format, width=info.width, height=info.height,
        captured_at=info.captured_at, lat=info.lat, lon=info.lon, alt=info.alt,
        make=_text(info.make), model=_text(info.model), warnings=list(info.warnings or []),
        upload_metadata={k: stored.upload.metadata.get(k) for k in UPLOAD_METADATA},
        uploaded_by_id=uploaded_by,
    )
    try:
        db.session.add(photo)
        db.session.flush()
        audit.record("store", "photo", photo.id, None, {"sha256": photo.sha256, "size": photo.size,
                                                        "format": photo.format})
        db.session.commit()
    except IntegrityError:
        db.session.rollback()  # the same photo finished in another request
        photo = find_photo(stored.sha256)
    return photo


def _text(value) -> str | None:
    return str(value)[:120] if value else None


def find_photo(sha256: str) -> Photo | None:
    return db.session.execute(select(Photo).filter_by(sha256=sha256.lower())).scalar_one_or_none()


def photo_or_404(sha256: str) -> Photo:
    photo = find_photo(sha256)
    if photo is None:
        raise ApiError(404, "not_found", f"no photo {sha256}")
    return photo


def blob_key_for(photo: Photo, variant: str | None) -> tuple[str | None, str]:
    """(derived key or None for the original, media type) of one variant of a photo."""
    if variant is None:
        return None, MIMETYPES.get(photo.format, "application/octet-stream")
    return derived_key(photo.sha256, DERIVED[variant]), "image/jpeg"


def photo_out(photo: Photo) -> dict:
    return {
        "sha256": photo.sha256, "size": photo.size, "format": photo.format, "width": photo.width,
        "height": photo.height, "captured_at": photo.captured_at.isoformat() if photo.captured_at else None,
        "lat": photo.lat, "lon": photo.lon, "alt": photo.alt, "make": photo.make, "model": photo.model,
        "warnings": photo.warnings or [], "upload_metadata": photo.upload_metadata or {},
        "uploaded_by_id": photo.uploaded_by_id, "uploaded_at": photo.uploaded_at.isoformat(),
    }
