"""The real photos and their inventory, one parameter per file."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.env import need_shared
from tests.support.photos import INVENTORY, ROWS


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Parametrise any test taking ``photo_row`` over every inventory row."""
    if "photo_row" in metafunc.fixturenames:
        if ROWS:
            metafunc.parametrize("photo_row", ROWS, ids=[row["file"] for row in ROWS])
        else:
            metafunc.parametrize("photo_row", [None], ids=["inventory-absent"])


@pytest.fixture
def photo_path(photo_row: dict | None) -> Path:
    """Path of the inventory row's photo (skips where ../shared is absent)."""
    folder = need_shared("realdata", "photos")
    if photo_row is None:
        pytest.skip(f"{INVENTORY} is absent")
    return folder / photo_row["file"]
