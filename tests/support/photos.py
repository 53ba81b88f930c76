"""The real photos of ``../shared/realdata/photos`` and their inventory."""

from __future__ import annotations

import csv
from pathlib import Path

from tests.support.env import SHARED_DIR, need_shared

INVENTORY = SHARED_DIR / "realdata" / "photos" / "inventory.csv"


def _inventory_rows() -> list[dict]:
    if not INVENTORY.exists():
        return []
    with INVENTORY.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


ROWS = _inventory_rows()


def photo(name: str) -> Path:
    """One named real photo (skips where ../shared is absent)."""
    return need_shared("realdata", "photos", name)
