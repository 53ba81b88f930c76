"""The tablet field app in a real browser: offline work, sync, photo upload resume.

Each test gets a live Lateral server on a fresh, migrated database holding a small
demo city, the checklist templates and assignments for the demo inspector.
"""

from __future__ import annotations

import re
import urllib.request

from tests.support.env import need_shared
from tests.support.field_app import (
    BIG_PHOTO,
    CHUNK,
    PASSWORD,
    SMALL_PHOTOS,
    City,
    answer_one_source,
    call,
    expect_pill,
    inspection_on_server,
    log_in_and_pull,
    screenshots,
    sha256_of,
    start_clear_water_survey,
    stored_counts,
    superintendent_assigned,
)


def test_offline_survey_with_two_photos_is_on_the_server_exactly_once(field_city, tablet):
    context, page, errors = tablet
    photos = [need_shared("realdata", "photos", name) for name in SMALL_PHOTOS]
    digests = sorted(sha256_of(p) for p in photos)
    parcel_id = field_city.assignments[0]["parcel_id"]

    page.goto(f"{field_city.url}/field/")
    page.wait_for_selector("#username")
    screenshots(page, "field-login")
    log_in_and_pull(page, field_city)
    assert page.locator(".parcel-card").count() == 4
    # The network's keys come from the layer registry the pull kept (GET /api/v1/layers).
    legend = page.locator(".legend").inner_text()
    assert all(label in legend for label in ("Mains", "Laterals", "Manholes", "Taps")), legend
    screenshots(page, "field-today")

    context.set_offline(True)
    response = page.reload()
    assert response.from_service_worker, "the app shell did not come from the service worker"
    page.wait_for_selector(".parcel-card")
    expect_pill(page, "Offline")

    start_clear_water_survey(page, parcel_id)
    page.click("#finish")  # nothing answered yet: the form says what is missing
    page.wait_for_selector(".field.invalid")
    answer_one_source(page, photos)
    page.fill("[data-path='notes'] textarea", "Sump pump hose runs into the floor drain.")
    screenshots(page, "field-inspection")
    page.click("#finish")
    page.wait_for_selector("#finished")  # the finished survey, not a button inviting a second one
    expect_pill(page, "Offline · 1 waiting")
    screenshots(page, "field-parcel")

    page.reload()  # still offline: the record and its photos are in IndexedDB
    page.click("a[data-tab='outbox']")
    page.wait_for_selector(".outbox-item[data-status='queued']")
    assert page.locator(".outbox-item .thumb img").count() == 2
    screenshots(page, "field-outbox-offline")
    uuid = page.get_attribute(".outbox-item", "data-uuid")

    context.set_offline(False)
    expect_pill(page, "All sent")
    page.wait_for_selector(".outbox-item[data-status='sent']")
    screenshots(page, "field-outbox-sent")

    inspections, linked, stored = stored_counts(field_city, uuid, digests)
    assert (inspections, linked, stored) == (1, digests, 2)
    body = inspection_on_server(field_city, uuid)
    assert body["photos_complete"] is True
    assert body["result"] == "fail"  # a sump pump into the sanitary sewer

    page.click("#sync-now")  # syncing again sends nothing twice
    expect_pill(page, "All sent")
    assert stored_counts(field_city, uuid, digests) == (1, digests, 2)
    assert errors == []


def test_photo_upload_cut_mid_way_resumes_from_the_servers_offset(field_city, tablet):
    context, page, errors = tablet
    photo = need_shared("realdata", "photos", BIG_PHOTO)
    size = photo.stat().st_size
    assert size > 4 * CHUNK
    digest = sha256_of(photo)
    patches: list[dict] = []
    cut = {"on": False, "url": None}

    def uploads(route, request):
        if request.method == "PATCH":
            offset = int(request.headers["upload-offset"])
            if cut["on"] or (offset >= 2 * CHUNK and cut["url"] is None):
                cut["on"], cut["url"] = True, request.url
                route.abort("internetdisconnected")  # the tablet loses signal mid-upload
                return
            patches.append({"offset": offset, "bytes": len(request.post_data_buffer or b"")})
        route.continue_()

    log_in_and_pull(page, field_city)
    page.route("**/api/v1/uploads/**", uploads)
    start_clear_water_survey(page, field_city.assignments[1]["parcel_id"])
    answer_one_source(page, [photo])
    page.click("#finish")

    page.wait_for_function("() => true")  # let the route handler run
    page.wait_for_timeout(100)
    for _ in range(100):
        if cut["url"]:
            break
        page.wait_for_timeout(100)
    assert cut["url"], "the upload never reached the cut"
    context.set_offline(True)
    expect_pill(page, "Offline · 1 waiting")

    head = urllib.request.Request(cut["url"], method="HEAD", headers={
        "Authorization": f"Bearer {field_city.inspector_token}", "Tus-Resumable": "1.0.0"})
    with urllib.request.urlopen(head) as response:
        held = int(response.headers["Upload-Offset"])
    assert held == 2 * CHUNK  # two chunks arrived before the cut
    assert sum(p["bytes"] for p in patches) == held

    page.reload()  # the tablet slept; the upload URL is kept in IndexedDB
    page.click("a[data-tab='outbox']")
    page.wait_for_selector(".outbox-item[data-status='pushed']")
    screenshots(page, "field-outbox-upload-cut")

    before = len(patches)
    cut["on"] = False
    context.set_offline(False)
    expect_pill(page, "All sent")
    resumed = patches[before:]
    assert resumed[0]["offset"] == held  # not from zero: from what the server holds
    assert sum(p["bytes"] for p in resumed) == size - held
    uuid = page.get_attribute(".outbox-item", "data-uuid")
    assert stored_counts(field_city, uuid, [digest]) == (1, [digest], 1)
    assert errors == []


