"""The plumber's walk in Chromium on both databases: a plumber registers, the clerk verifies
the license in the office, the plumber applies for a permit with the owner's consent, the
city approves, records the payment, issues and sets the work day, the plumber asks for the
inspection before backfill and sees it scheduled. axe finds nothing serious on the new
pages at 375 px (a phone) and 1280 px. A screenshot for docs/portal.md goes to docs/img/."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select

from server.core import city as city_context
from server.core.accounts.models import User
from server.core.extensions import db
from server.demo.seed import DEMO_PASSWORD
from server.field.checklist_templates import load_templates
from server.network.models import Parcel
from tests.support.axe import assert_accessible
from tests.support.env import REPO_ROOT
from tests.support.permits import THAWED_DAY
from tests.support.plumbers import CONSENT_PDF

DOC_IMG = REPO_ROOT / "docs" / "img"
PLUMBER_PASSWORD = "pipe wrench and a level"


def _page(chromium, width: int):
    context = chromium.new_context(viewport={"width": width, "height": 812 if width < 600 else 900})
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda exc: page.errors.append(str(exc)))
    return context, page


def _login(page, url: str, username: str, password: str, lands: str) -> None:
    page.goto(f"{url}/login?next={lands}")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", password)
    page.click("button[type=submit]")
    page.wait_for_url(f"{url}{lands}")


def _register(page, url: str, username: str, expires: str) -> None:
    page.goto(f"{url}/portal/plumbers/register")
    number = f"MP-{sum(map(ord, username)) * 997 % 1000000:06d}"
    for field, value in (("name", f"Dana {username.title()}"), ("company", "Kulig Plumbing"),
                         ("license_number", number), ("expires_on", expires),
                         ("email", f"{username}@example.org"), ("phone", "608-555-0190"), ("username", username),
                         ("password", PLUMBER_PASSWORD)):
        page.fill(f"#{field}", value)
    page.click("button[type=submit]")
    assert "The clerk will check your license" in page.inner_text("main")


def _verify(chromium, url: str, username: str) -> None:
    context, desk = _page(chromium, 1280)
    _login(desk, url, "clerk", DEMO_PASSWORD, "/plumbers/")
    row = desk.locator("[data-section=plumbers] tr", has_text=f"Dana {username.title()}")
    row.locator("button").click()
    desk.wait_for_url(f"{url}/plumbers/")
    assert desk.errors == []
    context.close()


@pytest.fixture(scope="module")
def facts(own_served_city) -> dict:
    """A parcel of the demo city to apply for, the demo inspector, and a year ahead (and the
    checklists, which an inspection's assignment names)."""
    with own_served_city.app.app_context():
        load_templates()
        db.session.commit()
        parcel = db.session.scalar(select(Parcel.parcel_number).order_by(Parcel.id).limit(1))
        inspector = db.session.scalar(select(User.id).filter_by(username="inspector"))
        expires = (city_context.current().today() + timedelta(days=365)).isoformat()
    return {"parcel": parcel, "inspector": inspector, "expires": expires}


def _today(own_served_city) -> str:
    with own_served_city.app.app_context():
        return city_context.current().today().isoformat()


def _city(own_served_city, permit_id: int, event: str, body: dict) -> None:
    """A step the city takes over the API (the superintendent may take each of these)."""
    client = own_served_city.app.test_client()
    r = client.post(f"/api/v1/permits/{permit_id}/{event}", json=body,
                    headers={"Authorization": f"Bearer {own_served_city.token}"})
    assert r.status_code == 200, (event, r.get_json())


def test_from_registration_to_an_inspection_scheduled(chromium, own_served_city, facts, tmp_path):
    url = own_served_city.url
    context, page = _page(chromium, 375)
    _register(page, url, "dkulig", facts["expires"])
    _verify(chromium, url, "dkulig")

    _login(page, url, "dkulig", PLUMBER_PASSWORD, "/portal/plumbers/")
    assert "You may apply for new permits" in page.inner_text("main")
    page.click("text=Apply for a permit")
    page.wait_for_url(f"{url}/portal/plumbers/apply")
    assert "$600.00" in page.inner_text("[data-section=fees]")
    page.fill("#parcel_number", facts["parcel"])
    page.select_option("#kind", "new_connection")
    page.select_option("#connection_size_in", "6.0")
    page.fill("#wastes", "Domestic sewage from a single-family home")
    page.fill("#owner_name", "Olive Owner")
    page.fill("#consent_signed_on", _today(own_served_city))
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
    context, page = _page(chromium, width)
    _register(page, url, username, facts["expires"])
    _verify(chromium, url, username)
    _login(page, url, username, PLUMBER_PASSWORD, "/portal/plumbers/")
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
