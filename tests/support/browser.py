"""Debian's Chromium for the browser tests: where it is, how it is launched, screenshots.

Never ``playwright install``: the browser is the system's. Without it the tests skip,
and in strict mode (CI) they fail (the ``chromium`` fixture, ``fixtures.py``).
Screenshots go to ``artifacts/screenshots/``.
"""

from __future__ import annotations

from contextlib import contextmanager
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


def open_page(chromium, width: int):
    """A new context and page ``width`` pixels wide (a phone's height below 600) that keeps
    the page's script errors in ``page.errors``."""
    context = chromium.new_context(viewport={"width": width, "height": 812 if width < 600 else 900})
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda exc: page.errors.append(str(exc)))
    return context, page


@contextmanager
def superintendent_page(chromium, url: str):
    """A superintendent logged in to the server at ``url``, on a 1280×800 page that records
    console errors (``page.console_errors``)."""
    from server.demo.seed import DEMO_PASSWORD

    context = chromium.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.console_errors = []
    page.on("console", lambda msg: msg.type == "error" and page.console_errors.append(msg.text))
    page.on("pageerror", lambda exc: page.console_errors.append(str(exc)))
    page.goto(f"{url}/login")
    page.fill("input[name=username]", "superintendent")
    page.fill("input[name=password]", DEMO_PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(f"{url}/")
    yield page
    context.close()
