"""The survey map and the dashboard in Chromium: drawn, clickable, and true to the database."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from server.models import ClearWaterFinding, Parcel
from tests.browser.conftest import screenshot

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def _open_map(page, live_city):
    page.goto(f"{live_city.url}/map")
    page.wait_for_function("Number(document.body.dataset.parcelsLoaded || 0) > 0", timeout=20000)
    page.wait_for_function("document.getElementById('map-status').textContent === ''", timeout=20000)


def test_map_draws_the_demo_city(staff_page, live_city):
    page = staff_page
    _open_map(page, live_city)
    loaded = int(page.evaluate("document.body.dataset.parcelsLoaded"))
    drawn = page.locator("#map path.leaflet-interactive").count()
    assert 0 < loaded <= live_city.count(Parcel)
    assert drawn >= loaded  # parcels plus the network's lines and points
    assert page.locator(".leaflet-control-layers-overlays label").count() >= 8
    screenshot(page, f"map-{live_city.kind}")
    assert page.console_errors == []


def _inside_away_from_markers(parcel, findings):
    """A point of the parcel clear of the finding markers drawn on top of it."""
    import shapely
    from shapely.ops import polylabel

    free = parcel.difference(shapely.union_all([f.buffer(0.00004) for f in findings]))
    part = max(getattr(free, "geoms", [free]), key=lambda g: g.area)
    return polylabel(part, tolerance=1e-7)


def test_clicking_a_parcel_opens_its_panel(staff_page, live_city):
    page = staff_page
    _open_map(page, live_city)
    with live_city.app.app_context():
        from geoalchemy2.shape import to_shape

        from server.extensions import db

        target = db.session.scalar(
            select(Parcel).join(ClearWaterFinding, ClearWaterFinding.parcel_id == Parcel.id).order_by(Parcel.id))
        address, owner = target.site_address, target.owner_name
        found = db.session.scalars(select(ClearWaterFinding).filter_by(parcel_id=target.id)).all()
        spot = _inside_away_from_markers(to_shape(target.geom), [to_shape(f.geom) for f in found])
    # Find it by address, as a clerk on the phone would ...
    page.fill("#search-q", address)
    page.click("#search button[type=submit]")
    page.locator("#search-results button").first.click()
    page.wait_for_function(f"document.getElementById('panel').dataset.parcelId === '{target.id}'")
    page.wait_for_function("document.getElementById('map-status').textContent === ''")
    page.evaluate("document.getElementById('panel').dataset.parcelId = ''")
    # ... then click the polygon itself, once the map has settled around it.
    settled = page.wait_for_function(
        """([lat, lon]) => {
             if (document.getElementById('map-status').textContent !== '') return false;
             const map = window.lateralSurveyMap, box = map.getContainer().getBoundingClientRect();
             const p = map.latLngToContainerPoint([lat, lon]);
             const x = box.left + p.x, y = box.top + p.y, hit = document.elementFromPoint(x, y);
             return hit && hit.tagName === 'path' && hit.getAttribute('stroke-width') === '3' ? [x, y] : false;
           }""", arg=[spot.y, spot.x])
    x, y = settled.json_value()
    page.mouse.click(x, y)
    page.wait_for_function(f"document.getElementById('panel').dataset.parcelId === '{target.id}'")
    panel = page.locator("#panel").inner_text()
    assert address in panel and owner in panel
    assert f"Clear-water findings ({len(found)})" in panel
    page.wait_for_function("document.getElementById('map-status').textContent === ''")
    screenshot(page, f"map-panel-{live_city.kind}")
    assert page.console_errors == []


def test_dashboard_figures_match_the_database(staff_page, live_city):
    page = staff_page
    from server.services import survey

    with live_city.app.app_context():
        figures = survey.progress()
    page.goto(f"{live_city.url}/dashboard")
    assert page.inner_text("#parcels-total") == f"{live_city.count(Parcel):,}"
    surveyed = live_city.count(Parcel, Parcel.id.in_(select(ClearWaterFinding.parcel_id)))
    assert page.inner_text("#surveyed") == f"{surveyed:,}" == f"{figures['surveyed']:,}"
    for row in figures["findings_by_source"]:
        expected = live_city.count(ClearWaterFinding, ClearWaterFinding.source == row["source"])
        assert page.text_content(f"[data-figure='source:{row['source']}']") == f"{expected:,}"
    assert page.locator("#no-violations").count() == 1
    screenshot(page, f"dashboard-{live_city.kind}", full_page=True)
    assert page.console_errors == []
