"""Stored photos in the database: the row a finished upload leaves, and reading them back.

The bytes live in the blob store (``server/core/storage``), named by SHA-256; the row
keeps what the photo says about itself and who sent it. An inspection names its
photos by digest (``InspectionPhoto``), so the two may arrive in either order.
"""

from __future__ import annotations

from sqlalchemy import select

from server.core.audit import trail as audit
from server.core.dialects import insert_skipping_taken
from server.core.errors import LateralError
from server.core.extensions import db
from server.core.storage import derived_key
from server.field.models import Photo
from server.field.uploads import StoredPhoto

MIMETYPES = {"JPEG": "image/jpeg", "HEIF": "image/heif", "PNG": "image/png", "TIFF": "image/tiff",
             "WEBP": "image/webp"}
UPLOAD_METADATA = ("inspection_uuid", "item_id", "filename")
DERIVED = {"display": "display.jpg", "thumbnail": "thumbnail.jpg"}


def record_stored_photo(stored: StoredPhoto, uploaded_by: int | None) -> int | None:
    """The ``Photo`` row for a photo now in the blob store; an existing row is kept.

    Returns the new row's id, or ``None`` when the photo was already recorded (another
    upload of the same bytes, or the same one retried). The caller commits: the tus
    completion hook runs this as a transaction of its own (``server/field/api/photos.py``;
    the blob is already stored, content-addressed, so a retry after a failure here is
    harmless). One INSERT that skips a digest already taken, not a look-up first, and
    plain SQL rather than the ORM's bulk path (which compiled the statement anew for
    every photo): this runs once per photo inside the upload's request.
    """
    info = stored.info
    values = dict(
        sha256=stored.sha256, size=stored.size, format=info.format, width=info.width, height=info.height,
        captured_at=info.captured_at, lat=info.lat, lon=info.lon, alt=info.alt,
        make=_text(info.make), model=_text(info.model), warnings=list(info.warnings or []),
        upload_metadata={k: stored.upload.metadata.get(k) for k in UPLOAD_METADATA},
        uploaded_by_id=uploaded_by,
    )
    photo_id = db.session.execute(_insert_photo(db.session.get_bind()), values).scalar()
    if photo_id is not None:
        audit.record_now("store", "photo", photo_id, None,
                         {"sha256": stored.sha256, "size": stored.size, "format": info.format}, uploaded_by)
    return photo_id


_INSERTS: dict[str, object] = {}


def _insert_photo(bind):
    """INSERT … ON CONFLICT (sha256) DO NOTHING RETURNING id, built once per database."""
    name = bind.dialect.name
    if name not in _INSERTS:
        table = Photo.__table__
        _INSERTS[name] = insert_skipping_taken(bind, table, ["sha256"], None).returning(table.c.id)
    return _INSERTS[name]


def _text(value) -> str | None:
    return str(value)[:120] if value else None


def find_photo(sha256: str) -> Photo | None:
    return db.session.execute(select(Photo).filter_by(sha256=sha256.lower())).scalar_one_or_none()


def photo_or_404(sha256: str) -> Photo:
    photo = find_photo(sha256)
    if photo is None:
        raise LateralError("not_found", f"no photo {sha256}")
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
