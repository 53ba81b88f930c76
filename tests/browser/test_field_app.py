"""The tablet field app in a real browser: offline work, sync, photo upload resume.

Each test gets a live Lateral server on a fresh, migrated database holding a small
demo city, the checklist templates and assignments for the demo inspector.
"""

from __future__ import annotations

import hashlib
import json
import re
import urllib.request
from dataclasses import dataclass, field
from datetime import date

import pytest
from flask import Flask

from tests.browser.conftest import screenshot
from tests.conftest import ENGINES, fresh_app, need_shared
from tests.uploads.helpers import LiveServer

PASSWORD = "arcadia-demo"  # the demo city's logins
SMALL_PHOTOS = ("es__jpg_gps_DSCN0010.jpg", "ep__nikon_D3100_TypeError.jpg")
BIG_PHOTO = "es__jpg_hdr_canon_hdr_YES.jpg"
CHUNK = 128 * 1024
# Chromium reports every request that fails while the tablet is offline (or cut) on
# the console; those are the network, not the app.
NETWORK_NOISE = re.compile(r"net::ERR_(INTERNET_DISCONNECTED|FAILED|NETWORK_CHANGED)")


TABLET_SIZES = ((1024, 768), (768, 1024))


def screenshots(page, name: str) -> None:
    """The screen at both tablet sizes: ``<name>-1024x768.png``, ``<name>-768x1024.png``."""
    original = page.viewport_size
    for width, height in TABLET_SIZES:
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_timeout(250)  # let the map and the layout settle
        screenshot(page, f"{name}-{width}x{height}")
    page.set_viewport_size(original)


@dataclass
class City:
    app: Flask
    url: str
    inspector_token: str
    assignments: list[dict] = field(default_factory=list)


def seed_field_city(app: Flask) -> tuple[str, list[dict]]:
    """Demo city, templates and four assignments for the demo inspector: (their token, assignments)."""
    from server.core.accounts.models import User
    from server.core.accounts.service import issue_token
    from server.core.extensions import db
    from server.demo import seed as demo
    from server.field import assignments
    from server.field import checklist_templates as checklists
    from server.network.models import Parcel

    with app.app_context():
        demo.seed(parcels=300)
        checklists.load_templates()
        inspector = db.session.execute(db.select(User).filter_by(username="inspector")).scalar_one()
        boss = db.session.execute(db.select(User).filter_by(username="superintendent")).scalar_one()
        parcels = db.session.execute(
            db.select(Parcel.id).where(Parcel.site_address.is_not(None)).order_by(Parcel.id).limit(4)).scalars().all()
        made = []
        for parcel_id, template in zip(parcels, ["clear-water-survey"] * 3 + ["tap"], strict=True):
            a = assignments.create_assignment({
                "inspector_id": inspector.id, "parcel_id": parcel_id, "template_id": template,
                "due_on": date(2026, 12, 15), "reason": "spring clear-water sweep, block 12"}, boss)
            made.append(assignments.assignment_out(a))
        token = issue_token(inspector, "pytest")[0]
        db.session.commit()
    return token, made


@pytest.fixture(params=ENGINES)
def city(request, tmp_path):
    """A live server on a fresh database: demo city, templates, four assignments."""
    with fresh_app(request.param, tmp_path, FIELD_TUS_CHUNK_BYTES=CHUNK,
                   BLOB_STORE={"backend": "local", "root": str(tmp_path / "blobs")},
                   TUS_STAGING_DIR=str(tmp_path / "tus")) as app:
        token, made = seed_field_city(app)
        with LiveServer(app) as server:
            yield City(app, server.url, token, made)


@pytest.fixture
def tablet(chromium, city):
    """A fresh browser profile at landscape tablet size; console errors collected."""
    context = chromium.new_context(viewport={"width": 1024, "height": 768}, service_workers="allow",
                                   device_scale_factor=1, has_touch=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: m.type == "error" and not NETWORK_NOISE.search(m.text) and errors.append(m.text))
    page.on("pageerror", lambda exc: errors.append(f"page error: {exc}"))
    yield context, page, errors
    context.close()


