"""The superintendent's pages in Chromium, on both databases: run the rules (progress, then the
counts), filter the violations, open one on its map, waive it; draft a notice for one parcel and
preview its letter; review a failed inspection with its photo and accept a held field edit.
Keyboard steps on each, and axe-core on every page (0 critical or serious)."""

from __future__ import annotations

import hashlib
import io
import uuid as uuid_module

import pytest
import requests
from PIL import Image
from tusclient import client as tus_client

from tests.support.axe import assert_accessible
from tests.support.browser import screenshot
from tests.support.databases import ENGINES, PASSWORD, fresh_app
from tests.support.live_server import LiveServer

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def _jpeg(path) -> str:
    image = Image.new("RGB", (640, 480), (90, 110, 80))
    for x in range(0, 640, 40):
        image.paste((200, 190, 60), (x, 200, x + 20, 280))
    buf = io.BytesIO()
    image.save(buf, "JPEG", quality=85)
    path.write_bytes(buf.getvalue())
    return hashlib.sha256(buf.getvalue()).hexdigest()


class Office:
    """The served city: its URL and what the fixture made."""

    def __init__(self, url: str, app, **made):
        self.url, self.app = url, app
        self.__dict__.update(made)


@pytest.fixture(scope="module", params=ENGINES)
def served_office(request, tmp_path_factory):
    """Two parcels with open violations (one with its evidence drawn), a tap on an inspector's
    parcel, served; then, through the API, a failed inspection with its photo and a held edit."""
    from geoalchemy2.shape import from_shape, to_shape
    from shapely.geometry import LineString

    from server.core.accounts.service import create_user, issue_token
    from server.core.extensions import db
    from server.field.checklist_templates import load_templates
    from server.field.models import Assignment
    from server.network import features
    from server.network.layers import LAYERS
    from tests.support.features import SAMPLES
    from tests.support.notices import add_parcel, add_violation

    tmp = tmp_path_factory.mktemp(f"office-{request.param}")
    with fresh_app(request.param, tmp) as app:
        with app.app_context():
            boss = create_user("superintendent1", "superintendent", PASSWORD, "Sam Superintendent")
            inspector = create_user("inspector1", "inspector", PASSWORD, "Ina Inspector")
            tokens = {"boss": issue_token(boss, "pytest")[0], "inspector": issue_token(inspector, "tablet")[0]}
            load_templates()
            weiss = add_parcel(owner="JOSEPH WEISS")
            shown = add_violation(weiss)
            x0, y0, x1, _ = to_shape(weiss.geom).bounds  # a lateral from the house to the street
            shown.evidence = from_shape(LineString([((x0 + x1) / 2, y0 + 0.0001), ((x0 + x1) / 2, y0 - 0.0001)]),
                                        srid=4326)
            sobotta = add_parcel(owner="MARGARET SOBOTTA")
            add_violation(sobotta, "TAP-SADDLE", "§ 315-9B", "Tap made without a saddle")
            geometry, props = SAMPLES["parcels"]
            _, assigned, _ = features.create_feature(LAYERS["parcels"], geometry,
                                                     {**props, "parcel_number": "206-00901-0000"}, None)
            _, lateral, _ = features.create_feature(LAYERS["laterals"], SAMPLES["laterals"][0],
                                                    {**SAMPLES["laterals"][1], "parcel_id": assigned}, None)
            _, tap, _ = features.create_feature(LAYERS["taps"], SAMPLES["taps"][0],
                                                {**SAMPLES["taps"][1], "lateral_id": lateral}, None)
            db.session.add(Assignment(inspector_id=inspector.id, parcel_id=assigned, template_id="clear-water-survey"))
            made = {"violation": shown.id, "weiss": weiss.id, "sobotta_number": sobotta.parcel_number,
                    "tap": tap, "assigned": assigned}
            db.session.commit()
        with LiveServer(app) as server:
            _field_work(server.url, tokens, made, tmp)
            yield Office(server.url, app, **made)


