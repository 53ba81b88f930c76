"""A permit from the application to closed through the browser (Chromium), on both
databases: the counter application, each step's form on the permit's page, the card."""

from __future__ import annotations

from sqlalchemy import select

from tests.support.browser import superintendent_page
from tests.support.permits import VALID_UNTIL

STEPS = [
    ("review", {}),
    ("approve", {}),  # the superintendent, under the Commission's delegation
    ("pay", {"receipt_number": "R-2001"}),
    ("issue", {}),
    ("schedule", {"work_on": "2099-06-15"}),
    ("request_inspection", {"earliest": "2099-06-15T08:00", "contact": "Dana, 608-555-0110"}),
    ("pass", {}),
    ("connect", {}),
    ("close", {}),
]


def _a_parcel_number(city) -> str:
    from server.core.extensions import db
    from server.network.models import Parcel

    with city.app.app_context():
        return db.session.scalar(select(Parcel.parcel_number).order_by(Parcel.id).limit(1))


def test_a_permit_goes_from_application_to_closed_in_the_browser(chromium, own_served_city):
    city = own_served_city
    with superintendent_page(chromium, city.url) as page:
        page.goto(f"{city.url}/permits/new")
        form = page.locator("#application")
        for name, value in {"parcel_number": _a_parcel_number(city), "applicant_name": "Dana Kowalski",
                            "plumber_name": "Trempealeau Plumbing", "plumber_license": "222614-222",
                            "plumber_license_expires": VALID_UNTIL.isoformat(), "wastes": "domestic sewage",
                            "connection_size_in": "6"}.items():
            form.locator(f"input[name={name}]").fill(value)
        form.locator("button").click()
        page.wait_for_selector("[data-permit]")
        assert page.locator("[data-state]").first.get_attribute("data-state") == "applied"
        for event, fields in STEPS:
            step = page.locator(f"form[data-event={event}]")
            for name, value in fields.items():
                step.locator(f"input[name={name}]").fill(value)
            with page.expect_navigation():
                step.locator("button").click()
            assert f"{event.replace('_', ' ')} recorded" in page.locator(".flash.ok").inner_text()
        assert page.locator("[data-state]").first.get_attribute("data-state") == "closed"
        history = [li.get_attribute("data-event") for li in page.locator("[data-section=history] li").all()]
        assert history == ["apply", *(event for event, _ in STEPS)]
        card = page.request.get(page.url + "/card.pdf")
        assert card.status == 200 and card.body().startswith(b"%PDF")
        assert page.console_errors == []
