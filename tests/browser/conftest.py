"""Debian's Chromium through Playwright, for the field app and the survey map.

Never ``playwright install``: the browser is the system's. Without it the tests skip,
and in strict mode (CI) they fail. Screenshots go to ``artifacts/screenshots/``.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import ENGINES, REPO_ROOT, STRICT
from tests.live_city import serve_city

CHROMIUM = "/usr/bin/chromium"
SCREENSHOTS = REPO_ROOT / "artifacts" / "screenshots"
LAUNCH_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
               "--disable-component-update", "--disable-sync"]


def _unavailable(reason: str):
    if STRICT:
        pytest.fail(f"strict mode: {reason}", pytrace=False)
    pytest.skip(reason)


def screenshot(page, name: str, full_page: bool = False) -> Path:
    """Save what the page shows as ``artifacts/screenshots/<name>.png``."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=full_page)
    return path


@pytest.fixture(scope="session")
def chromium():
    """One headless Debian Chromium for the session."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("the playwright package is not installed")
    path = CHROMIUM if Path(CHROMIUM).exists() else shutil.which("chromium")
    if not path:
        _unavailable("Debian's chromium is not installed (apt-get install chromium)")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=path, args=LAUNCH_ARGS)
        yield browser
        browser.close()


@pytest.fixture(scope="package", params=ENGINES)
def live_city(request, tmp_path_factory):
    """The 300-parcel demo city served on each engine (shared by the map tests)."""
    with serve_city(request.param, tmp_path_factory.mktemp(f"browser-{request.param}")) as city:
        yield city


@pytest.fixture
def staff_page(chromium, live_city):
    """A logged-in superintendent's page at 1280×800 that records console errors."""
    from server.demo.seed import DEMO_PASSWORD

    context = chromium.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.console_errors = []
    page.on("console", lambda msg: msg.type == "error" and page.console_errors.append(msg.text))
    page.on("pageerror", lambda exc: page.console_errors.append(str(exc)))
    page.goto(f"{live_city.url}/login")
    page.fill("input[name=username]", "superintendent")
    page.fill("input[name=password]", DEMO_PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(f"{live_city.url}/")
    yield page
    context.close()
