"""Content-addressed blob storage for photo evidence: local disk or S3.

A photo is stored under a key derived from its SHA-256, so the same bytes sent
twice (a retried upload, two inspectors sharing a photo) are stored once.
"""

from server.core.storage.base import (
    BlobNotFound,
    BlobStore,
    DigestMismatch,
    StoreUnavailable,
    blob_key,
    derived_key,
    sha256_of,
)
from server.core.storage.factory import make_blob_store
from server.core.storage.local import LocalBlobStore

__all__ = [
    "BlobNotFound",
    "BlobStore",
    "DigestMismatch",
    "LocalBlobStore",
    "S3BlobStore",
    "StoreUnavailable",
    "blob_key",
    "derived_key",
    "make_blob_store",
    "sha256_of",
]


def __getattr__(name: str):
    # S3 is an extra (``pip install lateral[s3]``): boto3 is imported only when asked for.
    if name == "S3BlobStore":
        from server.core.storage.s3 import S3BlobStore

        return S3BlobStore
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
