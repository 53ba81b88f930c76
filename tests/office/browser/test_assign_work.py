"""Assign work in Chromium, as the superintendent: parcels picked by click, by a drawn
rectangle and polygon, by the filters and by the keyboard alone; a refused form; reassign
and unassign; each state checked by axe-core."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select

from server.core.accounts.models import User
from server.core.extensions import db
from server.field.models import Assignment
from tests.support.axe import assert_accessible
from tests.support.browser import screenshot, superintendent_page
from tests.support.city_calendar import city_today

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture
def assign_page(chromium, own_served_city):
    """The superintendent on /assign/ with the checklists loaded and the parcels drawn, in
    this module's own city (its tests assign work and change logins)."""
    from server.field import checklist_templates as checklists

    with superintendent_page(chromium, own_served_city.url) as staff_page:
        with own_served_city.app.app_context():
            checklists.load_templates()
            db.session.commit()
        staff_page.goto(f"{own_served_city.url}/assign/")
        staff_page.wait_for_function("() => Number(document.body.dataset.parcelsLoaded || 0) > 0", timeout=20000)
        yield staff_page


def _selected(page) -> int:
    return int(page.evaluate("document.body.dataset.selected || '0'"))


def _assignments(city, *where) -> list[tuple]:
    with city.app.app_context():
        rows = db.session.execute(select(Assignment.parcel_id, Assignment.inspector_id, Assignment.template_id,
                                         Assignment.due_on, Assignment.status).where(*where)).all()
        db.session.remove()
        return [tuple(r) for r in rows]


def _user_id(city, username: str) -> int:
    with city.app.app_context():
        uid = db.session.scalar(select(User.id).where(User.username == username))
        db.session.remove()
        return uid


def _parcel_centre(page, index: int) -> tuple[float, float]:
    box = page.locator("#map .leaflet-overlay-pane path").nth(index).bounding_box()
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def test_superintendent_assigns_by_click_area_and_filters(assign_page, own_served_city):
    page = assign_page
    assert_accessible(page, "assign work: nothing selected")
    map_box = page.locator("#map").bounding_box()

    # A click on a parcel picks it; a second click drops it; a third picks it again.
    x, y = _parcel_centre(page, 0)
    page.mouse.click(x, y)
    assert _selected(page) == 1
    page.mouse.click(x, y)
    assert _selected(page) == 0
    page.mouse.click(x, y)
    assert _selected(page) == 1

    # A rectangle dragged over the middle of the map adds the parcels whose centre is in it.
    page.click("#draw-rectangle")
    assert page.get_attribute("#draw-rectangle", "aria-pressed") == "true"
    cx, cy = map_box["x"] + map_box["width"] / 2, map_box["y"] + map_box["height"] / 2
    page.mouse.move(cx - 120, cy - 90)
    page.mouse.down()
    page.mouse.move(cx + 120, cy + 90, steps=5)
    page.mouse.up()
    after_rectangle = _selected(page)
    assert after_rectangle > 1
    assert "Rectangle drawn:" in page.inner_text("#map-status")

    # A triangle drawn corner by corner, closed with Enter.
    page.click("#draw-polygon")
    for dx, dy in [(-400, -200), (-200, -200), (-300, -110)]:
        page.mouse.click(cx + dx, cy + dy)
    page.keyboard.press("Enter")
    assert "Polygon drawn:" in page.inner_text("#map-status")
    assert _selected(page) > after_rectangle
    # artifacts/screenshots/assign-work.png; docs/img/assign-work.png is a copy made by hand
    screenshot(page, "assign-work")
    assert page.get_attribute("#draw-polygon", "aria-pressed") == "false"
    assert_accessible(page, "assign work: parcels selected")

    # The filters: only parcels not visited, then every one of them in view.
    for box in page.locator("#filters input[name=state]").all():
        if box.get_attribute("value") != "not_visited":
            box.uncheck()
    page.wait_for_function("() => document.getElementById('filter-status').textContent.includes('match')")
    page.click("#select-shown")
    chosen = _selected(page)
    assert chosen > 0

    page.select_option("select[name=template_id]", "clear-water-survey")
    inspector = _user_id(own_served_city, "inspector")
    page.select_option("select[name=inspector_id]", str(inspector))
    due = city_today() + timedelta(days=14)
    page.fill("input[name=due_on]", due.isoformat())
    before = len(_assignments(own_served_city, Assignment.status == "open"))
    page.click("#assign-submit")
    page.wait_for_selector(".flash.ok")
    flash = page.inner_text(".flash.ok")
    assert f"assigned to Pat Inspector (clear-water-survey), due {due.isoformat()}" in flash
    made = _assignments(own_served_city, Assignment.status == "open", Assignment.due_on == due,
                        Assignment.template_id == "clear-water-survey")
    assert len(made) == chosen and len(_assignments(own_served_city, Assignment.status == "open")) == before + chosen
    # The inspector's load says so.
    row = page.locator(f"table[data-section=load] tr[data-inspector='{inspector}']")
    assert int(row.locator("td[data-open]").inner_text()) >= chosen
    assert_accessible(page, "assign work: assigned")
    assert page.console_errors == []


