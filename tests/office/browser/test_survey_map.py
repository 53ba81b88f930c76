"""The survey map and the dashboard in Chromium: drawn, clickable, filtered, and true to
the database."""

from __future__ import annotations

import hashlib
import uuid as uuid_module
from dataclasses import dataclass
from datetime import timedelta

import pytest
import requests
from sqlalchemy import func, select

from server.core.extensions import db
from server.field.models import Inspection
from server.network.models import ClearWaterFinding, Parcel
from server.notices.models import Notice
from server.rules.models import Violation
from tests.support.browser import screenshot
from tests.support.city_calendar import city_today
from tests.support.notices import approved_by

pytestmark = [pytest.mark.browser, pytest.mark.slow]
INSPECTOR = "Field Inspector"


@dataclass
class FieldWork:
    """What the fixture added to the demo city: a surveyed parcel with a photo and its
    notice coming due, a parcel whose owner refused access and its notice, overdue; a
    parcel whose owner refused access (no notice yet) and one whose sump pump was found
    connected, its violation since waived."""

    surveyed: int  # the first parcel with a demo finding, now also inspected
    photo: str
    refused: int
    overdue_notice: int
    soon_notice: int
    turned_away: int  # access refused
    disconnected: int  # resolved


def _jpeg(path) -> str:
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (800, 600), (96, 140, 190))
    ImageDraw.Draw(image).rectangle([250, 180, 550, 420], fill=(200, 70, 40))
    image.save(path, "JPEG", quality=85)
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _push(city, headers, parcel_id, spot, answers, photos, finished) -> None:
    data = {"template_id": "clear-water-survey", "template_version": 1, "parcel_id": parcel_id,
            "location": {"type": "Point", "coordinates": spot},
            "started_at": f"{finished}T09:00:00-06:00", "finished_at": f"{finished}T09:30:00-06:00",
            "answers": answers, "photos": photos}
    r = requests.post(f"{city.url}/api/v1/sync/push", headers=headers, timeout=30,
                      json={"records": [{"uuid": str(uuid_module.uuid4()), "kind": "inspection", "data": data}]})
    assert r.json()["results"][0]["code"] == "created", r.json()


def _notice(parcel_id, mailed_days_ago, users) -> int:
    """The notice for the parcel's open violations (its inspection opened them), walked
    through the real workflow: drafted, approved, mailed, delivered."""
    from server.notices import drafts as notice_drafts
    from server.notices import mailing_record as mailings
    from server.notices.workflow import apply_event

    [notice] = notice_drafts.draft_notices(users["superintendent"], [parcel_id])
    apply_event(notice, "approve", users["superintendent"])
    approved_by([notice.id], city_today() - timedelta(days=mailed_days_ago))
    mailings.mail_notices([notice.id], users["clerk"], city_today() - timedelta(days=mailed_days_ago))
    apply_event(notice, "deliver", users["clerk"], on=city_today() - timedelta(days=mailed_days_ago - 2))
    return notice.id


