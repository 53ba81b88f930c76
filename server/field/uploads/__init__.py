"""Resumable photo uploads over tus 1.0.0, so a field tablet on a weak signal can
resume a photo where the connection dropped instead of starting again.
"""

from server.field.uploads.derived import derivative_keys, ensure_derivatives
from server.field.uploads.photo_ingest import StoredPhoto, make_photo_ingest
from server.field.uploads.tus import TUS_EXTENSIONS, TUS_VERSION, TusServer, UploadInfo, UploadRejected

__all__ = [
    "TUS_EXTENSIONS",
    "TUS_VERSION",
    "StoredPhoto",
    "TusServer",
    "UploadInfo",
    "UploadRejected",
    "derivative_keys",
    "ensure_derivatives",
    "make_photo_ingest",
]
