"""Each demo login's first screen on the living demo city, as `make run` serves it.

Logs in as each role in Debian's Chromium, checks that the screen it comes to first
shows something true (assignments, notices, parcels, counts), and runs axe-core on it.
"""

from __future__ import annotations

import pytest

from server.services.demo import DEMO_PASSWORD
from tests.browser.axe import assert_accessible
from tests.browser.conftest import screenshot
from tests.conftest import ENGINES
from tests.live_city import serve_city

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module", params=ENGINES)
def living_city(request, tmp_path_factory):
    with serve_city(request.param, tmp_path_factory.mktemp(f"first-{request.param}"), living=True) as city:
        yield city


@pytest.fixture
def browser_context(chromium):
    contexts = []

    def make(width: int = 1280, height: int = 800, **kw):
        context = chromium.new_context(viewport={"width": width, "height": height}, **kw)
        contexts.append(context)
        return context.new_page()

    yield make
    for context in contexts:
        context.close()


def log_in(page, url: str, username: str) -> None:
    page.goto(f"{url}/login")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", DEMO_PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(f"{url}/")


def test_inspector_today_lists_the_days_work(living_city, browser_context):
    page = browser_context(768, 1024, service_workers="block")
    page.goto(f"{living_city.url}/field/")
    page.wait_for_selector("#username")
    page.fill("#username", "inspector")
    page.fill("#password", DEMO_PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_selector(".parcel-card")
    assert page.locator(".parcel-card").count() >= 8
    text = page.inner_text("body")
    assert "No parcels are assigned" not in text
    screenshot(page, f"first-screen-inspector-{living_city.kind}")
    assert_accessible(page, "field app Today")


def test_clerk_desk_lists_notices(living_city, browser_context):
    page = browser_context()
    log_in(page, living_city.url, "clerk")
    page.goto(f"{living_city.url}/desk/")
    for anchor in ("drafts", "approved", "mailed", "appeals", "overdue"):
        rows = page.locator(f"h2#{anchor} ~ * tbody tr, h2#{anchor} + * tr")
        assert rows.count() > 0, f"the desk's {anchor} list is empty"
    screenshot(page, f"first-screen-clerk-{living_city.kind}")
    assert_accessible(page, "notice desk")


def test_superintendent_map_and_dashboard_show_the_survey(living_city, browser_context):
    page = browser_context()
    log_in(page, living_city.url, "superintendent")
    page.goto(f"{living_city.url}/map")
    page.wait_for_function("() => Number(document.body.dataset.parcelsLoaded || 0) > 0", timeout=20000)
    page.wait_for_function("() => document.getElementById('map-status').textContent === ''", timeout=20000)
    assert page.locator("#map path.leaflet-interactive").count() > 0
    assert_accessible(page, "survey map")
    page.goto(f"{living_city.url}/dashboard")
    text = page.inner_text("main")
    for state in ("overdue", "escalated", "appealed"):
        assert state in text, f"the dashboard shows no {state} notice"
    screenshot(page, f"first-screen-superintendent-{living_city.kind}")
    assert_accessible(page, "dashboard")


def test_admin_home_offers_the_work(living_city, browser_context):
    page = browser_context()
    log_in(page, living_city.url, "admin")
    assert page.locator("nav.cards a.card").count() >= 4
    assert_accessible(page, "admin's home")
