"""Each demo login's first screen on the living demo city, as `make run` serves it.

Logs in as each role in Debian's Chromium, checks that the screen it comes to first
shows something true (assignments, notices, parcels, counts), and runs axe-core on it.
"""

from __future__ import annotations

import pytest

from server.demo.seed import DEMO_PASSWORD
from tests.support.axe import assert_accessible
from tests.support.browser import screenshot
from tests.support.databases import ENGINES
from tests.support.live_city import serve_city

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


# Every other page a person reads, as the role that reads it (issue 16: axe-core on every
# page, 0 critical and 0 serious). The new superintendent's and admin's pages, the map,
# the dashboard and the field app have their own walks; these are the rest.
OTHER_PAGES = {
    "login page": (None, "/login"),
    "inspector's home": ("inspector", "/"),
    "clerk's home": ("clerk", "/"),
    "superintendent's home": ("superintendent", "/"),
    "change my password": ("clerk", "/account/password"),
    "refused page": ("inspector", "/desk/"),
    "OGC landing page": ("superintendent", "/ogc/?f=html"),
    "OGC collections": ("superintendent", "/ogc/collections?f=html"),
    "OGC conformance": ("superintendent", "/ogc/conformance?f=html"),
    "OGC parcels collection": ("superintendent", "/ogc/collections/parcels?f=html"),
    "OGC parcels items": ("superintendent", "/ogc/collections/parcels/items?f=html&limit=20"),
    "OGC one parcel": ("superintendent", "/ogc/collections/parcels/items/1?f=html"),
    "API documentation": ("superintendent", "/api/v1/docs"),
    "OGC API documentation": ("superintendent", "/ogc/api?f=html"),
}
# Swagger UI (the vendored swagger-ui-dist package) draws the API documentation; its own
# widget nests buttons and labels them apart from their text, which axe reports as
# serious. That markup is the package's, not ours: the page around it is checked.
THIRD_PARTY = {"API documentation": ["#swagger"], "OGC API documentation": ["#swagger"]}


@pytest.mark.parametrize("name", list(OTHER_PAGES))
def test_every_other_page_passes_axe(living_city, browser_context, name):
    role, path = OTHER_PAGES[name]
    page = browser_context()
    if role:
        log_in(page, living_city.url, role)
    response = page.goto(f"{living_city.url}{path}")
    assert response is not None and response.status in (200, 403), (name, response and response.status)
    page.wait_for_load_state("networkidle")
    assert page.inner_text("body").strip(), f"{name} is blank"
    assert_accessible(page, name, exclude=THIRD_PARTY.get(name))


def test_mailing_book_page_passes_axe(living_city, browser_context):
    from sqlalchemy import select

    from server.core.extensions import db
    from server.notices.models import MailingBatch

    with living_city.app.app_context():
        batch_id = db.session.scalar(select(MailingBatch.id).order_by(MailingBatch.id))
    assert batch_id is not None, "the living demo city has mailed a batch"
    page = browser_context()
    log_in(page, living_city.url, "clerk")
    response = page.goto(f"{living_city.url}/desk/mailings/{batch_id}")
    assert response is not None and response.status == 200
    assert_accessible(page, "mailing batch page")
