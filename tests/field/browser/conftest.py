"""The field app's live city on each engine and a tablet's browser profile on it, for the
field app's browser tests (a module that needs another city has its own, with its tablet)."""

from __future__ import annotations

import pytest

from tests.support.databases import ENGINES, fresh_app
from tests.support.field_app import CHUNK, City, new_tablet, seed_field_city
from tests.support.live_server import LiveServer


@pytest.fixture(params=ENGINES)
def field_city(request, tmp_path):
    """A live server on a fresh database: demo city, templates, four assignments."""
    with fresh_app(request.param, tmp_path, FIELD_TUS_CHUNK_BYTES=CHUNK,
                   BLOB_STORE={"backend": "local", "root": str(tmp_path / "blobs")},
                   TUS_STAGING_DIR=str(tmp_path / "tus")) as app:
        token, made = seed_field_city(app)
        with LiveServer(app) as server:
            yield City(app, server.url, token, made)


@pytest.fixture
def tablet(chromium, field_city):
    """A fresh browser profile at landscape tablet size; console errors collected."""
    context, page, errors = new_tablet(chromium)
    yield context, page, errors
    context.close()
