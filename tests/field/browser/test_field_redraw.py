"""The field app redraws a screen without blanking it.

Each screen is drawn off the page and replaces the one on show only once whole
(``route()`` in ``offline_client/web/js/main.js``). A MutationObserver on ``#view``
records every moment the view held no drawn screen: after a sync, on a tap to another
screen, never. The map on Today, drawn off the page, still frames the parcels once
shown; a slow render of a route left behind never covers the newer one; a screen whose
drawing fails says so instead of leaving the old one up. A sync's redraw waits while
someone is typing into a form on the screen (what they typed and the focus stay) and
comes when they finish; it keeps what the person opened (a ``<details>``), where the
page was scrolled and the map zoomed, while another screen starts fresh; a screen taken
off the page lets its Leaflet map go.
"""

from __future__ import annotations

import re

from tests.support.field_app import call, expect_pill, log_in_and_pull, superintendent_assigned

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


def test_a_redraw_never_blanks_the_screen(field_city, tablet):
    context, page, errors = tablet
    page.set_viewport_size({"width": 768, "height": 600})  # portrait, Today taller than the screen
    log_in_and_pull(page, field_city)
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
    page.click(f".parcel-card[data-parcel='{field_city.assignments[0]['parcel_id']}']")
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


def test_a_slow_older_route_never_covers_the_newer_one(field_city, tablet):
    context, page, errors = tablet
    page.route(OUTBOX_MODULE, hooked_outbox)
    log_in_and_pull(page, field_city)
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


def test_a_screen_that_fails_to_draw_says_so(field_city, tablet):
    context, page, errors = tablet
    page.route(OUTBOX_MODULE, hooked_outbox)
    log_in_and_pull(page, field_city)
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


def synced(page) -> None:
    """Sync now and wait until that sync has ended, pulled data in (its redraw is asked for then)."""
    before = page.evaluate("() => window.lateralField.state.lastSyncAt")
    page.evaluate("() => window.lateralField.syncNow()")
    page.wait_for_function(
        "t => window.lateralField.state.lastSyncAt !== t && window.lateralField.state.phase === 'idle'", arg=before)


def redraw_held_or_done(page) -> None:
    """Wait until the redraw the sync asked for is on show, or waits with its note."""
    page.wait_for_function("""() => {
        const note = document.getElementById('redraw-note');
        return (note && !note.hidden) || document.querySelector('#view > .screen:not([data-old])') !== null;
    }""")


def moved_at_the_office(city, admin_token: str, tap_id: int, clock: float) -> None:
    """The office sets the tap's clock position: the next pull brings the change."""
    _, headers, _ = call(city, "GET", f"/taps/{tap_id}", admin_token)
    status, _, _ = call(city, "PATCH", f"/taps/{tap_id}", admin_token,
                        {"type": "Feature", "properties": {"clock_position": clock}},
                        {"If-Match": headers["ETag"], "Content-Type": "application/geo+json"})
    assert status == 200


def other_clocks(city, admin_token: str, tap_id: int) -> list[float]:
    """Clock positions the tap does not have now."""
    _, _, before = call(city, "GET", f"/taps/{tap_id}", admin_token)
    return [c for c in (9.0, 10.0, 11.0) if c != before["properties"]["clock_position"]]


def shows_clock(page, tap_id: int, clock: float) -> bool:
    text = page.locator(f"li[data-feature='taps:{tap_id}']").inner_text()
    return re.search(rf"clock {clock:g}(?![\d.])", text) is not None


def test_a_sync_redraw_waits_for_what_is_being_typed(field_city, tablet):
    context, page, errors = tablet
    parcel_id = field_city.assignments[0]["parcel_id"]
    admin_token, _ = superintendent_assigned(field_city, parcel_id)

    log_in_and_pull(page, field_city, "superintendent")
    page.click(f".parcel-card[data-parcel='{parcel_id}']")
    tap = page.locator("li[data-feature^='taps:']").first
    tap_id = int(tap.get_attribute("data-feature").split(":")[1])
    note = page.locator("#redraw-note")
    first, second = other_clocks(field_city, admin_token, tap_id)[:2]

    # Halfway through a correction, a sync brings the office's newer position of the tap.
    tap.locator("button", has_text="Correct").click()
    clock = page.locator("input[name='clock_position']")
    clock.fill("2.5")
    moved_at_the_office(field_city, admin_token, tap_id, first)
    mark_screen(page)
    synced(page)
    redraw_held_or_done(page)
    # What was typed and the focus are still there; the screen waits, and says so.
    assert clock.input_value() == "2.5"
    assert page.evaluate("() => document.activeElement.name") == "clock_position"
    assert page.locator("#view > .screen:not([data-old])").count() == 0
    assert note.is_visible()
    assert "updates when you finish" in note.inner_text()
    assert not shows_clock(page, tap_id, first)
    # Tapping elsewhere leaves the typed value: still waiting.
    page.click(".parcel-head h1")
    assert clock.input_value() == "2.5" and note.is_visible()
    # Cancelled: the newer data shows at once, the note goes.
    page.click("form.correction button:has-text('Cancel')")
    next_screen(page)
    assert shows_clock(page, tap_id, first)
    assert note.is_hidden()

    # A field with the focus, nothing typed: the redraw waits until the focus leaves it.
    tap = page.locator(f"li[data-feature='taps:{tap_id}']")
    tap.locator("button", has_text="Correct").click()
    clock.focus()
    moved_at_the_office(field_city, admin_token, tap_id, second)
    mark_screen(page)
    synced(page)
    redraw_held_or_done(page)
    assert page.evaluate("() => document.activeElement.name") == "clock_position"
    assert note.is_visible()
    page.click(".parcel-head h1")
    next_screen(page)
    assert shows_clock(page, tap_id, second)
    assert note.is_hidden()

    # A tap to another screen goes at once, as always.
    tap.locator("button", has_text="Correct").click()
    clock.fill("4")
    mark_screen(page)
    synced(page)
    redraw_held_or_done(page)
    assert note.is_visible()
    page.click("a.back")
    page.wait_for_selector(".parcel-card")
    assert note.is_hidden()
    assert errors == []