def _field_work(url: str, tokens: dict, made: dict, tmp) -> None:
    """A failed clear-water survey with its photo, and a stale tap edit held for the superintendent."""
    inspector = {"Authorization": f"Bearer {tokens['inspector']}"}
    boss = {"Authorization": f"Bearer {tokens['boss']}"}
    photo = tmp / "sump.jpg"
    digest = _jpeg(photo)
    entry = {"source": "sump_pump", "discharges_to": "sanitary_sewer", "connected_to_sanitary": "yes",
             "test": "dye", "test_result": "positive", "photo": [digest]}
    data = {"template_id": "clear-water-survey", "template_version": 1, "parcel_id": made["assigned"],
            "location": {"type": "Point", "coordinates": [-91.50095, 44.25305]},
            "started_at": "2026-11-30T09:00:00-06:00", "finished_at": "2026-11-30T09:20:00-06:00",
            "answers": {"access": "granted", "sources": [entry]},
            "photos": [{"sha256": digest, "item_id": "sources.photo", "filename": "sump.jpg"}]}
    inspection = str(uuid_module.uuid4())
    pushed = requests.post(f"{url}/api/v1/sync/push", headers=inspector, timeout=60, json={"records": [
        {"uuid": inspection, "kind": "inspection", "data": data}]}).json()["results"][0]
    assert pushed["status"] == 201, pushed
    tus_client.TusClient(f"{url}/api/v1/uploads", headers=inspector).uploader(
        str(photo), chunk_size=64 * 1024,
        metadata={"filename": "sump.jpg", "sha256": digest, "inspection_uuid": inspection,
                  "item_id": "sources.photo"}).upload()

    def edit(headers, **props):
        rec = {"uuid": str(uuid_module.uuid4()), "kind": "feature_edit",
               "data": {"layer": "taps", "id": made["tap"], "base_version": 1, "properties": props}}
        return requests.post(f"{url}/api/v1/sync/push", headers=headers, timeout=60,
                             json={"records": [rec]}).json()["results"][0]

    assert edit(boss, clock_position=11.5)["status"] == 201
    held = edit(inspector, method="saddle")
    assert held["code"] == "stale_version", held
    made["conflict"] = held["conflict_id"]


@pytest.fixture
def superintendent(chromium, served_office):
    context = chromium.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda exc: page.errors.append(str(exc)))
    page.goto(f"{served_office.url}/login")
    page.fill("input[name=username]", "superintendent1")
    page.fill("input[name=password]", PASSWORD)
    page.keyboard.press("Enter")
    page.wait_for_url(f"{served_office.url}/")
    yield page
    assert page.errors == []
    context.close()


def test_superintendent_runs_the_rules_filters_opens_and_waives(superintendent, served_office):
    page = superintendent
    page.click("nav >> text=Rules")
    page.wait_for_url("**/rules/")
    assert page.locator(f"tr[data-violation='{served_office.violation}']").count() == 1
    assert_accessible(page, "rules and violations")

    # Keyboard: focus the button, press Enter; the progress shows, then the counts.
    page.focus("#run-button")
    page.keyboard.press("Enter")
    page.wait_for_selector("#run-progress:not([hidden])")
    page.locator("#run-status", has_text="Checked").wait_for()
    assert "violations opened" in page.inner_text("#run-status")
    # The bar went rule by rule (its maximum is the number of rules) and ended full.
    rules = page.locator("input[name=rule]").count()
    assert page.eval_on_selector("#run-bar", "bar => [bar.max, bar.value]") == [rules, rules]
    assert_accessible(page, "rules run finished")

    page.select_option("select[name=rule_id]", "TAP-SADDLE")
    page.fill("input[name=place]", served_office.sobotta_number)
    page.click("form.filters-row button")
    rows = page.locator("table[data-section=violations] tr[data-violation]")
    assert rows.count() == 1 and "Tap made without a saddle" in rows.inner_text()

    page.fill("input[name=opened_from]", "2026-02-01")
    page.fill("input[name=opened_to]", "2026-01-01")
    page.click("form.filters-row button")
    assert "the last day is before the first" in page.inner_text("[data-filter-errors]")
    assert_accessible(page, "violations with a filter error")

    page.goto(f"{served_office.url}/rules/violations/{served_office.violation}")
    page.wait_for_selector("#violation-map .leaflet-interactive")
    assert page.locator("#violation-map path.leaflet-interactive").count() == 2  # parcel and evidence
    assert "§ 315-13D" in page.inner_text("[data-section-cited]")
    screenshot(page, "office-violation")
    assert_accessible(page, "violation with its map")

    # An empty reason is refused by the browser (required); a real one by keyboard.
    page.focus("#waiver-reason")
    page.keyboard.type("Council variance of 2026-03-02")
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    page.wait_for_selector(".flash.ok")
    assert "is waived" in page.inner_text(".flash.ok")
    assert "Council variance of 2026-03-02" in page.inner_text("[data-waiver]")


