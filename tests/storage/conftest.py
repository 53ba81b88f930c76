"""One BlobStore suite over both backends; S3 runs against a real moto_server."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

import boto3
import pytest

from server.storage import make_blob_store
from tests.conftest import STRICT

MOTO_CREDENTIALS = {"access_key_id": "testing", "secret_access_key": "testing"}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _unavailable(reason: str) -> None:
    if STRICT:
        pytest.fail(f"LATERAL_STRICT=1 and the S3 backend cannot be tested: {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def moto_endpoint():
    """URL of a moto_server subprocess on 127.0.0.1, stopped at the end of the session."""
    exe = Path(sys.executable).with_name("moto_server")
    if not exe.exists():
        _unavailable(f"{exe} is not installed")
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    proc = subprocess.Popen(
        [str(exe), "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 20
    while True:
        try:
            urllib.request.urlopen(url, timeout=1).close()
            break
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                _unavailable(f"moto_server did not answer on {url}")
            time.sleep(0.1)
    yield url
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()


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