@pytest.fixture(scope="module")
def field_work(served_city, tmp_path_factory) -> FieldWork:
    """An inspector's visits (over the API, the photo over tus) and the desk's notices."""
    from geoalchemy2.shape import to_shape
    from tusclient import client as tus_client

    from server.core.accounts.models import User
    from server.core.accounts.service import create_user, issue_token
    from server.field.checklist_templates import load_templates
    from server.notices.tick import tick

    with served_city.app.app_context():
        load_templates()
        token = issue_token(create_user("field-inspector", "inspector", "correct horse battery", INSPECTOR), "t")[0]
        found = select(ClearWaterFinding.parcel_id).where(ClearWaterFinding.parcel_id.is_not(None))
        surveyed = db.session.scalar(found.order_by(ClearWaterFinding.parcel_id))
        unvisited = select(Parcel.id).where(Parcel.id.not_in(found))
        refused = db.session.scalar(unvisited.order_by(Parcel.id))
        # Across the city from the others, out of the map's view of them.
        turned_away, disconnected = db.session.scalars(unvisited.order_by(Parcel.id.desc()).limit(2)).all()
        spots = {pid: list(to_shape(db.session.get(Parcel, pid).geom).representative_point().coords[0])
                 for pid in (surveyed, refused, turned_away, disconnected)}
        db.session.commit()
    headers = {"Authorization": f"Bearer {token}"}
    path = tmp_path_factory.mktemp("photo") / "sump.jpg"
    digest = _jpeg(path)
    tus_client.TusClient(f"{served_city.url}/api/v1/uploads", headers=headers).uploader(
        str(path), chunk_size=64 * 1024, metadata={"filename": "sump.jpg", "sha256": digest}).upload()
    sump = {"source": "sump_pump", "discharges_to": "sanitary_sewer", "connected_to_sanitary": "yes",
            "test": "dye", "test_result": "positive", "photo": [digest]}
    _push(served_city, headers, surveyed, spots[surveyed], {"access": "granted", "sources": [sump]},
          [{"sha256": digest, "item_id": "sources.photo", "filename": "sump.jpg"}], "2026-10-14")
    _push(served_city, headers, refused, spots[refused], {"access": "refused"}, [], "2026-10-15")
    _push(served_city, headers, turned_away, spots[turned_away], {"access": "refused"}, [], "2026-10-16")
    _push(served_city, headers, disconnected, spots[disconnected], {"access": "granted", "sources": [sump]},
          [{"sha256": digest, "item_id": "sources.photo", "filename": "sump.jpg"}], "2026-10-16")
    with served_city.app.app_context():
        from server.rules.violations import waive

        users = {u.role: u for u in db.session.scalars(select(User).where(
            User.username.in_(["superintendent", "clerk"])))}
        waive(db.session.scalar(select(Violation.id).filter_by(parcel_id=disconnected, status="open")),
              "the sump pump now discharges to the yard", users["superintendent"])
        overdue = _notice(refused, 40, users)  # SURVEY-ACCESS: 10 days from 38 days ago
        tick()  # the daily run: past its deadline, the notice is overdue
        soon = _notice(surveyed, 55, users)  # CW-DISCONNECT-60: 60 days from 53 days ago
        db.session.commit()
    return FieldWork(surveyed, digest, refused, overdue, soon, turned_away, disconnected)


def _open_map(page, served_city):
    page.goto(f"{served_city.url}/map")
    page.wait_for_function("() => Number(document.body.dataset.parcelsLoaded || 0) > 0", timeout=20000)
    page.wait_for_function("() => document.getElementById('map-status').textContent === ''", timeout=20000)


def test_map_draws_the_demo_city(staff_page, served_city):
    page = staff_page
    _open_map(page, served_city)
    loaded = int(page.evaluate("document.body.dataset.parcelsLoaded"))
    drawn = page.locator("#map path.leaflet-interactive").count()
    assert 0 < loaded <= served_city.count(Parcel)
    assert drawn >= loaded  # parcels plus the network's lines and points
    assert page.locator(".leaflet-control-layers-overlays label").count() >= 8
    screenshot(page, f"map-{served_city.kind}")
    assert page.console_errors == []


def _inside_away_from_markers(parcel, findings):
    """A point of the parcel clear of the finding markers drawn on top of it."""
    import shapely
    from shapely.ops import polylabel

    free = parcel.difference(shapely.union_all([f.buffer(0.00004) for f in findings]))
    part = max(getattr(free, "geoms", [free]), key=lambda g: g.area)
    return polylabel(part, tolerance=1e-7)


