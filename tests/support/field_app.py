"""The tablet field app in a real browser: a live city for it, a tablet profile, and the
steps an inspector takes (log in and pull, start a survey, answer it, watch the sync pill)."""

from __future__ import annotations

import hashlib
import json
import re
import urllib.request
from dataclasses import dataclass, field
from datetime import date

from flask import Flask

from tests.support.browser import screenshot
from tests.support.permits import issue_tap_permit_as

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
            if template == "tap":  # a tap is recorded under its permit (TAP-PERMIT)
                issue_tap_permit_as(boss, parcel_id)
        token = issue_token(inspector, "pytest")[0]
        db.session.commit()
    return token, made


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


def new_tablet(chromium):
    """A fresh browser profile at landscape tablet size: (context, page, console errors but
    the network's while offline)."""
    context = chromium.new_context(viewport={"width": 1024, "height": 768}, service_workers="allow",
                                   device_scale_factor=1, has_touch=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: m.type == "error" and not NETWORK_NOISE.search(m.text) and errors.append(m.text))
    page.on("pageerror", lambda exc: errors.append(f"page error: {exc}"))
    return context, page, errors
