"""Issue 34: the field app reaches any parcel, names the streets, and never says "none" for unknown.

The superintendent's tablet holds the whole city: with nothing assigned, a search offline
opens an unassigned parcel, with its lateral and tap and the Correct button.
"""

from __future__ import annotations

from sqlalchemy import select

from server.core.extensions import db
from server.network.models import Lateral, Parcel
from tests.support.axe import assert_accessible
from tests.support.field_app import PASSWORD, City, expect_pill, screenshots


def _log_in(page, city: City, username: str) -> None:
    page.goto(f"{city.url}/field/")
    page.wait_for_selector("#username")
    page.fill("#username", username)
    page.fill("#password", PASSWORD)
    page.click("button[type=submit]")
    expect_pill(page, "All sent", timeout=60000)
    page.wait_for_function("() => navigator.serviceWorker.controller !== null", timeout=60000)


def _unassigned_parcel_with_a_lateral(city: City) -> tuple[int, str]:
    assigned = {a["parcel_id"] for a in city.assignments}
    with city.app.app_context():
        rows = db.session.execute(
            select(Parcel.id, Parcel.site_address).join(Lateral, Lateral.parcel_id == Parcel.id)
            .where(Parcel.site_address.is_not(None)).order_by(Parcel.id.desc()).limit(20)).all()
        db.session.remove()
    return next((pid, address) for pid, address in rows if pid not in assigned)


def test_the_superintendent_finds_an_unassigned_parcel_offline_and_corrects_it(field_city, tablet):
    context, page, errors = tablet
    parcel_id, address = _unassigned_parcel_with_a_lateral(field_city)
    _log_in(page, field_city, "superintendent")
    # Nothing assigned, yet the map holds the city: its streets are named on it.
    page.wait_for_selector(".leaflet-tooltip.map-label", state="attached")
    names = page.locator(".leaflet-tooltip.map-label").all_inner_texts()
    assert any(name.endswith(" St") for name in names), names[:5]

    context.set_offline(True)
    page.fill("#field-search", address)
    page.click(".field-search button[type=submit]")
    hit = page.locator(f".search-hit[data-parcel='{parcel_id}']")
    hit.wait_for()
    assert "not on this tablet" not in hit.inner_text()  # found in what the tablet holds
    screenshots(page, "field-search")
    hit.click()
    page.wait_for_selector("li[data-feature^='laterals:']")
    assert page.locator("h1").inner_text() == address
    lateral = page.locator("li[data-feature^='laterals:']").first
    assert lateral.locator("button", has_text="Correct").count() == 1
    # What the tablet does not hold is said so, never "none".
    assert "No lateral recorded" not in page.inner_text("#network")
    assert "Not on this tablet" in page.inner_text("#not-here")
    assert "None open." not in page.inner_text("#violations")
    lateral.locator("button", has_text="Correct").click()
    page.wait_for_selector("form.correction")
    screenshots(page, "field-parcel-correct")
    for width, height in ((768, 1024), (1280, 800)):
        page.set_viewport_size({"width": width, "height": height})
        assert_accessible(page, f"field parcel with Correct at {width} px")
        # The skip link is the first Tab stop and leads to the screen, leaving the route alone.
        first = "() => document.querySelector('a[href], button, input, select, textarea').className"
        assert page.evaluate(first) == "skip-link"
        page.focus(".skip-link")
        page.keyboard.press("Enter")
        assert page.evaluate("() => [document.activeElement.id, location.hash]") == ["view", f"#/parcel/{parcel_id}"]
    assert errors == []


def test_the_inspector_finds_a_parcel_the_tablet_does_not_hold_online(field_city, tablet):
    context, page, errors = tablet
    parcel_id, address = _unassigned_parcel_with_a_lateral(field_city)
    _log_in(page, field_city, "inspector")
    page.fill("#field-search", address)
    page.click(".field-search button[type=submit]")
    hit = page.locator(f".search-hit[data-parcel='{parcel_id}']")
    hit.wait_for()
    assert "not on this tablet" in hit.inner_text()
    hit.click()
    page.wait_for_selector("#not-here")
    assert "No lateral recorded" not in page.inner_text("#network")
    assert "not on this tablet" in page.inner_text("#network")
    page.click("#fetch-parcel")  # with signal: the server's copy
    page.wait_for_function("() => !document.getElementById('not-here')")
    assert "Not on this tablet." not in page.inner_text("#violations")
    assert errors == []