def test_clicking_a_parcel_opens_its_panel(staff_page, served_city, field_work):
    page = staff_page
    _open_map(page, served_city)
    with served_city.app.app_context():
        from geoalchemy2.shape import to_shape

        target = db.session.scalar(
            select(Parcel).join(ClearWaterFinding, ClearWaterFinding.parcel_id == Parcel.id).order_by(Parcel.id))
        address, owner = target.site_address, target.owner_name
        found = db.session.scalars(select(ClearWaterFinding).filter_by(parcel_id=target.id)).all()
        spot = _inside_away_from_markers(to_shape(target.geom), [to_shape(f.geom) for f in found])
    # Find it by address, as a clerk on the phone would ...
    page.fill("#search-q", address)
    page.click("#search button[type=submit]")
    page.locator("#search-results button").first.click()
    page.wait_for_function(f"() => document.getElementById('panel').dataset.parcelId === '{target.id}'")
    page.wait_for_function("() => document.getElementById('map-status').textContent === ''")
    page.evaluate("document.getElementById('panel').dataset.parcelId = ''")
    # ... then click the polygon itself, once the map has settled around it.
    settled = page.wait_for_function(
        """([lat, lon]) => {
             if (document.getElementById('map-status').textContent !== '') return false;
             const map = window.lateralSurveyMap, box = map.getContainer().getBoundingClientRect();
             const p = map.latLngToContainerPoint([lat, lon]);
             const x = box.left + p.x, y = box.top + p.y, hit = document.elementFromPoint(x, y);
             return hit && hit.tagName === 'path' && hit.getAttribute('stroke-width') === '3' ? [x, y] : false;
           }""", arg=[spot.y, spot.x])
    x, y = settled.json_value()
    page.mouse.click(x, y)
    page.wait_for_function(f"() => document.getElementById('panel').dataset.parcelId === '{target.id}'")
    panel = page.locator("#panel").inner_text()
    assert address in panel and owner in panel
    assert "Permits (0)" in panel  # the parcel's permit history (none here)
    assert f"Clear-water findings ({len(found)})" in panel
    assert target.id == field_work.surveyed
    # Its history: the inspector's visit with the photo, and the notice with its deadline.
    visit = page.locator("#panel .inspections li").first
    assert "Inspections (1)" in panel and INSPECTOR in visit.inner_text() and "2026-10-14" in visit.inner_text()
    with served_city.app.app_context():
        notice = db.session.get(Notice, field_work.soon_notice)
        deadline, mailed, kind = notice.deadline, notice.mailed_on, notice.kind
    shown = page.locator(f"#panel .notices li[data-notice='{field_work.soon_notice}']").inner_text()
    assert kind in shown and "delivered" in shown
    assert f"mailed {mailed.isoformat()}" in shown and f"deadline {deadline.isoformat()}" in shown
    assert f"{(deadline - city_today()).days} days left" in shown
    thumb = page.locator(f"#panel a.thumb[data-sha256='{field_work.photo}'] img")
    page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=thumb.element_handle())
    assert thumb.evaluate("img => Math.max(img.naturalWidth, img.naturalHeight)") <= 256
    page.wait_for_function("() => document.getElementById('map-status').textContent === ''")
    screenshot(page, f"map-panel-{served_city.kind}")
    # The thumbnail opens the display image; Escape closes it.
    thumb.click()
    full = page.locator("#photo-viewer[open] img")
    page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=full.element_handle())
    assert full.evaluate("img => img.naturalWidth") == 800
    screenshot(page, f"map-photo-{served_city.kind}")
    page.keyboard.press("Escape")
    page.wait_for_function("() => !document.getElementById('photo-viewer').open")
    assert page.console_errors == []


def _drawn(page, query_part: str) -> set[int]:
    """The parcel ids drawn once the parcels layer has loaded with ``query_part`` in its URL."""
    page.wait_for_function("part => (document.body.dataset.parcelsQuery || '').includes(part)", arg=query_part)
    return set(page.evaluate("window.lateralSurveyParcels.getLayers().map(l => l.feature.id)"))


def _states(served_city, ids) -> dict[int, str]:
    from server.office import survey

    with served_city.app.app_context():
        return dict(db.session.execute(select(Parcel.id, survey.state_expression())
                                       .where(Parcel.id.in_(ids))).all())


def test_filters_change_what_is_drawn(staff_page, served_city, field_work):
    from server.office import survey

    page = staff_page
    page.goto(f"{served_city.url}/map?parcel={field_work.refused}")
    page.wait_for_function(f"() => document.getElementById('panel').dataset.parcelId === '{field_work.refused}'")
    page.wait_for_function("() => document.getElementById('map-status').textContent === ''")  # settled on the parcel
    every = _drawn(page, "bbox=")
    assert field_work.refused in every and len(every) > 1
    page.select_option("#filters select[name=rule]", "SURVEY-ACCESS")
    assert _drawn(page, "rule=SURVEY-ACCESS") == {field_work.refused}
    assert "1 parcel in view matches" in page.inner_text("#filter-status")
    screenshot(page, f"map-filter-rule-{served_city.kind}")

    page.click("#filters-clear")
    page.wait_for_function("() => !(document.body.dataset.parcelsQuery || '').includes('rule=')")
    page.uncheck("#filters input[value=not_visited]")
    visited = _drawn(page, "state=")
    assert visited and visited < every
    shown = set(_states(served_city, visited).values())
    assert "notice_overdue" in shown  # the refused parcel, with its overdue notice
    assert shown <= {s.key for s in survey.SURVEY_STATES} - {"not_visited"}
    assert {pid for pid, state in _states(served_city, every).items() if state == "not_visited"} == every - visited

    page.click("#filters-clear")
    page.select_option("#filters select[name=inspector]", INSPECTOR)
    by_them = _drawn(page, "inspector=")
    assert field_work.refused in by_them and by_them <= {field_work.refused, field_work.surveyed,
                                                         field_work.turned_away, field_work.disconnected}
    page.fill("#filters input[name=visited_from]", "2026-10-15")
    page.fill("#filters input[name=visited_to]", "2026-10-14")
    page.locator("#filters input[name=visited_to]").dispatch_event("change")
    page.wait_for_function("() => document.getElementById('filter-status').textContent.includes('before it starts')")
    assert page.evaluate("window.lateralSurveyParcels.getLayers().length") == 0
    screenshot(page, f"map-filter-refused-{served_city.kind}")
    # Chromium logs the refused request itself; nothing else went wrong.
    assert len(page.console_errors) == 1 and "422" in page.console_errors[0]


