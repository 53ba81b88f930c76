"""The survey map's layer of open permits in Chromium: drawn in its state's colour, named
in the legend, switched off and on like the other layers."""

from __future__ import annotations

import pytest
import requests

from tests.support.browser import superintendent_page
from tests.support.permits import application

pytestmark = [pytest.mark.browser, pytest.mark.slow]
APPLIED = "#9e9ac8"  # server/permits/record.py, MAP_COLOURS


def _drawn(page, colour: str) -> int:
    return page.locator(f'#map path[stroke="{colour}"]').count()


def test_open_permits_are_drawn_by_state_with_their_legend(chromium, own_served_city):
    city = own_served_city
    with superintendent_page(chromium, city.url) as page:
        page.goto(f"{city.url}/map")
        page.wait_for_function("() => Number(document.body.dataset.parcelsLoaded || 0) > 0", timeout=20000)
        legend = page.locator("#permit-legend li")
        assert legend.count() == 9 and legend.first.inner_text() == "Applied"
        assert "Open permits" in page.locator(".leaflet-control-layers-overlays").inner_text()
        assert _drawn(page, APPLIED) == 0
        parcel_id = page.evaluate("() => window.lateralSurveyParcels.getLayers()[0].feature.id")
        r = requests.post(f"{city.url}/api/v1/permits", json=application(parcel_id), timeout=30,
                          headers={"Authorization": f"Bearer {city.token}"})
        assert r.status_code == 201, r.text
        page.evaluate("() => window.lateralSurveyMap.fire('moveend')")
        page.wait_for_function(f"() => document.querySelectorAll('#map path[stroke=\"{APPLIED}\"]').length > 0",
                               timeout=20000)
        assert page.evaluate("() => document.body.dataset.permitsLayer") == "on"
        page.locator(".leaflet-control-layers-overlays label", has_text="Open permits").locator("input").uncheck(
            force=True)
        page.wait_for_function("() => document.body.dataset.permitsLayer === 'off'")
        assert _drawn(page, APPLIED) == 0
        assert page.console_errors == []
