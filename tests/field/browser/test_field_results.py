"""The field app in a real browser, as an inspector with gloves in sunlight uses it: the
checklist's marks follow the answers, every control is named, limits show before the
answer, a finished survey is not offered again, and after sync the inspector sees what
their work led to (pass or fail, violations, notices). axe-core runs on every screen.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from tests.support.axe import assert_accessible
from tests.support.databases import ENGINES, fresh_app
from tests.support.env import need_shared
from tests.support.field_app import (
    CHUNK,
    SMALL_PHOTOS,
    City,
    answer_one_source,
    expect_pill,
    log_in_and_pull,
    new_tablet,
    screenshots,
    seed_field_city,
    start_clear_water_survey,
)
from tests.support.live_server import LiveServer

pytestmark = pytest.mark.browser


@dataclass
class NoticeCity(City):
    notice_id: int = 0
    notice_parcel: int = 0


def seed_notice(app, taken: set[int]) -> tuple[int, int]:
    """A parcel with an open violation, its drafted notice, and a reinspection of it
    assigned to the demo inspector: (notice id, parcel id)."""
    from geoalchemy2.shape import from_shape, to_shape

    from server.core.accounts.models import User
    from server.core.extensions import db
    from server.field import assignments
    from server.network.models import Parcel
    from server.notices import drafts
    from server.notices.models import Notice
    from server.rules.models import Violation

    with app.app_context():
        inspector = db.session.execute(db.select(User).filter_by(username="inspector")).scalar_one()
        boss = db.session.execute(db.select(User).filter_by(username="superintendent")).scalar_one()
        parcel = db.session.scalars(db.select(Parcel).where(Parcel.site_address.is_not(None),
                                                            Parcel.id.not_in(taken)).order_by(Parcel.id)).first()
        parcel.mailing_street, parcel.mailing_city = "412 N DETTLOFF DR", "ARCADIA"
        parcel.mailing_state, parcel.mailing_zip = "WI", "54612"
        centre = to_shape(parcel.geom).representative_point()
        db.session.add(Violation(rule_id="CLEAR-WATER", section="§ 315-13D", key=f"CLEAR-WATER:test:{parcel.id}",
                                 status="open", source="inspection", subject_type="parcel", subject_id=parcel.id,
                                 subjects=[["parcel", parcel.id]], parcel_id=parcel.id,
                                 message="Sump pump discharges to the floor drain",
                                 evidence=from_shape(centre, srid=4326)))
        db.session.flush()
        [notice] = drafts.draft_notices(boss, [parcel.id])
        assignment = assignments.create_assignment({
            "inspector_id": inspector.id, "parcel_id": parcel.id, "template_id": "reinspection",
            "reason": f"Notice {notice.id} passed its deadline: check compliance"}, boss)
        db.session.get(Notice, notice.id).reinspection_assignment_id = assignment.id
        db.session.commit()
        ids = (notice.id, parcel.id)
        db.session.remove()
    return ids


@pytest.fixture(params=ENGINES)
def notice_field_city(request, tmp_path):
    """A live server: demo city, four assignments, and a notice with its reinspection."""
    with fresh_app(request.param, tmp_path, FIELD_TUS_CHUNK_BYTES=CHUNK,
                   BLOB_STORE={"backend": "local", "root": str(tmp_path / "blobs")},
                   TUS_STAGING_DIR=str(tmp_path / "tus")) as app:
        token, made = seed_field_city(app)
        notice_id, notice_parcel = seed_notice(app, {a["parcel_id"] for a in made})
        with LiveServer(app) as server:
            yield NoticeCity(app, server.url, token, made, notice_id, notice_parcel)


@pytest.fixture
def notice_tablet(chromium, notice_field_city):
    context, page, errors = new_tablet(chromium)
    yield context, page, errors
    context.close()


def aaa_contrast(page, selectors: list[str]) -> list[dict]:
    """axe's WCAG AAA contrast rule (7:1) on the given elements; its violations."""
    return page.evaluate(
        """async (selectors) => {
            const r = await axe.run({include: selectors.map((s) => [s])},
                                    {runOnly: {type: 'rule', values: ['color-contrast-enhanced']}});
            return r.violations.map((v) => v.nodes.map((n) => n.target.join(' '))).flat();
        }""", selectors)