def test_superintendent_drafts_one_parcel_and_previews_its_letter(superintendent, served_office):
    page = superintendent
    page.goto(f"{served_office.url}/rules/notices")
    assert_accessible(page, "draft notices")
    # The waived violation left Weiss's parcel nothing to notice; tick Sobotta's by keyboard.
    assert page.locator(f"tr[data-parcel='{served_office.weiss}']").count() == 0
    row = page.locator("table[data-section=waiting] tr", has_text=served_office.sobotta_number)
    box = row.locator("input[name=parcel_id]")
    box.focus()
    page.keyboard.press("Space")
    assert box.is_checked()
    page.click("button[name=draft]")
    page.wait_for_selector(".flash.ok")
    assert "Drafted 1 notice" in page.inner_text(".flash.ok")

    link = page.locator("table[data-section=drafts] a", has_text="Preview the letter").first
    link.focus()
    page.keyboard.press("Enter")
    page.wait_for_url("**/preview")
    assert "No later than" in page.inner_text("[data-deadline]")
    assert "Tap made without a saddle" in page.inner_text("[data-findings]")
    assert_accessible(page, "letter preview")
    pdf = page.context.request.get(f"{served_office.url}{page.get_attribute('[data-preview-pdf]', 'href')}")
    assert pdf.ok and pdf.body().startswith(b"%PDF")
    assert page.locator("a", has_text="Approve on the notice desk").count() == 1


def test_superintendent_reviews_an_inspection_and_accepts_a_held_edit(superintendent, served_office):
    page = superintendent
    page.click("nav >> text=Review")
    page.wait_for_url("**/review/")
    card = page.locator("li.inspection").first
    assert card.locator("[data-result=fail]").inner_text() == "Fail"
    thumb = page.locator(".photos img").first
    assert thumb.evaluate("img => img.decode().then(() => img.naturalWidth)") > 0  # served by /api/v1/photos
    assert_accessible(page, "review")
    screenshot(page, "office-review", full_page=True)

    row = page.locator(f"tr[data-conflict='{served_office.conflict}']")
    assert "saddle" in row.inner_text()
    row.locator("button", has_text="Accept").focus()
    page.keyboard.press("Enter")
    page.wait_for_selector(".flash.ok")
    assert "accepted and applied" in page.inner_text(".flash.ok")
    assert page.locator(f"tr[data-conflict='{served_office.conflict}']").count() == 0
    assert_accessible(page, "review after a decision")

    # Portrait tablet: the pages reflow, nothing scrolls sideways but the tables' own boxes.
    page.set_viewport_size({"width": 768, "height": 1024})
    for path in ("/review/", "/rules/", f"/rules/violations/{served_office.violation}", "/rules/notices"):
        page.goto(f"{served_office.url}{path}")
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), path
        assert_accessible(page, f"{path} at 768 px")


def test_an_inspector_is_refused_the_office_pages(chromium, served_office):
    context = chromium.new_context()
    page = context.new_page()
    page.goto(f"{served_office.url}/login?next=/rules/")
    page.fill("input[name=username]", "inspector1")
    page.fill("input[name=password]", PASSWORD)
    # Wait for the login's redirect to land on /rules/ (a load-state wait can return
    # before the form's navigation has begun, reading the login page itself).
    with page.expect_navigation(url=f"{served_office.url}/rules/"):
        page.keyboard.press("Enter")
    assert "superintendent" in page.inner_text("main")
    assert page.locator("nav a", has_text="Rules").count() == 0
    assert_accessible(page, "refused")
    context.close()