def sha256_of(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def log_in_and_pull(page, city: City, username: str = "inspector") -> None:
    page.goto(f"{city.url}/field/")
    page.wait_for_selector("#username")
    page.fill("#username", username)
    page.fill("#password", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_selector(".parcel-card")
    expect_pill(page, "All sent")
    # The service worker has taken over: the next load works without a network. Installing
    # caches the whole shell first; under a full test run's load that took over 15 s once.
    page.wait_for_function("() => navigator.serviceWorker.controller !== null", timeout=60000)


def expect_pill(page, text: str, timeout: float = 30000) -> None:
    page.wait_for_function(
        "t => document.getElementById('sync-pill').textContent.includes(t)", arg=text, timeout=timeout)


def start_clear_water_survey(page, parcel_id: int) -> None:
    page.click("a[data-tab='today']")
    page.click(f".parcel-card[data-parcel='{parcel_id}']")
    page.wait_for_selector("button[data-template='clear-water-survey']")
    page.click("button[data-template='clear-water-survey']")
    page.wait_for_selector(".checklist [data-path='access']")


def answer_one_source(page, photos) -> None:
    """Access granted; one sump pump, connected to the sanitary sewer, with photos."""
    page.click("[data-path='access'] [data-value='granted']")
    page.click("[data-add='sources']")
    for item, value in [("source", "sump_pump"), ("discharges_to", "sanitary_sewer"),
                        ("connected_to_sanitary", "yes"), ("test", "dye"), ("test_result", "positive")]:
        page.click(f"[data-path='sources.0.{item}'] [data-value='{value}']")
    page.set_input_files("input[type=file][data-path='sources.0.photo']", [str(p) for p in photos])
    page.wait_for_function("n => document.querySelectorAll(\"[data-path='sources.0.photo'] .thumb img\").length === n",
                           arg=len(photos))


def inspection_on_server(city: City, uuid: str) -> dict:
    request = urllib.request.Request(f"{city.url}/api/v1/inspections/{uuid}",
                                     headers={"Authorization": f"Bearer {city.inspector_token}"})
    with urllib.request.urlopen(request) as response:
        return json.load(response)


def stored_counts(city: City, uuid: str, digests: list[str]) -> tuple[int, list[str], int]:
    """(inspections with this uuid, their photo digests, Photo rows of the digests)."""
    from server.core.extensions import db
    from server.field.models import Inspection, InspectionPhoto, Photo

    with city.app.app_context():
        inspections = db.session.execute(db.select(Inspection).filter_by(uuid=uuid)).scalars().all()
        linked = db.session.execute(
            db.select(InspectionPhoto.sha256).join(Inspection, InspectionPhoto.inspection_id == Inspection.id)
            .where(Inspection.uuid == uuid)).scalars().all()
        photos = db.session.scalar(db.select(db.func.count()).select_from(Photo).where(Photo.sha256.in_(digests)))
        db.session.remove()
    return len(inspections), sorted(linked), photos


def test_offline_survey_with_two_photos_is_on_the_server_exactly_once(city, tablet):
    context, page, errors = tablet
    photos = [need_shared("realdata", "photos", name) for name in SMALL_PHOTOS]
    digests = sorted(sha256_of(p) for p in photos)
    parcel_id = city.assignments[0]["parcel_id"]

    page.goto(f"{city.url}/field/")
    page.wait_for_selector("#username")
    screenshots(page, "field-login")
    log_in_and_pull(page, city)
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

    inspections, linked, stored = stored_counts(city, uuid, digests)
    assert (inspections, linked, stored) == (1, digests, 2)
    body = inspection_on_server(city, uuid)
    assert body["photos_complete"] is True
    assert body["result"] == "fail"  # a sump pump into the sanitary sewer

    page.click("#sync-now")  # syncing again sends nothing twice
    expect_pill(page, "All sent")
    assert stored_counts(city, uuid, digests) == (1, digests, 2)
    assert errors == []


def test_photo_upload_cut_mid_way_resumes_from_the_servers_offset(city, tablet):
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

    log_in_and_pull(page, city)
    page.route("**/api/v1/uploads/**", uploads)
    start_clear_water_survey(page, city.assignments[1]["parcel_id"])
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
        "Authorization": f"Bearer {city.inspector_token}", "Tus-Resumable": "1.0.0"})
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
    assert stored_counts(city, uuid, [digest]) == (1, [digest], 1)
    assert errors == []


