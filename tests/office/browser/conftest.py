"""The office pages in Debian's Chromium: the demo city served for the package's tests,
and a superintendent logged in to it.

Without the browser the tests skip, and in strict mode (CI) they fail (the ``chromium``
fixture, ``tests/support/fixtures.py``).
"""

from __future__ import annotations

import pytest

from tests.support.databases import ENGINES
from tests.support.live_city import serve_city


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