def test_the_marks_follow_the_answers_and_a_finished_survey_is_not_offered_again(notice_field_city, notice_tablet):
    context, page, errors = notice_tablet
    parcel_id = notice_field_city.assignments[0]["parcel_id"]
    page.goto(f"{notice_field_city.url}/field/")
    page.wait_for_selector("#username")
    assert_accessible(page, "field login")
    log_in_and_pull(page, notice_field_city)
    assert_accessible(page, "field Today (list and map)")
    # Gloves: Leaflet's zoom buttons are at least 44 px; sunlight: number, owner and due date at 7:1.
    for button in (".leaflet-control-zoom-in", ".leaflet-control-zoom-out"):
        box = page.locator(button).bounding_box()
        assert box["width"] >= 44 and box["height"] >= 44, (button, box)
    assert aaa_contrast(page, [".parcel-main .muted", ".parcel-side .due"]) == []

    start_clear_water_survey(page, parcel_id)
    page.click("#finish")  # nothing answered: the banner counts what is missing
    page.wait_for_selector(".field.invalid")
    assert "1 answer is missing" in page.inner_text(".inspection .form-error")
    assert_accessible(page, "checklist with its marks")
    # Each choice group is named by its prompt.
    group = page.locator("[data-path='access'] [role=radiogroup]")
    assert page.inner_text(f"#{group.get_attribute('aria-labelledby')}").startswith("Access to the building")
    page.click("[data-path='access'] [data-value='granted']")
    page.click("[data-add='sources']")
    # The new source's items are marked as soon as they are asked, and cleared as answered.
    page.wait_for_selector("[data-path='sources.0.source'].invalid")
    marked = page.locator(".field.invalid").count()
    assert f"{marked} answers are missing" in page.inner_text(".inspection .form-error")
    page.click("[data-path='sources.0.source'] [data-value='sump_pump']")
    assert page.locator(".field.invalid").count() == marked - 1
    page.on("dialog", lambda d: d.accept())
    page.click(".entry .btn.link.danger")  # remove the source again
    page.click("[data-path='access'] [data-value='refused']")
    page.wait_for_function("() => document.querySelectorAll('.field.invalid').length === 0")
    assert page.locator(".inspection .form-error").is_hidden()
    assert page.locator("[data-path='refusal_notes'] textarea").get_attribute("id") == \
        page.locator("[data-path='refusal_notes'] label.prompt").get_attribute("for")
    assert_accessible(page, "checklist answered")

    page.click("#finish")
    page.wait_for_selector("#finished")
    # No big button inviting a duplicate: a second survey is a worded, secondary action.
    assert page.locator(".start button.btn.primary").count() == 0
    assert page.text_content("details.other-templates #start-again") == "Start a second clear-water survey"
    # Sent and pulled again: the server has completed the assignment and the pull drops it
    # from the open ones. The page still shows the survey finished, with no big button.
    # (A sync already running when asked makes syncNow a no-op: ask again until it pulled.)
    page.wait_for_function("""() => {
        const field = window.lateralField;
        const assigned = document.querySelector('.parcel .assignment');
        if (assigned && field.state.phase !== 'syncing') field.syncNow();
        return !assigned && document.querySelector('#finished .chip.good') !== null;
    }""", polling=1000, timeout=60000)
    assert page.locator(".start button.btn.primary").count() == 0
    assert page.text_content("details.other-templates #start-again") == "Start a second clear-water survey"
    assert_accessible(page, "parcel page after Finish")
    screenshots(page, "field-parcel-finished")
    assert errors == []


