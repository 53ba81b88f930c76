"""The survey map and the dashboard at the viewports the city's staff use (a laptop, a
small laptop, a tablet upright): the filter column beside the map, not under it; the
legend on the map, each state with its pattern and its name; bars that show small
classes; and axe-core finding nothing critical or serious."""

from __future__ import annotations

import pytest

from tests.support.axe import assert_accessible
from tests.support.browser import screenshot

pytestmark = [pytest.mark.browser, pytest.mark.slow]

VIEWPORTS = [(1280, 800), (1024, 768), (768, 1024)]


@pytest.fixture(params=VIEWPORTS, ids=lambda v: f"{v[0]}x{v[1]}")
def viewport_page(request, staff_page):
    width, height = request.param
    staff_page.set_viewport_size({"width": width, "height": height})
    return staff_page


def _box(page, selector: str) -> dict:
    return page.locator(selector).first.evaluate(
        "e => { const r = e.getBoundingClientRect(); return {left: r.left, right: r.right, top: r.top,"
        " bottom: r.bottom, width: r.width, height: r.height}; }")


def test_the_map_page_fits_the_window_with_the_filters_beside_the_map(viewport_page, served_city):
    page = viewport_page
    page.goto(f"{served_city.url}/map")
    page.wait_for_function("() => Number(document.body.dataset.parcelsLoaded || 0) > 0")
    width, height = page.viewport_size["width"], page.viewport_size["height"]
    sidebar, map_box = _box(page, ".sidebar"), _box(page, "#map")
    assert sidebar["right"] <= map_box["left"] + 1  # side by side
    assert map_box["width"] >= width * 0.55 and map_box["bottom"] <= height + 1
    # Nothing in the filter column reaches under the map, and the page itself does not scroll.
    widest = page.evaluate("() => Math.max(...[...document.querySelectorAll('.sidebar *')]"
                           ".filter(e => e.getClientRects().length).map(e => e.getBoundingClientRect().right))")
    assert widest <= sidebar["right"] + 0.5
    assert page.evaluate("() => document.querySelector('.sidebar').scrollWidth <= "
                         "document.querySelector('.sidebar').clientWidth")
    assert page.evaluate("() => document.documentElement.scrollHeight") <= height
    # Every filter can be reached by scrolling the column.
    page.locator("#filters-clear").scroll_into_view_if_needed()
    clear = _box(page, "#filters-clear")
    assert sidebar["left"] <= clear["left"] and clear["right"] <= sidebar["right"] and clear["bottom"] <= height
    screenshot(page, f"map-layout-{width}x{height}-{served_city.kind}")


def test_the_legend_on_the_map_names_each_state_with_its_pattern(viewport_page, served_city):
    from server.office import survey

    page = viewport_page
    page.goto(f"{served_city.url}/map")
    page.wait_for_function("() => Number(document.body.dataset.parcelsLoaded || 0) > 0")
    # On a small screen the legend starts folded (issue 34); open, it names each state.
    assert page.evaluate("() => document.getElementById('map-legend').open") == (page.viewport_size["width"] > 1000)
    page.evaluate("() => { document.getElementById('map-legend').open = true; }")
    legend, map_box = _box(page, "#map-legend"), _box(page, "#map")
    assert map_box["left"] <= legend["left"] and legend["right"] <= map_box["right"]
    assert map_box["top"] <= legend["top"] and legend["bottom"] <= map_box["bottom"]
    items = page.locator("#map-legend li")
    assert items.evaluate_all("els => els.map(e => [e.dataset.state, e.innerText.trim()])") == [
        [s.key, s.label] for s in survey.SURVEY_STATES]
    # Each swatch fills with the state's pattern: its colour, and marks that differ state to state.
    patterns = page.evaluate("""() => [...document.querySelectorAll('.pattern-defs pattern')].map(p =>
        [p.id, p.querySelector('rect').getAttribute('fill'), p.dataset.pattern, p.children.length])""")
    assert [(pid, fill) for pid, fill, _, _ in patterns] == [(f"state-{s.key}", s.colour) for s in survey.SURVEY_STATES]
    marked = [kind for _, _, kind, children in patterns if children > 1]
    assert len(marked) == len(set(marked)) == len(survey.SURVEY_STATES) - 2  # all but the two plain ones
    assert items.first.locator("rect").get_attribute("fill") == f"url(#state-{survey.SURVEY_STATES[0].key})"
    # The parcels draw with the same patterns, and their tooltips name the state in words.
    fills = set(page.evaluate("() => window.lateralSurveyParcels.getLayers().map(l => l._path.getAttribute('fill'))"))
    assert fills and fills <= {f"url(#state-{s.key})" for s in survey.SURVEY_STATES}
    # The meanings, in the filter column.
    for s in survey.SURVEY_STATES:
        assert page.inner_text(f"#meaning-{s.key}") == s.meaning
    assert_accessible(page, f"survey map {page.viewport_size}")


def test_the_legend_folds_away(staff_page, served_city):
    page = staff_page
    page.goto(f"{served_city.url}/map")
    page.click("#map-legend summary")
    assert not page.locator("#map-legend li").first.is_visible()
    page.keyboard.press("Enter")  # the summary keeps the focus: the keyboard opens it again
    assert page.locator("#map-legend li").first.is_visible()


def test_the_dashboard_shows_small_classes_and_passes_axe(viewport_page, served_city):
    page = viewport_page
    page.goto(f"{served_city.url}/dashboard")
    rows = page.locator("table.bars").first.locator("tr")
    widths = rows.evaluate_all("""rows => rows.map(r => [Number(r.querySelector('.n').textContent.replace(/,/g, '')),
        r.querySelector('.bar-fill') ? r.querySelector('.bar-fill').getBoundingClientRect().width : 0])""")
    top = max(w for _, w in widths)
    for count, width in widths:
        if count:
            assert width >= 6 and width >= top * 0.04 - 0.5, (count, width)  # a bar, never a hairline
        else:
            assert width == 0
    assert page.evaluate("() => document.documentElement.scrollWidth") <= page.viewport_size["width"]
    assert_accessible(page, f"dashboard {page.viewport_size}")
    screenshot(page, f"dashboard-{page.viewport_size['width']}x{page.viewport_size['height']}-{served_city.kind}",
               full_page=True)
