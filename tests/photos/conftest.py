"""The real photos and their inventory, one parameter per file."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from tests.conftest import SHARED_DIR, need_shared

INVENTORY = SHARED_DIR / "realdata" / "photos" / "inventory.csv"


def _inventory_rows() -> list[dict]:
    if not INVENTORY.exists():
        return []
    with INVENTORY.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


ROWS = _inventory_rows()


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


def photo(name: str) -> Path:
    """One named real photo (skips where ../shared is absent)."""
    return need_shared("realdata", "photos", name)