def test_after_sync_the_inspector_sees_the_result_the_violation_and_shared_photos_stored(notice_field_city, chromium):
    photos = [need_shared("realdata", "photos", name) for name in SMALL_PHOTOS[:1]]
    survey_parcel = notice_field_city.assignments[0]["parcel_id"]
    tap_parcel = notice_field_city.assignments[3]["parcel_id"]

    context, page, errors = new_tablet(chromium)
    log_in_and_pull(page, notice_field_city)
    start_clear_water_survey(page, survey_parcel)
    answer_one_source(page, photos)
    page.click("#finish")
    page.wait_for_selector("#finished")
    expect_pill(page, "All sent")
    page.click("a[data-tab='outbox']")
    item = page.locator(".outbox-item[data-status='sent']")
    item.locator("[data-result='fail']").first.wait_for()
    outcome = item.locator(".outcome").inner_text()
    assert "1 violation opened: Notice to disconnect clear water from the sanitary sewer (§ 315-13D)" in outcome
    assert "a clear-water source is connected to the sanitary sewer" in outcome  # what failed
    assert_accessible(page, "outbox with a result")
    screenshots(page, "field-outbox-result")
    page.click(".outcome a")  # to the parcel: its open violation and the failed inspection
    page.wait_for_selector("#violations li[data-violation]")
    assert "§ 315-13D" in page.inner_text("#violations")
    assert "Fail" in page.inner_text("#history")
    assert_accessible(page, "parcel page with violations")
    context.close()

    # Another tablet: a tap inspection with the same photo, which the server already holds.
    context, page, errors2 = new_tablet(chromium)
    log_in_and_pull(page, notice_field_city)
    page.click(f".parcel-card[data-parcel='{tap_parcel}']")
    page.click("button[data-template='tap']")
    page.wait_for_selector("[data-path='permit_number'] input[type=text]")  # one line, not a text area
    assert page.locator("[data-path='permit_number'] textarea").count() == 0
    hint = page.inner_text("[data-path='joint_distance_in'] .hint")
    assert hint == "§ 315-13B(2) allows at least 6 in"
    na = page.locator("[data-path='material_matches_main'] [data-value='na']")
    assert na.inner_text() == "N/A"
    assert_accessible(page, "tap checklist")
    page.fill("[data-path='permit_number'] input", "T-2026-118")
    page.click("[data-path='method'] [data-value='saddle']")
    na.click()
    page.fill("[data-path='clock_position'] input", "12")
    page.fill("[data-path='joint_distance_in'] input", "4")
    page.fill("[data-path='connection_distance_in'] input", "30")
    page.click("[data-path='ground_frozen'] [data-value='no']")
    page.set_input_files("input[type=file][data-path='tap_photo']", [str(p) for p in photos])
    page.wait_for_selector("[data-path='tap_photo'] .thumb img")
    screenshots(page, "field-tap-checklist")
    page.click("#finish")
    page.wait_for_selector("#finished")
    expect_pill(page, "All sent")
    page.click("a[data-tab='outbox']")
    item = page.locator(".outbox-item[data-status='sent']")
    item.locator("[data-result='fail']").first.wait_for()
    assert item.locator("figcaption").all_inner_texts() == ["✓ stored"]
    assert ("answered 4 in; § 315-13B(2) allows at least 6 in") in item.inner_text()
    context.close()
    assert errors == [] and errors2 == []


def test_a_reinspection_knows_its_notice_and_rule(notice_field_city, notice_tablet):
    context, page, errors = notice_tablet
    log_in_and_pull(page, notice_field_city)
    page.click(f".parcel-card[data-parcel='{notice_field_city.notice_parcel}']")
    notice = page.locator(f"#notices li[data-notice='{notice_field_city.notice_id}']")
    notice.wait_for()
    assert notice.locator(".notice-state").inner_text() == "Draft"  # the notice's state, as the API sends it
    assert "§ 315-13D" in page.inner_text("#violations")
    page.click("button[data-template='reinspection']")
    page.wait_for_selector("[data-path='violation_rule']")
    assert page.input_value("[data-path='notice_reference'] textarea") == f"Notice {notice_field_city.notice_id}"
    chosen = page.locator("[data-path='violation_rule'] [aria-checked='true']")
    assert chosen.get_attribute("data-value") == "CW-DISCONNECT-60"
    assert chosen.inner_text() == "Notice to disconnect clear water from the sanitary sewer — § 315-13D"
    labels = page.locator("[data-path='violation_rule'] .choice").all_inner_texts()
    assert not any(text.isupper() and "-" in text for text in labels), labels  # names, not raw codes
    assert_accessible(page, "reinspection checklist")
    screenshots(page, "field-reinspection")
    assert errors == []


def test_a_correction_form_is_accessible(notice_field_city, notice_tablet):
    from server.core.accounts.models import User
    from server.core.extensions import db
    from server.field import assignments

    context, page, errors = notice_tablet
    parcel_id = notice_field_city.assignments[0]["parcel_id"]
    with notice_field_city.app.app_context():
        boss = db.session.execute(db.select(User).filter_by(username="superintendent")).scalar_one()
        assignments.create_assignment({"inspector_id": boss.id, "parcel_id": parcel_id,
                                       "template_id": "clear-water-survey"}, boss)
        db.session.commit()
        db.session.remove()
    log_in_and_pull(page, notice_field_city, "superintendent")
    page.click(f".parcel-card[data-parcel='{parcel_id}']")
    page.locator("li[data-feature^='taps:'] button", has_text="Correct").first.click()
    page.wait_for_selector("input[name='clock_position']")
    assert_accessible(page, "correction form")
    assert errors == []
