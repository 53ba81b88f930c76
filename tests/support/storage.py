"""S3 for the tests: a new, empty bucket on a moto_server (the ``moto_endpoint`` fixture)."""

from __future__ import annotations

import uuid

import boto3

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
