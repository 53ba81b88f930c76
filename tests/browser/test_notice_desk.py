"""The notice desk in Chromium: the clerk ticks approved notices, prints the batch, records a receipt."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from tests.browser.conftest import screenshot
from tests.conftest import PASSWORD, fresh_app
from tests.uploads.helpers import LiveServer

pytestmark = [pytest.mark.browser, pytest.mark.slow]

OWNERS = [("MARGARET A SOBOTTA", "PO BOX 86", "ARCADIA", "WI", "54612"),
          ("DUANE & LINDA HALVERSON", "N38721 KOSTNER RD", "ARCADIA", "WI", "54612-8113"),
          ("PRIMROSE PROPERTIES LLC", "2200 MAIN ST", "LA CROSSE", "WI", "54601"),
          ("JOSEPH WEISS", "711 E RIVER ST", "ARCADIA", "WI", "54612"),
          ("ESTATE OF R PRONSCHINSKE", None, None, None, None)]


@pytest.fixture
def desk_server(tmp_path):
    """A committed database with notices in each desk section, served over HTTP."""
    from server.extensions import db
    from server.models import Notice
    from server.services import mailings, notice_drafts
    from server.services.auth import create_user
    from server.services.notices import apply_event
    from tests.notices_server.conftest import add_parcel, add_violation

    with fresh_app("spatialite", tmp_path) as app:
        with app.app_context():
            boss = create_user("superintendent1", "superintendent", PASSWORD, "Sam Superintendent")
            clerk = create_user("clerk1", "clerk", PASSWORD, "Chris Clerk-Treasurer")
            for owner, street, city, state, zip_code in OWNERS:
                parcel = add_parcel({"mailing_street": street, "mailing_city": city, "mailing_state": state,
                                     "mailing_zip": zip_code}, owner)
                add_violation(parcel)
            notices = sorted((n for n in notice_drafts.draft_notices(boss) if n.state == "draft"), key=lambda n: n.id)
            for n in notices[:3]:
                apply_event(n, "approve", boss)
            mailings.mail_notices([notices[0].id], clerk, date.today() - timedelta(days=2))
            db.session.commit()
            assert db.session.query(Notice).filter_by(state="held").count() == 1
        with LiveServer(app) as server:
            yield server.url


def test_clerk_prints_a_batch_and_records_a_receipt(chromium, desk_server):
    context = chromium.new_context(viewport={"width": 1280, "height": 1100})
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(f"{desk_server}/login?next=/desk/")
    page.fill("input[name=username]", "clerk1")
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(f"{desk_server}/desk/")

    assert page.locator("table[data-section=approved] input[name=notice_id]").count() == 2
    assert page.locator("table[data-section=held] .reason").count() == 1
    assert page.locator("table[data-section=drafts] tr[data-notice]").count() == 1
    # artifacts/screenshots/notice-desk.png; docs/img/notice-desk.png is a copy made by hand
    screenshot(page, "notice-desk", full_page=True)

    page.click("button[name=print]")
    page.wait_for_url("**/desk/mailings/*")
    assert page.locator(".flash.ok").inner_text().endswith("2 letters printed with their article numbers.")
    letters = page.locator("a", has_text="Letters (PDF)").get_attribute("href")
    assert context.request.get(f"{desk_server}{letters}").body().startswith(b"%PDF")

    page.goto(f"{desk_server}/desk/")
    row = page.locator("table[data-section=mailed] tr[data-notice]").first
    row.locator("input[name=on]").fill(date.today().isoformat())
    row.locator("button", has_text="Delivered").click()
    page.wait_for_url(f"{desk_server}/desk/")
    assert "is now delivered." in page.locator(".flash.ok").inner_text()
    assert page.locator("table[data-section=mailed] tr[data-notice]").count() == 2
    assert errors == []
    context.close()
