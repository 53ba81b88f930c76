"""A live Lateral server (fresh, migrated database per engine) and logged-in field profiles."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.databases import ENGINES
from tests.support.env import need_shared
from tests.support.field_client import SMALL_PHOTOS, Live, dispose, make_live
from tests.support.live_server import LiveServer


@pytest.fixture(scope="module", params=ENGINES)
def live(request, tmp_path_factory):
    """A werkzeug server in a thread on a fresh database of each engine (per module)."""
    tmp_path = tmp_path_factory.mktemp(f"live-{request.param}")
    app, drop, parcel_id, blob_root = make_live(request.param, tmp_path)
    try:
        with LiveServer(app) as server:
            yield Live(request.param, app, server.url, parcel_id, blob_root, tmp_path)
    finally:
        dispose(app, drop)


@pytest.fixture(scope="session")
def real_photos() -> list[Path]:
    folder = need_shared("realdata", "photos")
    return [folder / name for name in SMALL_PHOTOS]
