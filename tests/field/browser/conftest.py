"""The field app's live city on each engine and a tablet's browser profile, for its browser tests."""

from __future__ import annotations

import pytest

from tests.support.databases import ENGINES, fresh_app
from tests.support.field_app import CHUNK, NETWORK_NOISE, City, seed_field_city
from tests.support.live_server import LiveServer


@pytest.fixture(params=ENGINES)
def city(request, tmp_path):
    """A live server on a fresh database: demo city, templates, four assignments."""
    with fresh_app(request.param, tmp_path, FIELD_TUS_CHUNK_BYTES=CHUNK,
                   BLOB_STORE={"backend": "local", "root": str(tmp_path / "blobs")},
                   TUS_STAGING_DIR=str(tmp_path / "tus")) as app:
        token, made = seed_field_city(app)
        with LiveServer(app) as server:
            yield City(app, server.url, token, made)


@pytest.fixture
def tablet(chromium, city):
    """A fresh browser profile at landscape tablet size; console errors collected."""
    context = chromium.new_context(viewport={"width": 1024, "height": 768}, service_workers="allow",
                                   device_scale_factor=1, has_touch=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: m.type == "error" and not NETWORK_NOISE.search(m.text) and errors.append(m.text))
    page.on("pageerror", lambda exc: errors.append(f"page error: {exc}"))
    yield context, page, errors
    context.close()