def test_a_refused_photo_and_an_expired_login_are_told_plainly(field_city, tablet, tmp_path):
    context, page, errors = tablet
    whole = need_shared("realdata", "photos", "es__jpg_gps_DSCN0021.jpg").read_bytes()
    cut_short = tmp_path / "IMG_0415.jpg"  # the card was pulled out mid-write
    cut_short.write_bytes(whole[: len(whole) // 2])
    log_in_and_pull(page, field_city)

    start_clear_water_survey(page, field_city.assignments[2]["parcel_id"])
    answer_one_source(page, [cut_short])
    page.click("#finish")
    expect_pill(page, "Photo refused")
    page.click("a[data-tab='outbox']")
    item = page.locator(".outbox-item[data-status='photo_rejected']")
    reason = item.locator(".reason").inner_text()
    assert "IMG_0415.jpg" in reason and "truncated" in reason  # the server's code and words
    assert "the image data is incomplete" in reason
    assert "A photo was refused" in page.inner_text("#banner")
    screenshots(page, "field-photo-refused")
    uuid = item.get_attribute("data-uuid")
    digest = sha256_of(cut_short)
    assert stored_counts(field_city, uuid, [digest]) == (1, [digest], 0)  # the record, never the photo

    revoke_tokens(field_city, "inspector")
    start_clear_water_survey(page, field_city.assignments[0]["parcel_id"])
    page.click("[data-path='access'] [data-value='refused']")
    page.fill("[data-path='refusal_notes'] textarea", "Owner not home; tenant would not let us in.")
    page.click("#finish")
    expect_pill(page, "Login expired")
    assert "Nothing is lost" in page.inner_text("#banner")
    page.click("a[data-tab='outbox']")
    page.wait_for_selector(".outbox-item[data-status='queued']")
    screenshots(page, "field-login-expired")

    page.click("#banner a[href='#/login']")
    page.fill("#password", PASSWORD)  # the user name is remembered
    page.click("button[type=submit]")
    page.wait_for_selector(".parcel-card")
    page.wait_for_function("() => !document.getElementById('sync-pill').textContent.includes('Login expired')")
    page.click("a[data-tab='outbox']")
    page.wait_for_selector(".outbox-item[data-status='sent']")
    # Still shown. Waited for, not counted at once: the sync that sent the other record
    # redraws the outbox when it is in (a redraw no longer blanks the screen on the way:
    # tests/field/browser/test_field_redraw.py).
    page.wait_for_function(
        "() => document.querySelectorAll(\".outbox-item[data-status='photo_rejected']\").length === 1",
        timeout=15_000)
    # Chromium logs the two refusals the scenario provokes; the app itself logs nothing.
    refused = re.compile(r"^Failed to load resource: the server responded with a status of (401|422) ")
    assert [e for e in errors if not refused.match(e)] == []


def revoke_tokens(city: City, username: str) -> None:
    """Revoke every device token of a user, as an admin would after a lost tablet."""
    from server.core.accounts.models import User
    from server.core.accounts.service import revoke_token
    from server.core.extensions import db

    with city.app.app_context():
        user = db.session.execute(db.select(User).filter_by(username=username)).scalar_one()
        for token in user.tokens.all():
            if token.revoked_at is None:
                revoke_token(user, token.id)
        db.session.commit()
        db.session.remove()


def test_a_correction_to_a_tap_changed_meanwhile_is_a_conflict_with_the_reason(field_city, tablet):
    context, page, errors = tablet
    parcel_id = field_city.assignments[0]["parcel_id"]
    admin_token, boss_token = superintendent_assigned(field_city, parcel_id)
    log_in_and_pull(page, field_city, "superintendent")

    context.set_offline(True)
    page.click(f".parcel-card[data-parcel='{parcel_id}']")
    tap = page.locator("li[data-feature^='taps:']").first
    tap_id = int(tap.get_attribute("data-feature").split(":")[1])
    tap.locator("button", has_text="Correct").click()
    page.fill("input[name='clock_position']", "2.5")
    page.click("button:has-text('Save correction')")
    expect_pill(page, "Offline · 1 waiting")

    # Meanwhile, at the office, someone else corrects the same tap.
    _, headers, before = call(field_city, "GET", f"/taps/{tap_id}", admin_token)
    office = 9.0 if before["properties"]["clock_position"] != 9.0 else 10.0
    status, _, after = call(field_city, "PATCH", f"/taps/{tap_id}", admin_token,
                            {"type": "Feature", "properties": {"clock_position": office}},
                            {"If-Match": headers["ETag"], "Content-Type": "application/geo+json"})
    assert (status, after["properties"]["version"]) == (200, before["properties"]["version"] + 1)

    context.set_offline(False)
    expect_pill(page, "Conflict:")
    assert "Conflict on a shared feature" in page.inner_text("#banner")
    page.click("a[data-tab='outbox']")
    reason = page.locator(".outbox-item[data-status='conflict'] .reason").inner_text()
    assert f"tap {tap_id}" in reason and "not applied" in reason
    screenshots(page, "field-conflict")
    page.click(".outbox-item[data-status='conflict'] .acknowledge")  # read: stop the alarm, keep the row
    expect_pill(page, "All sent")
    page.wait_for_selector("#outbox-sent .outbox-item[data-status='conflict']")  # kept, as settled

    _, _, tap_now = call(field_city, "GET", f"/taps/{tap_id}", admin_token)
    assert tap_now["properties"]["clock_position"] == office  # the tablet's edit was not applied
    _, _, conflicts = call(field_city, "GET", "/sync/conflicts?status=open", boss_token)
    held = conflicts if isinstance(conflicts, list) else conflicts.get("conflicts", [])
    assert len(held) == 1
    assert errors == []
