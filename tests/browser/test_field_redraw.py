"""The field app redraws a screen without blanking it.

Each screen is drawn off the page and replaces the one on show only once whole
(``route()`` in ``offline_client/web/js/main.js``). A MutationObserver on ``#view``
records every moment the view held no drawn screen: after a sync, on a tap to another
screen, never. The map on Today, drawn off the page, still frames the parcels once
shown; a slow render of a route left behind never covers the newer one; a screen whose
drawing fails says so instead of leaving the old one up.
"""

from __future__ import annotations

import re

from tests.browser import test_field_app
from tests.browser.test_field_app import expect_pill, log_in_and_pull

# The live server on each engine and the tablet browser profile of the field app's tests.
city = test_field_app.city
tablet = test_field_app.tablet

# Every mutation of the view (or below it) checks that a drawn screen is on show.
WATCH_VIEW = """() => {
  const view = document.getElementById("view");
  window.blanks = [];
  new MutationObserver(() => {
    const screen = view.firstElementChild;
    if (!screen || !screen.firstElementChild) window.blanks.push(location.hash);
  }).observe(view, { childList: true, subtree: true });
}"""

# The outbox module as served, with hooks a test can set: a gate its render waits at,
# an error it throws; `outboxAtGate` says a render waits there, `outboxDrawn` counts the
# renders finished.
OUTBOX_MODULE = "**/field/js/views/outbox.js"
OUTBOX_HOOKS = """export async function renderOutbox(view) {
  if (window.outboxGate) {
    window.outboxAtGate = true;
    await window.outboxGate;
  }
  if (window.outboxFails) throw new Error(window.outboxFails);
  try {
    return await drawOutbox(view);
  } finally {
    window.outboxDrawn = (window.outboxDrawn || 0) + 1;
  }
}
async function drawOutbox(view) {
"""


def hooked_outbox(route) -> None:
    response = route.fetch()
    body = response.text()
    assert "export async function renderOutbox(view) {\n" in body
    route.fulfill(response=response, body=body.replace("export async function renderOutbox(view) {\n", OUTBOX_HOOKS))


def mark_screen(page) -> None:
    """Mark the screen on show, to wait for the next one with `next_screen`."""
    page.evaluate("() => { document.querySelector('#view > .screen').dataset.old = '1'; }")


def next_screen(page) -> None:
    page.wait_for_selector("#view > .screen:not([data-old])", state="attached")


def map_view(page) -> str:
    """Leaflet's zoom proxy: its transform is the map's centre (projected) and zoom."""
    return page.eval_on_selector("#map .leaflet-proxy", "el => el.style.transform")


def test_a_redraw_never_blanks_the_screen(city, tablet):
    context, page, errors = tablet
    page.set_viewport_size({"width": 768, "height": 600})  # portrait, Today taller than the screen
    log_in_and_pull(page, city)
    page.wait_for_selector("#map .leaflet-proxy", state="attached")
    framed = map_view(page)
    page.evaluate(WATCH_VIEW)

    # A sync finishing redraws Today: the list is there at every moment, the page and
    # the map stay where they were, the view keeps the focus.
    page.evaluate("() => window.scrollTo(0, 200)")
    assert page.evaluate("() => window.scrollY") == 200
    mark_screen(page)
    page.evaluate("() => window.lateralField.syncNow()")
    next_screen(page)
    assert page.locator(".parcel-card").count() == 4
    assert page.evaluate("() => window.blanks") == []
    assert page.evaluate("() => window.scrollY") == 200
    assert page.evaluate("() => document.activeElement.id") == "view"
    # Drawn off the page, the map still frames the parcels once shown, as on first draw.
    assert map_view(page) == framed
    width = page.eval_on_selector("#map", "el => el.clientWidth")
    assert page.eval_on_selector("#map canvas", "el => el.width") >= width  # the renderer knows its size

    # Another screen starts at the top, and nothing blank shows on the way.
    mark_screen(page)
    page.click(f".parcel-card[data-parcel='{city.assignments[0]['parcel_id']}']")
    next_screen(page)
    page.wait_for_selector("button[data-template='clear-water-survey']")
    assert page.evaluate("() => window.scrollY") == 0
    mark_screen(page)
    page.click("a[data-tab='outbox']")
    next_screen(page)
    mark_screen(page)
    page.click("#sync-now")  # the outbox redraws when the sync is in
    next_screen(page)
    expect_pill(page, "All sent")
    mark_screen(page)
    page.click("a[data-tab='today']")
    next_screen(page)
    assert page.locator(".parcel-card").count() == 4
    # Landscape: the list beside the map scrolls by itself, and keeps its place too.
    page.set_viewport_size({"width": 1024, "height": 600})
    page.eval_on_selector(".today-list", "el => { el.scrollTop = 120; }")
    assert page.eval_on_selector(".today-list", "el => el.scrollTop") == 120
    mark_screen(page)
    page.evaluate("() => window.lateralField.syncNow()")
    next_screen(page)
    assert page.eval_on_selector(".today-list", "el => el.scrollTop") == 120
    assert page.evaluate("() => window.blanks") == []
    assert errors == []


def test_a_slow_older_route_never_covers_the_newer_one(city, tablet):
    context, page, errors = tablet
    page.route(OUTBOX_MODULE, hooked_outbox)
    log_in_and_pull(page, city)
    page.evaluate("() => { window.outboxGate = new Promise((resolve) => { window.openGate = resolve; }); }")
    mark_screen(page)
    page.click("a[data-tab='outbox']")
    page.wait_for_function("() => window.outboxAtGate")  # its render waits at the gate
    page.click("a[data-tab='today']")
    next_screen(page)
    page.wait_for_selector(".parcel-card")
    mark_screen(page)
    drawn = page.evaluate("() => window.outboxDrawn || 0")
    page.evaluate("() => { window.outboxGate = null; window.openGate(); }")
    page.wait_for_function("n => window.outboxDrawn > n", arg=drawn)  # the outbox's render is done
    assert page.locator("#view > .screen[data-old]").count() == 1  # Today, still on show
    assert page.locator(".parcel-card").count() == 4
    assert page.locator(".outbox-item, #sync-now").count() == 0
    assert errors == []


def test_a_screen_that_fails_to_draw_says_so(city, tablet):
    context, page, errors = tablet
    page.route(OUTBOX_MODULE, hooked_outbox)
    log_in_and_pull(page, city)
    page.evaluate("() => { window.outboxFails = 'the outbox store is unreadable'; }")
    mark_screen(page)
    page.click("a[data-tab='outbox']")
    next_screen(page)
    alert = page.locator("#view .form-error[role=alert]")
    assert alert.inner_text() == "This screen could not be drawn: the outbox store is unreadable"
    assert page.locator(".parcel-card").count() == 0  # Today is not left up as if nothing happened
    # And on the console, as any uncaught error.
    assert [e for e in errors if not re.search("the outbox store is unreadable", e)] == []
    assert errors
