"""Blobs in an S3-compatible bucket (AWS, MinIO, Ceph, moto in tests)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from os import PathLike
from typing import Any, BinaryIO

import boto3
from boto3.exceptions import S3UploadFailedError
from boto3.s3.transfer import TransferConfig
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError, ConnectTimeoutError, ReadTimeoutError

from server.core.storage.base import (
    BlobNotFound,
    BlobStore,
    DigestMismatch,
    StoreUnavailable,
    blob_key,
    check_key,
    check_sha256,
    sha256_of,
)

# Multipart above 16 MiB, in 16 MiB parts: a phone photo is usually one PUT.
_TRANSFER = TransferConfig(
    multipart_threshold=16 * 1024 * 1024, multipart_chunksize=16 * 1024 * 1024
)
_NOT_FOUND = {"404", "NoSuchKey", "NotFound"}


# botocore's "standard" retry mode: throttling (SlowDown, 503) and 5xx answers and
# dropped connections are retried with exponential back-off and jitter, up to this
# many attempts in all, before the error reaches Lateral.
RETRIES = Config(retries={"total_max_attempts": 5, "mode": "standard"})
#: Unless the settings say otherwise (LATERAL_CONNECT_TIMEOUT, LATERAL_READ_TIMEOUT).
CONNECT_TIMEOUT, READ_TIMEOUT = 5.0, 30.0
_TIMED_OUT = (ConnectTimeoutError, ReadTimeoutError)


def _no_retry_after_a_timeout(caught_exception=None, **_: Any) -> None:
    """A store that let a whole timeout pass is hanging, not busy: asking again would hold
    the worker for another timeout each time, so the first one ends the call."""
    if isinstance(caught_exception, _TIMED_OUT):
        raise caught_exception


def _missing(exc: ClientError) -> bool:
    return exc.response.get("Error", {}).get("Code") in _NOT_FOUND


@contextlib.contextmanager
def _answering():
    """Turn S3 failures that outlasted the retries into :class:`StoreUnavailable`."""
    try:
        yield
    except ClientError as exc:
        if _missing(exc):
            raise
        raise StoreUnavailable(f"S3 refused the request: {exc}") from exc
    except (BotoCoreError, S3UploadFailedError) as exc:
        raise StoreUnavailable(f"S3 did not take the object: {exc}") from exc


class S3BlobStore(BlobStore):
    """Blobs as objects in one bucket, optionally under a key prefix.

    S3 writes are atomic per object, so no temporary object is needed.
    """

    def __init__(
        self,
        bucket: str,
        endpoint_url: str | None = None,
        region: str | None = None,
        prefix: str = "",
        client: Any | None = None,
        connect_timeout: float = CONNECT_TIMEOUT,
        read_timeout: float = READ_TIMEOUT,
        **client_kwargs: Any,
    ) -> None:
        self.bucket = bucket
        self.prefix = prefix.strip("/") + "/" if prefix.strip("/") else ""
        client_kwargs.setdefault(
            "config", RETRIES.merge(Config(connect_timeout=connect_timeout, read_timeout=read_timeout))
        )
        self.client = client or boto3.client(
            "s3", endpoint_url=endpoint_url, region_name=region, **client_kwargs
        )
        self.client.meta.events.register_first("needs-retry.s3", _no_retry_after_a_timeout)

    def _key(self, key: str) -> str:
        return self.prefix + check_key(key)

    def put_file(
        self,
        path: str | PathLike,
        sha256: str | None = None,
        *,
        verified: bool = False,
        link: bool = False,
    ) -> str:
        key = blob_key(sha256 or sha256_of(path))
        if self.exists_key(key):
            return key
        if sha256 and not verified:
            # The digest was handed to us: check it before the bytes become evidence.
            actual = sha256_of(path)
            if actual != check_sha256(sha256):
                raise DigestMismatch(f"content hashes to {actual}, not {sha256}")
        with _answering():
            self.client.upload_file(
                str(path),
                self.bucket,
                self._key(key),
                ExtraArgs={"ContentType": "application/octet-stream"},
                Config=_TRANSFER,
            )
        return key

    def put_bytes(self, key: str, data: bytes) -> str:
        content_type = (
            "image/jpeg" if key.endswith((".jpg", ".jpeg")) else "application/octet-stream"
        )
        with _answering():
            self.client.put_object(
                Bucket=self.bucket, Key=self._key(key), Body=data, ContentType=content_type
            )
        return key

    def exists_key(self, key: str) -> bool:
        try:
            with _answering():
                self.client.head_object(Bucket=self.bucket, Key=self._key(key))
        except ClientError as exc:
            if _missing(exc):
                return False
            raise
        return True

    def open_key(self, key: str) -> BinaryIO:
        try:
            with _answering():
                return self.client.get_object(Bucket=self.bucket, Key=self._key(key))["Body"]
        except ClientError as exc:
            if _missing(exc):
                raise BlobNotFound(key) from None
            raise

    def size_key(self, key: str) -> int:
        try:
            with _answering():
                head = self.client.head_object(Bucket=self.bucket, Key=self._key(key))
        except ClientError as exc:
            if _missing(exc):
                raise BlobNotFound(key) from None
            raise
        return head["ContentLength"]

    def delete(self, sha256: str) -> None:
        digest = check_sha256(sha256)
        keys = [self._key(blob_key(digest))]
        paginator = self.client.get_paginator("list_objects_v2")
        for page in paginator.paginate(
            Bucket=self.bucket, Prefix=f"{self.prefix}derived/{digest}/"
        ):
            keys += [item["Key"] for item in page.get("Contents", [])]
        for start in range(0, len(keys), 1000):
            self.client.delete_objects(
                Bucket=self.bucket,
                Delete={"Objects": [{"Key": k} for k in keys[start : start + 1000]], "Quiet": True},
            )

    def iter_keys(self, prefix: str = "") -> Iterator[tuple[str, int]]:
        paginator = self.client.get_paginator("list_objects_v2")
        for page in paginator.paginate(Bucket=self.bucket, Prefix=self.prefix + prefix):
            for item in page.get("Contents", []):
                yield item["Key"][len(self.prefix):], item["Size"]

    def url(self, key: str, expires_in: int = 3600) -> str | None:
        return self.client.generate_presigned_url(
            "get_object",
            Params={"Bucket": self.bucket, "Key": self._key(key)},
            ExpiresIn=expires_in,
        )
