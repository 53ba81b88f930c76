"""The plumber's walk in Chromium on both databases: a plumber registers, the clerk verifies
the license in the office, the plumber applies for a permit with the owner's consent, the
city approves, records the payment, issues and sets the work day, the plumber asks for the
inspection before backfill and sees it scheduled. axe finds nothing serious on the new
pages at 375 px (a phone) and 1280 px. A screenshot for docs/portal.md goes to docs/img/."""

from __future__ import annotations

import pytest

from tests.support.axe import assert_accessible
from tests.support.env import REPO_ROOT
from tests.support.permits import THAWED_DAY
from tests.support.plumber_browser import PLUMBER_PASSWORD, log_in, open_page, register, served_today, verify
from tests.support.plumbers import CONSENT_PDF

DOC_IMG = REPO_ROOT / "docs" / "img"


def _city(own_served_city, permit_id: int, event: str, body: dict) -> None:
    """A step the city takes over the API (the superintendent may take each of these)."""
    client = own_served_city.app.test_client()
    r = client.post(f"/api/v1/permits/{permit_id}/{event}", json=body,
                    headers={"Authorization": f"Bearer {own_served_city.token}"})
    assert r.status_code == 200, (event, r.get_json())


def test_from_registration_to_an_inspection_scheduled(chromium, own_served_city, facts, tmp_path):
    url = own_served_city.url
    context, page = open_page(chromium, 375)
    register(page, url, "dkulig", facts["expires"])
    verify(chromium, url, "dkulig")

    log_in(page, url, "dkulig", PLUMBER_PASSWORD, "/portal/plumbers/")
    assert "You may apply for new permits" in page.inner_text("main")
    page.click("text=Apply for a permit")
    page.wait_for_url(f"{url}/portal/plumbers/apply")
    assert "$600.00" in page.inner_text("[data-section=fees]")
    page.fill("#parcel_number", facts["parcel"])
    page.select_option("#kind", "new_connection")
    page.select_option("#connection_size_in", "6.0")
    page.fill("#wastes", "Domestic sewage from a single-family home")
    page.fill("#owner_name", "Olive Owner")
    page.fill("#consent_signed_on", served_today(own_served_city))
    consent = tmp_path / "consent.pdf"
    consent.write_bytes(CONSENT_PDF)
    page.set_input_files("#consent", str(consent))
    if own_served_city.kind == "spatialite":
        page.screenshot(path=str(DOC_IMG / "portal-plumber-apply.png"), full_page=True)
    page.click("button[type=submit]")
    page.wait_for_url(f"{url}/portal/plumbers/permits/*")
    assert "We received your application" in page.inner_text("main")
    permit_id = int(page.url.split("/permits/")[1].split("?")[0])

    for event, body in (("review", {}), ("approve", {}), ("pay", {"receipt_number": "R-2001"}), ("issue", {}),
                        ("schedule", {"work_on": THAWED_DAY.isoformat()})):
        _city(own_served_city, permit_id, event, body)
    page.goto(f"{url}/portal/plumbers/permits/{permit_id}")
    assert "paid on" in page.inner_text("[data-section=fees]")
    assert page.locator("text=The permit card to post at the site (PDF)").count() == 1
    page.fill("#earliest", f"{THAWED_DAY.isoformat()}T08:00")
    page.fill("#contact", "Dana, 608-555-0190")
    page.click("button[type=submit]")
    page.wait_for_url(f"{url}/portal/plumbers/permits/{permit_id}?sent=inspection")
    assert "We received your request for the inspection" in page.inner_text("main")

    _city(own_served_city, permit_id, "assign", {"inspector_id": facts["inspector"]})
    page.reload()
    assert f"an inspector will come on {THAWED_DAY.isoformat()}" in page.inner_text("[data-section=inspection]")
    if own_served_city.kind == "spatialite":
        page.screenshot(path=str(DOC_IMG / "portal-plumber-permit.png"), full_page=True)
    assert page.errors == []
    context.close()


@pytest.mark.parametrize("width", [375, 1280])
def test_the_plumbers_pages_have_no_serious_axe_finding(chromium, own_served_city, facts, width):
    url, username = own_served_city.url, f"axe{width}"
    context, page = open_page(chromium, width)
    register(page, url, username, facts["expires"])
    verify(chromium, url, username)
    log_in(page, url, username, PLUMBER_PASSWORD, "/portal/plumbers/")
    assert_accessible(page, f"/portal/plumbers/ at {width}px")
    page.goto(f"{url}/portal/plumbers/apply")
    assert_accessible(page, f"/portal/plumbers/apply at {width}px")
    page.fill("#parcel_number", facts["parcel"])
    page.fill("#wastes", "Domestic sewage")
    page.check("#plumber_is_owner")
    page.click("button[type=submit]")
    page.wait_for_url(f"{url}/portal/plumbers/permits/*")
    assert_accessible(page, f"a plumber's permit at {width}px")
    page.goto(f"{url}/portal/plumbers/apply")
    page.fill("#parcel_number", "000-00000-0000")
    page.fill("#wastes", "Domestic sewage")
    page.click("button[type=submit]")
    assert "no parcel has this number" in page.inner_text("main")
    assert_accessible(page, f"a refused application at {width}px")
    assert page.errors == []
    context.close()
