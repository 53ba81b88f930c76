"""One BlobStore suite over both backends; S3 runs against a real moto_server (``moto_endpoint``,
in ``tests/plugin.py``)."""

from __future__ import annotations

import uuid

import boto3
import pytest

from server.core.storage import make_blob_store

MOTO_CREDENTIALS = {"access_key_id": "testing", "secret_access_key": "testing"}


def s3_config(endpoint: str) -> dict:
    """Configuration for a new, empty bucket on the moto endpoint."""
    bucket = f"lateral-{uuid.uuid4().hex[:12]}"
    config = {
        "backend": "s3",
        "bucket": bucket,
        "endpoint_url": endpoint,
        "region": "us-east-1",
        **MOTO_CREDENTIALS,
    }
    boto3.client(
        "s3",
        endpoint_url=endpoint,
        region_name="us-east-1",
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    ).create_bucket(Bucket=bucket)
    return config


@pytest.fixture(params=["local", "s3"])
def store_config(request, tmp_path) -> dict:
    """Configuration for a fresh, empty store of each backend."""
    if request.param == "local":
        return {"backend": "local", "root": str(tmp_path / "blobs")}
    return s3_config(request.getfixturevalue("moto_endpoint"))


@pytest.fixture
def store(store_config):
    """A fresh, empty BlobStore of each backend."""
    return make_blob_store(store_config)