@pytest.mark.parametrize("parcel, state", [("turned_away", "access_refused"), ("disconnected", "resolved")])
def test_the_legend_and_the_panel_show_the_later_states(staff_page, served_city, field_work, parcel, state):
    from server.office import survey

    page = staff_page
    pid = getattr(field_work, parcel)
    spec = next(s for s in survey.SURVEY_STATES if s.key == state)
    page.goto(f"{served_city.url}/map?parcel={pid}")
    page.wait_for_function(f"() => document.getElementById('panel').dataset.parcelId === '{pid}'")
    page.wait_for_function("() => document.getElementById('map-status').textContent === ''")
    assert page.locator("#filters input[name=state]").evaluate_all("els => els.map(e => e.value)") == [
        s.key for s in survey.SURVEY_STATES]
    assert spec.label in page.inner_text("#filters")
    badge = page.locator("#panel .state")
    assert badge.inner_text() == spec.label
    # The badge's ink is whichever of black and white reads better on the state's colour.
    assert badge.evaluate("b => getComputedStyle(b).color") == "rgb(0, 0, 0)"
    _drawn(page, "bbox=")
    assert page.evaluate("id => window.lateralSurveyParcels.getLayers().find(l => l.feature.id === id)"
                         ".options.fillColor", pid) == f"url(#state-{state})"
    assert page.get_attribute(f"#state-{state} rect", "fill") == spec.colour
    screenshot(page, f"map-panel-{state}-{served_city.kind}")
    assert page.console_errors == []


def test_dashboard_figures_match_the_database(staff_page, served_city, field_work):
    page = staff_page
    from server.office import survey

    with served_city.app.app_context():
        figures = survey.progress()
    page.goto(f"{served_city.url}/dashboard")
    assert page.inner_text("#parcels-total") == f"{served_city.count(Parcel):,}"
    surveyed = served_city.count(Parcel, Parcel.id.in_(select(ClearWaterFinding.parcel_id))
                               | Parcel.id.in_(select(Inspection.parcel_id)))
    assert page.inner_text("#surveyed") == f"{surveyed:,}" == f"{figures['surveyed']:,}"
    with served_city.app.app_context():
        state = survey.state_expression().label("state")
        by_state = dict(db.session.execute(select(state, func.count()).select_from(Parcel).group_by(state)).all())
    assert by_state["access_refused"] == by_state["resolved"] == 1
    for s in survey.SURVEY_STATES:
        assert page.text_content(f"[data-figure='state:{s.label}']") == f"{by_state.get(s.key, 0):,}"
    for row in figures["findings_by_source"]:
        expected = served_city.count(ClearWaterFinding, ClearWaterFinding.source == row["source"])
        assert page.text_content(f"[data-figure='source:{row['source']}']") == f"{expected:,}"
    with served_city.app.app_context():
        open_by_rule = dict(db.session.execute(select(Violation.rule_id, func.count()).where(
            Violation.status == "open").group_by(Violation.rule_id)).all())
        notices_by_state = dict(db.session.execute(select(Notice.state, func.count()).group_by(Notice.state)).all())
    assert "SURVEY-ACCESS" in open_by_rule
    for rule, n in open_by_rule.items():
        assert page.text_content(f"[data-figure='rule:{rule}']") == f"{n:,}"
    assert notices_by_state == {"overdue": 1, "delivered": 1}
    for state, n in notices_by_state.items():
        assert page.text_content(f"[data-figure='notice-state:{state}']") == f"{n:,}"
    assert page.locator("#deadlines-soon tr[data-notice]").evaluate_all(
        "rows => rows.map(r => Number(r.dataset.notice))") == [field_work.soon_notice]
    assert page.locator("#overdue-notices tr[data-notice]").evaluate_all(
        "rows => rows.map(r => Number(r.dataset.notice))") == [field_work.overdue_notice]
    screenshot(page, f"dashboard-{served_city.kind}", full_page=True)
    # A row's parcel opens the map on that parcel's panel.
    page.click(f"#deadlines-soon tr[data-notice='{field_work.soon_notice}'] a")
    page.wait_for_function(f"() => document.getElementById('panel').dataset.parcelId === '{field_work.surveyed}'")
    assert page.console_errors == []