def test_a_refused_photo_and_an_expired_login_are_told_plainly(city, tablet, tmp_path):
    context, page, errors = tablet
    whole = need_shared("realdata", "photos", "es__jpg_gps_DSCN0021.jpg").read_bytes()
    cut_short = tmp_path / "IMG_0415.jpg"  # the card was pulled out mid-write
    cut_short.write_bytes(whole[: len(whole) // 2])
    log_in_and_pull(page, city)

    start_clear_water_survey(page, city.assignments[2]["parcel_id"])
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
    assert stored_counts(city, uuid, [digest]) == (1, [digest], 0)  # the record, never the photo

    revoke_tokens(city, "inspector")
    start_clear_water_survey(page, city.assignments[0]["parcel_id"])
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
    # tests/browser/test_field_redraw.py).
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


def call(city: City, method: str, path: str, token: str, body=None, headers=None):
    """(status, headers, JSON body) of one API call."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(f"{city.url}/api/v1{path}", data=data, method=method, headers={
        "Authorization": f"Bearer {token}", "Content-Type": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(request) as response:
            return response.status, response.headers, json.load(response)
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers, json.load(exc)


def superintendent_assigned(city: City, parcel_id: int) -> tuple[str, str]:
    """A survey of ``parcel_id`` assigned to the superintendent: (an admin's token, theirs)."""
    from server.core.accounts.models import User
    from server.core.accounts.service import issue_token
    from server.core.extensions import db
    from server.field import assignments

    with city.app.app_context():
        boss = db.session.execute(db.select(User).filter_by(username="superintendent")).scalar_one()
        admin = db.session.execute(db.select(User).filter_by(username="admin")).scalar_one()
        assignments.create_assignment({"inspector_id": boss.id, "parcel_id": parcel_id,
                                       "template_id": "clear-water-survey"}, boss)
        tokens = issue_token(admin, "pytest")[0], issue_token(boss, "pytest")[0]
        db.session.commit()
        db.session.remove()
    return tokens


def test_a_correction_to_a_tap_changed_meanwhile_is_a_conflict_with_the_reason(city, tablet):
    context, page, errors = tablet
    parcel_id = city.assignments[0]["parcel_id"]
    admin_token, boss_token = superintendent_assigned(city, parcel_id)
    log_in_and_pull(page, city, "superintendent")

    context.set_offline(True)
    page.click(f".parcel-card[data-parcel='{parcel_id}']")
    tap = page.locator("li[data-feature^='taps:']").first
    tap_id = int(tap.get_attribute("data-feature").split(":")[1])
    tap.locator("button", has_text="Correct").click()
    page.fill("input[name='clock_position']", "2.5")
    page.click("button:has-text('Save correction')")
    expect_pill(page, "Offline · 1 waiting")

    # Meanwhile, at the office, someone else corrects the same tap.
    _, headers, before = call(city, "GET", f"/taps/{tap_id}", admin_token)
    office = 9.0 if before["properties"]["clock_position"] != 9.0 else 10.0
    status, _, after = call(city, "PATCH", f"/taps/{tap_id}", admin_token,
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

    _, _, tap_now = call(city, "GET", f"/taps/{tap_id}", admin_token)
    assert tap_now["properties"]["clock_position"] == office  # the tablet's edit was not applied
    _, _, conflicts = call(city, "GET", "/sync/conflicts?status=open", boss_token)
    held = conflicts if isinstance(conflicts, list) else conflicts.get("conflicts", [])
    assert len(held) == 1
    assert errors == []
