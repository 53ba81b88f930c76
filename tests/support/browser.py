"""Debian's Chromium for the browser tests: where it is, how it is launched, screenshots.

Never ``playwright install``: the browser is the system's. Without it the tests skip,
and in strict mode (CI) they fail (the ``chromium`` fixture, ``fixtures.py``).
Screenshots go to ``artifacts/screenshots/``.
"""

from __future__ import annotations

from pathlib import Path

from tests.support.env import REPO_ROOT

CHROMIUM = "/usr/bin/chromium"
SCREENSHOTS = REPO_ROOT / "artifacts" / "screenshots"
LAUNCH_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
               "--disable-component-update", "--disable-sync"]


def screenshot(page, name: str, full_page: bool = False) -> Path:
    """Save what the page shows as ``artifacts/screenshots/<name>.png``."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=full_page)
    return path
