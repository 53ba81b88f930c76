"""The whole plumber's journey of issue 33's "Done when", in Chromium on both databases, every
step in a browser: a plumber registers; the clerk verifies the license on the office page;
the plumber applies with the owner's consent; the clerk reviews, approves, records the
payment, issues and sets the work day on the permit's office page; the plumber asks for
the inspection, then sends the CCTV inspection (report and video) for that permit; the
superintendent reviews it in the browser and issues the certificate; the plumber sees it
and downloads it. The helpers are the two shorter walks' (test_plumber_walk.py and
test_cctv_walk.py, which keep their axe checks)."""

from __future__ import annotations

import base64

from server.core.extensions import db
from server.demo.seed import DEMO_PASSWORD
from server.permits.models import Permit
from server.portal.cctv_models import CctvSubmittal
from tests.support.permits import THAWED_DAY
from tests.support.plumber_browser import (
    PLUMBER_PASSWORD,
    RECORD_WEBM,
    log_in,
    open_page,
    register,
    served_today,
    verify,
)
from tests.support.plumbers import CONSENT_PDF


def _office_step(desk, url: str, permit_id: int, event: str, **fields: str) -> None:
    """One step on the permit's office page, as the clerk clicks it."""
    desk.goto(f"{url}/permits/{permit_id}")
    form = desk.locator(f"form[data-event={event}]")
    for name, value in fields.items():
        form.locator(f"input[name={name}]").fill(value)
    form.locator("button").click()
    desk.wait_for_url(f"{url}/permits/{permit_id}")
    assert f"{event.replace('_', ' ')} recorded" in desk.inner_text("body"), (event, desk.inner_text("main"))


def test_a_plumber_from_registration_to_a_certified_cctv_inspection(chromium, own_served_city, facts,
                                                                    tmp_path):
    url = own_served_city.url
    context, page = open_page(chromium, 375)
    register(page, url, "journeyman", facts["expires"])
    verify(chromium, url, "journeyman")

    log_in(page, url, "journeyman", PLUMBER_PASSWORD, "/portal/plumbers/")
    page.click("text=Apply for a permit")
    page.wait_for_url(f"{url}/portal/plumbers/apply")
    page.fill("#parcel_number", facts["parcel"])
    page.select_option("#kind", "new_connection")
    page.select_option("#connection_size_in", "6.0")
    page.fill("#wastes", "Domestic sewage from a single-family home")
    page.fill("#owner_name", "Olive Owner")
    page.fill("#consent_signed_on", served_today(own_served_city))
    consent = tmp_path / "consent.pdf"
    consent.write_bytes(CONSENT_PDF)
    page.set_input_files("#consent", str(consent))
    page.click("button[type=submit]")
    page.wait_for_url(f"{url}/portal/plumbers/permits/*")
    permit_id = int(page.url.split("/permits/")[1].split("?")[0])

    desk_context, desk = open_page(chromium, 1280)
    log_in(desk, url, "clerk", DEMO_PASSWORD, f"/permits/{permit_id}")
    assert "applied online by the plumber" in desk.inner_text("[data-section=portal]")
    _office_step(desk, url, permit_id, "review")
    # the clerk records the Commission's approval at its meeting (§ 315-11E(3))
    _office_step(desk, url, permit_id, "approve", commission_meeting_on=served_today(own_served_city))
    _office_step(desk, url, permit_id, "pay", receipt_number="R-3301")
    _office_step(desk, url, permit_id, "issue")
    _office_step(desk, url, permit_id, "schedule", work_on=THAWED_DAY.isoformat())
    assert desk.errors == []
    desk_context.close()

    page.goto(f"{url}/portal/plumbers/permits/{permit_id}")
    assert "paid on" in page.inner_text("[data-section=fees]")
    page.fill("#earliest", f"{THAWED_DAY.isoformat()}T08:00")
    page.fill("#contact", "Dana, 608-555-0190")
    page.click("button[type=submit]")
    page.wait_for_url(f"{url}/portal/plumbers/permits/{permit_id}?sent=inspection")
    with own_served_city.app.app_context():
        permit = db.session.get(Permit, permit_id)
        assert permit.state == "inspection_requested"
        number = permit.number

    page.goto(f"{url}/portal/plumbers/")
    page.click("text=Send a CCTV inspection")
    page.wait_for_url(f"{url}/portal/plumbers/cctv/new")
    video = tmp_path / "lateral.webm"
    video.write_bytes(base64.b64decode(page.evaluate(RECORD_WEBM)))
    page.fill("#parcel_number", facts["parcel"])
    page.fill("#permit_number", number)
    page.fill("#inspected_on", served_today(own_served_city))
    for field, value in (("code", "RFJ"), ("distance_ft", "33"), ("clock", "4"), ("grade", "1"), ("seconds", "1.5")):
        page.fill(f"#obs-1-{field}", value)
    page.click("text=Save and go on to the video")
    page.wait_for_url(f"{url}/portal/plumbers/cctv/*")
    page.set_input_files("#cctv-file", str(video))
    page.click("#cctv-upload button[type=submit]")
    page.wait_for_selector("#cctv-state[data-state=received]", timeout=30_000)
    submittal_url = page.url
    submittal_id = submittal_url.rsplit("/", 1)[1]

    staff_context, staff = open_page(chromium, 1280)
    log_in(staff, url, "superintendent", DEMO_PASSWORD, "/review/cctv/")
    staff.click(f"[data-section=cctv-waiting] a >> text=CCTV-{submittal_id}")
    staff.wait_for_selector("#cctv-video")
    staff.wait_for_function("() => document.getElementById('cctv-video').readyState >= 1", timeout=20_000)
    assert "33.0 ft from the cleanout" in staff.inner_text("[data-section=observations]")
    staff.fill("#certify-reason", "Clean pipe from the cleanout to the main.")
    staff.click("text=Issue the certificate of compliance")
    staff.wait_for_selector("#cctv-certificate")
    assert staff.errors == []
    staff_context.close()

    page.goto(submittal_url)
    assert page.get_attribute("#cctv-state", "data-state") == "certified"
    with page.expect_download() as download:
        page.click("text=Download the certificate (PDF)")
    assert download.value.suggested_filename == f"certificate-CCTV-{submittal_id}.pdf"
    with open(download.value.path(), "rb") as f:
        assert f.read(5) == b"%PDF-"
    with own_served_city.app.app_context():
        found = db.session.get(CctvSubmittal, int(submittal_id))
        assert (found.state, found.permit_id, found.video_media_type) == ("certified", permit_id, "video/webm")
    assert page.errors == []
    context.close()
