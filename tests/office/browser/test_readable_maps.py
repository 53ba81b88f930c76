"""Issue 34's walk: the office pages at 768 and 1280 px, streets named on the maps, a stray
parcel that does not move the view, tables that fit, a skip link, axe-core, screenshots.

Screenshots go to docs/img/ (``readable-<page>-<width>.png``), for the docs to show.
"""

from __future__ import annotations

import pytest

from tests.support.axe import assert_accessible
from tests.support.browser import superintendent_page
from tests.support.env import REPO_ROOT

pytestmark = [pytest.mark.browser, pytest.mark.slow]

WIDTHS = [(768, 1024), (1280, 800)]
PAGES = ["/", "/map", "/assign/", "/rules/", "/desk/", "/dashboard", "/review/"]
DOCS_IMG = REPO_ROOT / "docs" / "img"


@pytest.fixture(scope="module")
def stray_city(own_served_city):
    """The served demo city with one parcel keyed in 100 km away."""
    from tests.support.framing import add_stray_parcel

    with own_served_city.app.app_context():
        from server.core.extensions import db

        add_stray_parcel()
        db.session.commit()
        db.session.remove()
    return own_served_city


@pytest.fixture(params=WIDTHS, ids=lambda v: f"{v[0]}px")
def walker(request, chromium, stray_city):
    with superintendent_page(chromium, stray_city.url) as page:
        width, height = request.param
        page.set_viewport_size({"width": width, "height": height})
        yield page


def _shot(page, name: str) -> None:
    DOCS_IMG.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(DOCS_IMG / f"readable-{name}-{page.viewport_size['width']}.png"))


def _zoom_to_labels(page, map_var: str) -> None:
    """Zoom the map in on its centre to where the street names show."""
    page.evaluate(f"() => window.{map_var}.setZoom(17, {{animate: false}})")
    page.wait_for_function("() => [...document.querySelectorAll('.leaflet-tooltip.map-label')]"
                           ".some(e => e.offsetParent !== null && e.textContent.endsWith(' St'))", timeout=20000)


def test_the_map_opens_on_the_city_with_its_streets_named(walker, stray_city):
    page = walker
    page.goto(f"{stray_city.url}/map")
    page.wait_for_function("() => Number(document.body.dataset.parcelsLoaded || 0) > 0")
    # The stray parcel (about -90.25) does not pull the view off Arcadia (-91.50).
    centre = page.evaluate("() => window.lateralSurveyMap.getCenter()")
    assert abs(centre["lng"] + 91.501) < 0.01 and abs(centre["lat"] - 44.253) < 0.01, centre
    # The legend starts folded on the small screen, open on the large one.
    assert page.evaluate("() => document.getElementById('map-legend').open") == (page.viewport_size["width"] > 1000)
    panel = page.locator(".sidebar").bounding_box()
    assert panel["width"] >= 300
    _zoom_to_labels(page, "lateralSurveyMap")
    _shot(page, "map")
    assert_accessible(page, f"/map at {page.viewport_size['width']} px")


def test_the_assign_map_names_its_streets_on_the_city(walker, stray_city):
    page = walker
    page.goto(f"{stray_city.url}/assign/")
    page.wait_for_function("() => Number(document.body.dataset.parcelsLoaded || 0) > 0")
    page.wait_for_selector(".leaflet-tooltip.map-label", state="attached", timeout=20000)
    names = page.locator(".leaflet-tooltip.map-label").all_inner_texts()
    assert any(n.endswith(" St") for n in names), names[:5]
    _shot(page, "assign")


@pytest.mark.parametrize("path", PAGES)
def test_every_page_has_a_skip_link_and_no_table_clips(walker, stray_city, path):
    page = walker
    page.goto(f"{stray_city.url}{path}")
    page.keyboard.press("Tab")
    focused = page.evaluate("() => [document.activeElement.className, document.activeElement.getAttribute('href')]")
    assert focused == ["skip-link", "#main"], focused
    page.keyboard.press("Enter")
    assert page.evaluate("() => document.activeElement.id") == "main"
    clipped = page.evaluate("""() => [...document.querySelectorAll('table')].filter(t => t.getClientRects().length)
        .map(t => { const box = t.parentElement; const r = t.getBoundingClientRect();
          return {id: t.dataset.section || t.id || t.className, over: Math.max(t.scrollWidth - box.clientWidth,
                  r.right - document.documentElement.clientWidth)}; })
        .filter(t => t.over > 1)""")
    assert clipped == [], clipped
    assert page.evaluate("() => document.documentElement.scrollWidth <= document.documentElement.clientWidth + 1")
    if path not in ("/map", "/assign/"):
        _shot(page, path.strip("/") or "home")
        assert_accessible(page, f"{path} at {page.viewport_size['width']} px")


def test_a_street_name_in_the_search_frames_the_street(walker, stray_city):
    page = walker
    page.goto(f"{stray_city.url}/map")
    page.wait_for_function("() => Number(document.body.dataset.parcelsLoaded || 0) > 0")
    page.fill("#search-q", "W River St")
    page.click("#search button[type=submit]")
    street = page.locator("#search-results li.street-hit button").first
    assert street.inner_text() == "W River St"
    street.click()
    bounds = page.evaluate("() => window.lateralSurveyMap.getBounds().toBBoxString()")
    west, south, east, north = map(float, bounds.split(","))
    assert east < -91.4995 and west < -91.503 and north - south < 0.01  # the street's west half, close in


def test_map_with_a_parcel_opens_on_it_wherever_it_is(walker, stray_city):
    from sqlalchemy import select

    from server.core.extensions import db
    from server.network.models import Parcel
    from tests.support.framing import STRAY_LONLAT, STRAY_NUMBER

    with stray_city.app.app_context():
        stray_id = db.session.scalar(select(Parcel.id).where(Parcel.parcel_number == STRAY_NUMBER))
        db.session.remove()
    page = walker
    page.goto(f"{stray_city.url}/map?parcel={stray_id}")
    page.wait_for_function(f"() => document.getElementById('panel').dataset.parcelId === '{stray_id}'")
    centre = page.evaluate("() => window.lateralSurveyMap.getCenter()")
    assert abs(centre["lng"] - STRAY_LONLAT[0]) < 0.001 and abs(centre["lat"] - STRAY_LONLAT[1]) < 0.001, centre
