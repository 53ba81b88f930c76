"""The owner's walk in Chromium on both databases: from the code on a letter to an accepted
proof of correction, and to an appeal filed online that the desk sees; axe finds nothing
serious on the portal's pages at 375 px (a phone) and 1280 px, in English and in Spanish. Screenshots for
docs/portal.md go to docs/img/."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from geoalchemy2.shape import from_shape
from PIL import Image
from shapely.geometry import MultiPolygon, box
from sqlalchemy import func, select

from server.core.accounts.service import create_user, issue_token
from server.core.extensions import db
from server.demo.seed import DEMO_PASSWORD
from server.network.models import Parcel
from tests.support.axe import assert_accessible
from tests.support.browser import open_page
from tests.support.databases import PASSWORD
from tests.support.env import REPO_ROOT
from tests.support.notices import ADDRESS, OWNER, add_violation, mail
from tests.support.portal import code_on_letter

DOC_IMG = REPO_ROOT / "docs" / "img"
FACTS = "The floor drain was capped in 2019; the city's photo shows an old pipe that is no longer connected."


def _notice(city, client, tokens, then: str) -> dict:
    """A notice for a fresh parcel, mailed today (and delivered if ``then``), with its code."""
    with city.app.app_context():
        n = len(then) + int(db.session.scalar(select(func.count(Parcel.id))))
        parcel = Parcel(parcel_number=f"999-{n:05d}-0000", owner_name=OWNER, site_address=f"{n} Portal Way",
                        geom=from_shape(MultiPolygon([box(-91.6, 44.3, -91.5997, 44.3002)]), srid=4326), **ADDRESS)
        db.session.add(parcel)
        db.session.flush()
        add_violation(parcel)
        db.session.commit()
        r = client.post("/api/v1/notices/draft", json={"parcel_ids": [parcel.id]}, headers=tokens["superintendent"])
        notice = r.get_json()[0]
        for event, role, body in [("approve", "superintendent", {}), ("mail", "clerk", {}), *then]:
            r = (mail(client, tokens, [notice["id"]]) if event == "mail"
                 else client.post(f"/api/v1/notices/{notice['id']}/{event}", json=body, headers=tokens[role]))
            assert r.status_code in (200, 201), r.get_json()
        return {**notice, "code": code_on_letter(notice["id"])}


@pytest.fixture(scope="module")
def letters(own_served_city):
    """Two mailed notices in the served city: one for a proof of correction, one to appeal."""
    city = own_served_city
    client = city.app.test_client()
    with city.app.app_context():
        tokens = {role: {"Authorization": f"Bearer {issue_token(create_user(f'{role}-walk', role, PASSWORD), 'w')[0]}"}
                  for role in ("superintendent", "clerk")}
        db.session.commit()
    return {"proof": _notice(city, client, tokens, []), "appeal": _notice(city, client, tokens, [])}


def _open(page, url: str, notice: dict) -> None:
    page.goto(f"{url}/portal/#code={notice['code']}")
    assert page.input_value("#code") == notice["code"]  # the QR code's address filled it in
    page.fill("#parcel_number", notice["parcel_number"])
    page.click("button[type=submit]")
    page.wait_for_url(f"{url}/portal/notice")


def _staff(chromium, url: str, username: str):
    context, page = open_page(chromium, 1280)
    page.goto(f"{url}/login")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", DEMO_PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(f"{url}/")
    return context, page


@pytest.mark.parametrize("width", [375, 1280])
def test_the_portals_pages_have_no_serious_axe_finding(chromium, own_served_city, letters, width):
    context, page = open_page(chromium, width)
    url = own_served_city.url
    page.goto(f"{url}/portal/")
    assert_accessible(page, f"/portal/ at {width}px")
    _open(page, url, letters["appeal"])
    assert_accessible(page, f"/portal/notice at {width}px")
    for path in ("/portal/appeal", "/portal/proof", "/portal/visit", "/portal/plumbers/register"):
        page.goto(f"{url}{path}")
        assert_accessible(page, f"{path} at {width}px")
    assert page.errors == []
    context.close()


def test_from_the_letters_code_to_an_accepted_proof(chromium, own_served_city, letters, tmp_path):
    url, notice = own_served_city.url, letters["proof"]
    context, page = open_page(chromium, 375)
    _open(page, url, notice)
    assert "where it stands: mailed" in page.inner_text("main").lower()
    if own_served_city.kind == "spatialite":
        page.screenshot(path=str(DOC_IMG / "portal-notice.png"), full_page=True)
    page.click("text=Send proof the work is done")
    photo = tmp_path / "after.jpg"
    buf = io.BytesIO()
    Image.new("RGB", (64, 48), (90, 120, 150)).save(buf, "JPEG")
    Path(photo).write_bytes(buf.getvalue())
    page.set_input_files("#files", str(photo))
    page.fill("#note", "The drain is capped; the plumber's photo is attached.")
    page.click("button[type=submit]")
    page.wait_for_url(f"{url}/portal/notice?sent=proof")
    assert "We received your proof" in page.inner_text("main")

    staff_context, staff = _staff(chromium, url, "superintendent")
    staff.goto(f"{url}/review/owners/")
    card = staff.locator(f"[data-proof] >> text={notice['parcel_number']}").locator("xpath=ancestor::li")
    card.locator("input[name=reason]").fill("The photo shows the drain capped.")
    if own_served_city.kind == "spatialite":
        staff.screenshot(path=str(DOC_IMG / "portal-owner-replies.png"), full_page=True)
    card.locator("button[value=accept]").click()
    staff.wait_for_url(f"{url}/review/owners/")
    assert "Recorded." in staff.inner_text("main")

    page.reload()
    assert "where it stands: complied" in page.inner_text("main").lower()
    assert page.errors == [] and staff.errors == []
    context.close()
    staff_context.close()


def test_an_appeal_filed_online_reaches_the_desk(chromium, own_served_city, letters):
    url, notice = own_served_city.url, letters["appeal"]
    context, page = open_page(chromium, 375)
    _open(page, url, notice)
    page.click("text=Appeal this notice")
    page.fill("#facts", FACTS)
    page.check("#fee")
    page.click("button[type=submit]")
    page.wait_for_url(f"{url}/portal/appeal/*")
    text = page.inner_text("main")
    assert "We received your appeal" in text and "Utility Commission" in text
    reference = text.split("receipt number is ")[1].split(".")[0].strip()
    if own_served_city.kind == "spatialite":
        page.screenshot(path=str(DOC_IMG / "portal-appeal-received.png"), full_page=True)
    with page.expect_download() as download:
        page.click("text=Download your receipt (PDF)")
    assert download.value.suggested_filename == f"appeal-receipt-{reference}.pdf"

    staff_context, desk = _staff(chromium, url, "clerk")
    desk.goto(f"{url}/desk/")
    row = desk.locator(f"[data-section=appeals] tr[data-notice='{notice['id']}']")
    assert f"filed online by the owner (receipt {reference})" in row.inner_text()
    context.close()
    staff_context.close()


def test_a_spanish_speaking_owner_reads_the_portal_in_spanish(chromium, own_served_city, letters):
    """Chromium set to Spanish (its Accept-Language) gets the walk in Spanish, accessible; the
    switch on the page turns it to English, and the choice holds over the browser's."""
    context = chromium.new_context(viewport={"width": 375, "height": 812}, locale="es-US")
    page = context.new_page()
    url = own_served_city.url
    page.goto(f"{url}/portal/")
    assert "Busque su aviso" in page.inner_text("main") and page.get_attribute("html", "lang") == "es"
    _open(page, url, letters["appeal"])
    assert "lo que encontramos" in page.inner_text("main").lower()
    assert_accessible(page, "/portal/notice in Spanish at 375px")
    if own_served_city.kind == "spatialite":
        page.screenshot(path=str(DOC_IMG / "portal-notice-es.png"), full_page=True)
    page.click("[data-lang=en]")
    page.wait_for_url(f"{url}/portal/notice?lang=en")
    assert "What we found" in page.inner_text("main")
    page.goto(f"{url}/portal/appeal")
    assert "Appeal this notice" in page.inner_text("main")
    context.close()