def zoomed_in(page) -> None:
    """Tap the map's +, and wait until the zoom is over (Leaflet ends it a frame later)."""
    before = map_view(page)
    page.click("#map .leaflet-control-zoom-in")
    page.wait_for_function("""t => document.querySelector('#map .leaflet-proxy').style.transform !== t
        && !document.querySelector('#map .leaflet-zoom-anim')""", arg=before)
    page.evaluate("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")


def test_a_sync_redraw_keeps_what_the_person_opened(field_city, tablet):
    context, page, errors = tablet
    page.set_viewport_size({"width": 768, "height": 600})  # portrait: a parcel is taller than the screen
    parcel_id = field_city.assignments[0]["parcel_id"]
    admin_token, _ = superintendent_assigned(field_city, parcel_id)
    log_in_and_pull(page, field_city)
    page.wait_for_selector("#map .leaflet-proxy", state="attached")
    framed = map_view(page)

    # On the parcel, the inspector opens "Another checklist" and scrolls down a little.
    page.click(f".parcel-card[data-parcel='{parcel_id}']")
    page.wait_for_selector("button[data-template='clear-water-survey']")
    other = page.locator("details.other-templates")
    assert other.get_attribute("open") is None
    page.click("details.other-templates > summary")
    assert other.get_attribute("open") == ""
    page.evaluate("() => window.scrollTo(0, 150)")
    assert page.evaluate("() => window.scrollY") == 150
    # A sync brings the office's change to the parcel's tap: the screen is redrawn with
    # it, and "Another checklist" is still open, the page where it was, the focus on it.
    tap_id = int(page.locator("li[data-feature^='taps:']").first.get_attribute("data-feature").split(":")[1])
    clock = other_clocks(field_city, admin_token, tap_id)[0]
    moved_at_the_office(field_city, admin_token, tap_id, clock)
    mark_screen(page)
    synced(page)
    next_screen(page)
    assert shows_clock(page, tap_id, clock)
    assert other.get_attribute("open") == ""
    assert page.locator("details.other-templates button[data-template='tap']").is_visible()
    assert page.evaluate("() => window.scrollY") == 150
    assert page.evaluate("() => document.activeElement.matches('details.other-templates > summary')")

    # Today, a new screen: the map frames the parcels. The inspector zooms in; a sync's
    # redraw leaves the map where they took it.
    page.click("a.back")
    page.wait_for_selector("#map .leaflet-proxy", state="attached")
    assert map_view(page) == framed
    zoomed_in(page)
    zoomed = map_view(page)
    mark_screen(page)
    synced(page)
    next_screen(page)
    page.wait_for_selector("#map .leaflet-proxy", state="attached")
    assert map_view(page) == zoomed

    # Another screen starts fresh: the parcel at the top with its list closed, Today's
    # map framing the parcels again.
    page.click(f".parcel-card[data-parcel='{parcel_id}']")
    page.wait_for_selector("button[data-template='clear-water-survey']")
    assert other.get_attribute("open") is None
    assert page.evaluate("() => window.scrollY") == 0
    page.click("a.back")
    page.wait_for_selector("#map .leaflet-proxy", state="attached")
    assert map_view(page) == framed
    assert errors == []


# Every resize listener on the window, counted as added and removed (Leaflet's map
# listens there for as long as it lives).
COUNT_RESIZE_LISTENERS = """(() => {
  const live = new Set();
  const add = window.addEventListener, remove = window.removeEventListener;
  window.addEventListener = function (type, fn, options) {
    if (type === "resize") live.add(fn);
    return add.call(this, type, fn, options);
  };
  window.removeEventListener = function (type, fn, options) {
    if (type === "resize") live.delete(fn);
    return remove.call(this, type, fn, options);
  };
  window.resizeListeners = () => live.size;
})();"""


def test_a_screen_taken_off_lets_its_map_go(field_city, tablet):
    context, page, errors = tablet
    page.add_init_script(COUNT_RESIZE_LISTENERS)
    log_in_and_pull(page, field_city)
    page.wait_for_selector("#map .leaflet-proxy", state="attached")
    page.evaluate("() => { window.firstMap = document.getElementById('map'); }")
    for _ in range(3):
        mark_screen(page)
        synced(page)
        next_screen(page)
        page.wait_for_selector("#map .leaflet-proxy", state="attached")
    assert page.evaluate("() => window.resizeListeners()") == 1  # the map on show, no other
    assert page.evaluate("() => document.querySelectorAll('.leaflet-container').length") == 1
    assert page.evaluate("() => window.firstMap._leaflet_id === undefined")  # removed (map.remove())
    # Another screen: no map left listening; back on Today, one again.
    page.click(f".parcel-card[data-parcel='{field_city.assignments[0]['parcel_id']}']")
    page.wait_for_selector("button[data-template='clear-water-survey']")
    assert page.evaluate("() => window.resizeListeners()") == 0
    page.click("a[data-tab='today']")
    page.wait_for_selector("#map .leaflet-proxy", state="attached")
    assert page.evaluate("() => window.resizeListeners()") == 1
    assert errors == []
