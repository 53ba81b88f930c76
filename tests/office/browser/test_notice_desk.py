"""The notice desk in Chromium: the clerk ticks approved notices, prints the batch, records a receipt;
a notice whose violation was resolved since is flagged on its row and withdrawn, not mailed."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from server.notices.calendar import fmt
from tests.support.browser import screenshot
from tests.support.city_calendar import city_day, city_today
from tests.support.databases import PASSWORD, fresh_app
from tests.support.live_server import LiveServer

pytestmark = [pytest.mark.browser, pytest.mark.slow]

OWNERS = [("MARGARET A SOBOTTA", "PO BOX 86", "ARCADIA", "WI", "54612"),
          ("DUANE & LINDA HALVERSON", "N38721 KOSTNER RD", "ARCADIA", "WI", "54612-8113"),
          ("PRIMROSE PROPERTIES LLC", "2200 MAIN ST", "LA CROSSE", "WI", "54601"),
          ("JOSEPH WEISS", "711 E RIVER ST", "ARCADIA", "WI", "54612"),
          ("ESTATE OF R PRONSCHINSKE", None, None, None, None)]


@pytest.fixture
def desk_server(tmp_path):
    """A committed database with notices in each desk section, served over HTTP."""
    from server.core.accounts.service import create_user
    from server.core.extensions import db
    from server.notices import drafts as notice_drafts
    from server.notices import mailing_record as mailings
    from server.notices.models import Notice
    from server.notices.workflow import apply_event
    from tests.support.notices import add_parcel, add_violation, approved_by

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
            approved_by([notices[0].id], city_today() - timedelta(days=2))
            mailings.mail_notices([notices[0].id], clerk, city_today() - timedelta(days=2))
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
    assert "Nothing is mailed yet" in page.locator(".flash.ok").inner_text()
    letters = page.locator("a", has_text="Letters (PDF)").get_attribute("href")
    assert context.request.get(f"{desk_server}{letters}").body().startswith(b"%PDF")
    assert "Record 2 letters as mailed" in page.locator("button[name=record]").inner_text()
    screenshot(page, "mailing-printed", full_page=True)
    page.fill("input[name=confirm_count]", "2")
    page.click("button[name=record]")
    assert "2 letters recorded as mailed" in page.locator(".flash.ok").inner_text()
    assert page.locator("button[name=void]").is_visible()

    page.goto(f"{desk_server}/desk/")
    row = page.locator("table[data-section=mailed] tr[data-notice]").first
    row.locator("input[name=on]").fill(city_today().isoformat())
    row.locator("button", has_text="Delivered").click()
    page.wait_for_url(f"{desk_server}/desk/")
    assert "is now delivered." in page.locator(".flash.ok").inner_text()
    assert page.locator("table[data-section=mailed] tr[data-notice]").count() == 2
    assert errors == []
    context.close()


@pytest.fixture
def resolved_server(tmp_path):
    """Three approved notices; a passing reinspection has since resolved the first one's
    violation, and one of the third one's two violations was waived.
    Yields (url, the resolved notice's id, the inspection's id, the partly resolved notice's id)."""
    import uuid

    from geoalchemy2.shape import from_shape
    from shapely.geometry import Point

    from server.core.accounts.service import create_user
    from server.core.extensions import db
    from server.field.models import Assignment, Inspection
    from server.notices import compliance
    from server.notices import drafts as notice_drafts
    from server.notices.workflow import apply_event
    from server.rules import violations
    from tests.support.notices import add_parcel, add_violation

    with fresh_app("spatialite", tmp_path) as app:
        with app.app_context():
            boss = create_user("superintendent1", "superintendent", PASSWORD, "Sam Superintendent")
            create_user("clerk1", "clerk", PASSWORD, "Chris Clerk-Treasurer")
            inspector = create_user("inspector1", "inspector", PASSWORD, "Ida Inspector")
            for owner, street, city, state, zip_code in OWNERS[:3]:
                parcel = add_parcel({"mailing_street": street, "mailing_city": city, "mailing_state": state,
                                     "mailing_zip": zip_code}, owner)
                cited = add_violation(parcel)
            waived = add_violation(parcel, message="Downspout discharges to the lateral")
            notices = sorted(notice_drafts.draft_notices(boss), key=lambda n: n.id)
            for n in notices:
                apply_event(n, "approve", boss)
            # The inspector was sent there: only then does the visit count as evidence.
            db.session.add(Assignment(inspector_id=inspector.id, parcel_id=notices[0].parcel_id,
                                      template_id="reinspection"))
            when = datetime.now(UTC) - timedelta(days=2)
            visit = Inspection(uuid=str(uuid.uuid4()), template_id="reinspection", template_version=2,
                               parcel_id=notices[0].parcel_id, inspector_id=inspector.id,
                               geom=from_shape(Point(-91.5, 44.25), srid=4326), started_at=when, finished_at=when,
                               answers={"violation_rule": "CW-DISCONNECT-60", "corrected": "yes"}, result="pass",
                               failures=[], violation_ids=[], finding_ids=[], content_hash="0" * 64)
            db.session.add(visit)
            db.session.flush()
            compliance.settle(visit, when.date(), inspector)
            violations.waive(waived.id, "the downspout was moved in October", boss)
            db.session.commit()
            assert cited.id != waived.id and notices[2].parcel_id == parcel.id
            resolved_id, visit_id, partly_id = notices[0].id, visit.id, notices[2].id
        with LiveServer(app) as server:
            yield server.url, resolved_id, visit_id, partly_id


def _login(chromium, url: str, username: str):
    context = chromium.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda exc: page.errors.append(str(exc)))
    page.goto(f"{url}/login?next=/desk/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(f"{url}/desk/")
    return context, page


def test_a_resolved_notice_is_flagged_left_unmailed_and_withdrawn(chromium, resolved_server):
    url, notice_id, visit_id, partly_id = resolved_server
    context, page = _login(chromium, url, "clerk1")

    warning = page.locator(f"table[data-section=approved] tr.resolved[data-resolved='{notice_id}']")
    assert warning.is_visible()
    resolved_on = city_day(datetime.now(UTC) - timedelta(days=2))  # the day the visit finished, in Arcadia
    assert f"was resolved on {fmt(resolved_on)} by inspection #{visit_id}" in warning.inner_text()
    assert "Ask the superintendent to withdraw it." in warning.inner_text()
    box = page.locator(f"input[name=notice_id][value='{notice_id}']")
    assert box.is_disabled() and not box.is_checked()
    # One of the third notice's two violations was waived: a note, and it can still be mailed.
    note = page.locator(f"table[data-section=approved] tr.resolved.partly[data-partly='{partly_id}']")
    assert "1 of the 2 violations this notice cites was waived since it was drafted" in note.inner_text()
    assert "the superintendent may withdraw it and draft again" in note.inner_text()
    partly_box = page.locator(f"input[name=notice_id][value='{partly_id}']")
    assert partly_box.is_enabled() and partly_box.is_checked()
    page.locator("input[aria-label=all]").click()  # tick all: the flagged one stays out
    assert not box.is_checked() and page.locator("input[name=notice_id]:checked").count() == 2
    screenshot(page, "notice-desk-resolved", full_page=True)

    page.click("button[name=print]")
    page.wait_for_url("**/desk/mailings/*")
    assert "2 letters printed with the mailing book" in page.locator(".flash.ok").inner_text()
    page.fill("input[name=confirm_count]", "2")
    page.click("button[name=record]")
    assert "2 letters recorded as mailed" in page.locator(".flash.ok").inner_text()
    assert page.errors == []
    context.close()

    context, page = _login(chromium, url, "superintendent1")
    page.locator(f"tr.resolved[data-resolved='{notice_id}'] button", has_text="Withdraw").click()
    page.wait_for_url(f"{url}/desk/")
    assert f"Notice {notice_id} " in page.locator(".flash.ok").inner_text()
    assert page.locator(".flash.ok").inner_text().endswith("is now withdrawn.")
    assert page.locator("tr.resolved").count() == 0
    assert page.locator("table[data-section=approved]").count() == 0  # nothing left to mail
    assert page.errors == []
    context.close()
