"""One BlobStore suite over both backends; S3 runs against a real moto_server (``moto_endpoint``,
in ``tests/support/fixtures.py``)."""

from __future__ import annotations

import pytest

from server.core.storage import make_blob_store
from tests.support.storage import s3_config


@pytest.fixture(params=["local", "s3"])
def store_config(request, tmp_path) -> dict:
    """Configuration for a fresh, empty store of each backend."""
    if request.param == "local":
        return {"backend": "local", "root": str(tmp_path / "blobs")}
    return s3_config(request.getfixturevalue("moto_endpoint"))


@pytest.fixture
def blob_store(store_config):
    """A fresh, empty BlobStore of each backend."""
    return make_blob_store(store_config)
