"""A plumber's CCTV submittal in Chromium on both databases: a verified plumber (seeded here)
fills in the observations and sends a small WebM over tus; the superintendent opens the
review page, the video loads and plays (its bytes served in ranges), and issues the
certificate of compliance; the plumber sees it. axe finds nothing serious on the plumber's
pages at 375 px. Screenshots for docs/portal.md go to docs/img/."""

from __future__ import annotations

import base64

import pytest
from sqlalchemy import select

from server.core.extensions import db
from server.demo.seed import DEMO_PASSWORD
from server.network.models import Parcel
from server.portal.cctv_models import CctvSubmittal
from tests.support.axe import assert_accessible
from tests.support.cctv import PASSWORD, add_plumber
from tests.support.env import REPO_ROOT
from tests.support.plumber_browser import RECORD_WEBM, log_in, open_page

DOC_IMG = REPO_ROOT / "docs" / "img"

@pytest.fixture(scope="module")
def cctv_plumber(own_served_city):
    """A verified plumber and a parcel of the served city to film."""
    city = own_served_city
    with city.app.app_context():
        user = add_plumber("cctv-walker")
        parcel = db.session.scalar(select(Parcel).order_by(Parcel.id).limit(1))
        db.session.commit()
        return {"username": user.username, "parcel_number": parcel.parcel_number}


def test_a_cctv_submittal_from_the_plumber_to_the_certificate(chromium, own_served_city, cctv_plumber, tmp_path):
    url, docs = own_served_city.url, own_served_city.kind == "spatialite"
    context, page = open_page(chromium, 375)
    log_in(page, url, cctv_plumber["username"], PASSWORD, "/portal/plumbers/")
    page.click("text=Send a CCTV inspection")
    page.wait_for_url(f"{url}/portal/plumbers/cctv/new")
    assert_accessible(page, "/portal/plumbers/cctv/new at 375px")
    video = tmp_path / "lateral.webm"
    video.write_bytes(base64.b64decode(page.evaluate(RECORD_WEBM)))

    page.fill("#parcel_number", cctv_plumber["parcel_number"])
    page.fill("#inspected_on", "2026-01-15")
    for n, (code, feet, clock, grade, seconds) in enumerate([("FC", "18.5", "12", "2", "0.5"),
                                                             ("RFJ", "33", "4", "1", "1.5")], start=1):
        page.fill(f"#obs-{n}-code", code)
        page.fill(f"#obs-{n}-distance_ft", feet)
        page.fill(f"#obs-{n}-clock", clock)
        page.fill(f"#obs-{n}-grade", grade)
        page.fill(f"#obs-{n}-seconds", seconds)
    page.click("text=Save and go on to the video")
    page.wait_for_url(f"{url}/portal/plumbers/cctv/*")
    assert page.get_attribute("#cctv-state", "data-state") == "awaiting_video"
    assert_accessible(page, "/portal/plumbers/cctv/<id> at 375px")
    renamed = tmp_path / "photo.mp4"
    renamed.write_bytes(b"\xff\xd8\xff\xe0" + bytes(4000))  # a JPEG's bytes under a video's name
    page.set_input_files("#cctv-file", str(renamed))
    page.click("#cctv-upload button[type=submit]")
    page.wait_for_selector("#cctv-upload-status >> text=not an MP4, QuickTime or WebM video")
    page.set_input_files("#cctv-file", str(video))
    page.click("#cctv-upload button[type=submit]")
    page.wait_for_selector("#cctv-state[data-state=received]", timeout=30_000)
    if docs:
        page.screenshot(path=str(DOC_IMG / "portal-cctv-plumber.png"), full_page=True)
    submittal_url = page.url

    staff_context, staff = open_page(chromium, 1280)
    ranges = []
    staff.on("response", lambda r: ranges.append(r.status) if "/video" in r.url else None)
    log_in(staff, url, "superintendent", DEMO_PASSWORD, "/review/cctv/")
    staff.click(f"[data-section=cctv-waiting] a >> text=CCTV-{submittal_url.rsplit('/', 1)[1]}")
    staff.wait_for_selector("#cctv-video")
    staff.wait_for_function("() => document.getElementById('cctv-video').readyState >= 1", timeout=20_000)
    staff.evaluate("() => { const v = document.getElementById('cctv-video'); v.muted = true; return v.play(); }")
    staff.wait_for_function("() => document.getElementById('cctv-video').currentTime > 0", timeout=20_000)
    assert 206 in ranges  # the player asked for byte ranges and got them
    staff.evaluate("() => document.getElementById('cctv-video').pause()")
    staff.click("[data-section=observations] button[data-seconds='1.5']")  # seeks the player there
    staff.wait_for_function("() => Math.abs(document.getElementById('cctv-video').currentTime - 1.5) < 0.01")
    observations = staff.inner_text("[data-section=observations]")
    assert "18.5 ft from the cleanout" in observations and "fracture circumferential" in observations
    assert_accessible(staff, "/review/cctv/<id> at 1280px")
    if docs:
        staff.screenshot(path=str(DOC_IMG / "portal-cctv-review.png"), full_page=True)
    staff.fill("#certify-reason", "Clean pipe from the cleanout to the main.")
    staff.click("text=Issue the certificate of compliance")
    staff.wait_for_selector("#cctv-certificate")
    assert "Certificate of compliance issued." in staff.inner_text("main")

    page.goto(submittal_url)
    assert page.get_attribute("#cctv-state", "data-state") == "certified"
    with page.expect_download() as download:
        page.click("text=Download the certificate (PDF)")
    assert download.value.suggested_filename.startswith("certificate-CCTV-")
    with own_served_city.app.app_context():
        found = db.session.scalar(select(CctvSubmittal).order_by(CctvSubmittal.id.desc()).limit(1))
        assert (found.state, found.video_media_type) == ("certified", "video/webm")
    assert page.errors == [] and staff.errors == []
    context.close()
    staff_context.close()
