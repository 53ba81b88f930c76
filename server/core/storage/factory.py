"""Build the configured BlobStore: the one place that asks "local or S3?"."""

from __future__ import annotations

from typing import Any

from server.core.storage.base import BlobStore
from server.core.storage.local import LocalBlobStore

_S3_OPTIONAL = ("endpoint_url", "region", "prefix", "connect_timeout", "read_timeout")
_S3_CREDENTIALS = {
    "access_key_id": "aws_access_key_id",
    "secret_access_key": "aws_secret_access_key",
}


def make_blob_store(config: dict[str, Any]) -> BlobStore:
    """A BlobStore from a plain configuration mapping.

    Examples::

        {"backend": "local", "root": "/var/lib/lateral/blobs"}
        {"backend": "s3", "bucket": "lateral-evidence",
         "endpoint_url": "https://s3.example.org", "region": "us-east-1"}

    S3 credentials come from the usual AWS sources (environment, instance role)
    unless ``access_key_id`` / ``secret_access_key`` are given; ``connect_timeout`` and
    ``read_timeout`` (seconds) bound every call to S3.

    Raises:
        ValueError: unknown backend or a required key missing.
    """
    backend = config.get("backend")
    if backend == "local":
        if not config.get("root"):
            raise ValueError("local blob store needs 'root'")
        return LocalBlobStore(config["root"])
    if backend == "s3":
        if not config.get("bucket"):
            raise ValueError("s3 blob store needs 'bucket'")
        kwargs = {name: config[name] for name in _S3_OPTIONAL if config.get(name)}
        kwargs |= {arg: config[name] for name, arg in _S3_CREDENTIALS.items() if config.get(name)}
        from server.core.storage.s3 import S3BlobStore  # boto3 only when S3 is configured

        return S3BlobStore(config["bucket"], **kwargs)
    raise ValueError(f"unknown blob store backend {backend!r} (expected 'local' or 's3')")