def test_a_refused_form_says_why_and_writes_nothing(assign_page, own_served_city):
    page = assign_page
    x, y = _parcel_centre(page, 3)
    page.mouse.click(x, y)
    page.select_option("select[name=template_id]", "tap")
    before = _assignments(own_served_city)
    page.click("#assign-submit")  # no inspector chosen
    page.wait_for_selector(".flash.error")
    assert "Nothing was assigned: inspector_id: no active inspector" in page.inner_text(".flash.error")
    assert page.get_attribute("select[name=inspector_id]", "aria-invalid") == "true"
    assert _selected(page) == 1  # the selection is still there to fix and resend
    assert _assignments(own_served_city) == before
    assert_accessible(page, "assign work: refused")


def test_reassign_and_unassign_from_the_list(assign_page, own_served_city):
    page = assign_page
    inspector = _user_id(own_served_city, "inspector")
    page.locator("#parcel_numbers").fill("")
    with own_served_city.app.app_context():
        from server.network.models import Parcel

        numbers = db.session.scalars(select(Parcel.parcel_number).order_by(Parcel.id.desc()).limit(2)).all()
        db.session.remove()
    page.fill("#parcel_numbers", "\n".join(numbers))
    page.select_option("select[name=template_id]", "tap")
    page.select_option("select[name=inspector_id]", str(inspector))
    page.click("#assign-submit")
    page.wait_for_selector(".flash.ok")
    ids = [int(page.locator("table[data-section=open] tr[data-assignment]", has_text=n)
               .first.get_attribute("data-assignment")) for n in numbers]

    boss = _user_id(own_served_city, "superintendent")
    row = page.locator(f"tr[data-assignment='{ids[0]}']")
    row.locator("select[name=inspector_id]").select_option(str(boss))
    row.get_by_role("button", name="Reassign").click()
    page.wait_for_selector(".flash.ok")
    assert f"Assignment {ids[0]} now goes to Sam Superintendent" in page.inner_text(".flash.ok")
    page.locator(f"tr[data-assignment='{ids[1]}']").get_by_role("button", name="Unassign").click()
    page.wait_for_selector(".flash.ok")
    assert f"Assignment {ids[1]} is called off" in page.inner_text(".flash.ok")
    assert page.locator(f"tr[data-assignment='{ids[1]}']").count() == 0
    with own_served_city.app.app_context():
        got = {a.id: (a.inspector_id, a.status)
               for a in db.session.scalars(select(Assignment).where(Assignment.id.in_(ids)))}
        db.session.remove()
    assert got == {ids[0]: (boss, "open"), ids[1]: (inspector, "cancelled")}
    assert_accessible(page, "assign work: after reassign and unassign")


def test_keyboard_only(assign_page, own_served_city):
    """Tab to the controls, pick what the filters show, type a number, choose, submit: no mouse."""
    page = assign_page
    page.locator("#filters input[name=state][value=not_visited]").focus()

    def tab_to(selector: str, limit: int = 60) -> None:
        for _ in range(limit):
            page.keyboard.press("Tab")
            if page.evaluate("(s) => document.activeElement.matches(s)", selector):
                outline = page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
                assert outline != "none", f"{selector} has no visible focus"
                return
        raise AssertionError(f"Tab never reached {selector}")

    tab_to("#select-shown")
    page.keyboard.press("Enter")
    chosen = _selected(page)
    assert chosen > 0
    tab_to("#parcel_numbers")
    tab_to("select[name=template_id]")
    page.keyboard.type("Backflow")  # typing selects the matching option
    assert page.eval_on_selector("select[name=template_id]", "s => s.value") == "backflow-valve"
    tab_to("select[name=inspector_id]")
    page.keyboard.type("Pat")
    tab_to("input[name=due_on]")
    tab_to("#assign-submit")
    before = len(_assignments(own_served_city, Assignment.template_id == "backflow-valve"))
    page.keyboard.press("Enter")
    page.wait_for_selector(".flash.ok")
    assert "assigned to Pat Inspector (backflow-valve)" in page.inner_text(".flash.ok")
    assert len(_assignments(own_served_city, Assignment.template_id == "backflow-valve")) == before + chosen
    assert_accessible(page, "assign work: after keyboard assignment")


def test_at_tablet_width_nothing_scrolls_sideways(assign_page):
    page = assign_page
    page.set_viewport_size({"width": 768, "height": 1024})
    page.reload()
    page.wait_for_function("() => Number(document.body.dataset.parcelsLoaded || 0) > 0", timeout=20000)
    assert page.evaluate("document.documentElement.scrollWidth") <= 768
    assert page.get_by_role("button", name="Log out").is_visible()
    assert_accessible(page, "assign work at 768 px")
