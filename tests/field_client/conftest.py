"""A live Lateral server (fresh, migrated database per engine) and logged-in field profiles."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from offline_client.http import Api
from offline_client.store import Store
from offline_client.sync import Backoff, Sync
from tests.conftest import ENGINES, PASSWORD, make_migrated_app, need_shared
from tests.field_client.harness import (
    SMALL_PHOTOS,
    TAP_ANSWERS,
    app_overrides,
    create_inspector,
    create_parcel,
    unique_photo,
)
from tests.uploads.helpers import LiveServer

# Tests retry within milliseconds; the field default is seconds to minutes.
FAST = Backoff(base=0.01, cap=0.1)
LOCATION = {"type": "Point", "coordinates": [-91.5009, 44.2531]}


@dataclass
class Live:
    kind: str
    app: object
    url: str
    parcel_id: int
    blob_root: Path
    tmp: Path

    @property
    def port(self) -> int:
        return int(self.url.rsplit(":", 1)[1])

    def profile(self, folder: Path, url: str | None = None) -> Store:
        return logged_in_profile(folder, self.url, url)


def logged_in_profile(folder: Path, login_url: str, url: str | None = None) -> Store:
    """A profile in ``folder``, logged in and pulled at ``login_url``; it then talks to
    ``url`` (a proxy) if given."""
    store = Store(folder)
    api = Api(login_url)
    store.set(server_url=url or login_url, token=api.login("inspector1", PASSWORD, f"pytest {folder.name}"))
    Sync(store, api).pull()
    return store


def make_live(kind: str, tmp: Path):
    overrides = app_overrides(tmp)
    app, drop = make_migrated_app(kind, tmp, **overrides)
    create_inspector(app)
    parcel_id = create_parcel(app)
    return app, drop, parcel_id, Path(overrides["BLOB_STORE"]["root"])


def dispose(app, drop) -> None:
    from server.core.extensions import db

    with app.app_context():
        db.session.remove()
        db.engine.dispose()
    if drop:
        drop()


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


def record_inspection(store: Store, parcel_id: int, photos: list[Path]) -> str:
    """A finished tap inspection with ``photos`` attached; returns its UUID."""
    record_uuid = store.start_inspection("tap", parcel_id, LOCATION)
    for item, value in TAP_ANSWERS.items():
        store.answer(record_uuid, item, value)
    for photo in photos:
        store.attach_photo(record_uuid, "tap_photo", photo)
    store.finish(record_uuid)
    return record_uuid


def photos_for(real_photos: list[Path], folder: Path, label: str, count: int) -> list[Path]:
    """``count`` distinct photos (real JPEGs, each with its own comment segment)."""
    folder.mkdir(parents=True, exist_ok=True)
    return [
        unique_photo(real_photos[i % len(real_photos)], folder / f"{label}-{i}.jpg", f"{label}-{i}")
        for i in range(count)
    ]
