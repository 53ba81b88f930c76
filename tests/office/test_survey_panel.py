"""The parcel panel's history: inspections newest first with their photos and
corrections, and the parcel's notices with their deadlines."""

from __future__ import annotations

import pytest

from server.core.accounts.service import create_user, issue_token
from server.core.extensions import db
from server.field.models import Photo
from server.notices.models import Notice
from tests.support.city_calendar import city_today
from tests.support.notices import post
from tests.support.survey import inspect, notice_through, unvisited_parcels
from tests.support.sync import sump_pump

STORED, NOT_SENT = "b" * 64, "c" * 64


def _panel(client, headers, pid) -> dict:
    r = client.get(f"/api/v1/survey/parcels/{pid}", headers=headers)
    assert r.status_code == 200, r.get_json()
    return r.get_json()


@pytest.fixture
def corrected(client, auth, seeded_city, templates):
    """A refused visit, then its correction with two photos, one of them stored."""
    pid = unvisited_parcels(1)[0].id
    db.session.add(Photo(sha256=STORED, size=1234, format="JPEG", width=640, height=480))
    db.session.flush()
    first = inspect(client, auth, pid, access="refused")
    second = inspect(client, auth, pid, sources=[sump_pump(photo=STORED), sump_pump(connected="no", photo=NOT_SENT)],
                     replaces=first["uuid"], started_at="2026-12-01T10:00:00-06:00",
                     finished_at="2026-12-01T10:30:00-06:00")
    return pid, first, second


def test_inspections_come_newest_first_with_their_correction(client, auth, corrected):
    pid, first, second = corrected
    inspections = _panel(client, auth["superintendent"], pid)["inspections"]
    assert [i["uuid"] for i in inspections] == [second["uuid"], first["uuid"]]
    newer, older = inspections
    assert (newer["replaces"], newer["superseded_by"]) == (first["uuid"], None)
    assert (older["replaces"], older["superseded_by"]) == (None, second["uuid"])
    assert older["result"] == "fail" and [f["rule_id"] for f in older["failures"]] == ["SURVEY-ACCESS"]
    assert newer["finished_at"] == "2026-12-01T16:30:00+00:00"
    assert newer["template_title"] != newer["template_id"]  # the checklist's own title
    assert {i["inspector"] for i in inspections} == {"Test Inspector"}


def test_stored_photos_link_to_thumbnail_and_display_and_missing_ones_say_so(client, auth, corrected):
    pid, _, second = corrected
    newer = _panel(client, auth["clerk"], pid)["inspections"][0]
    stored, missing = sorted(newer["photos"], key=lambda p: p["sha256"])
    assert (stored["sha256"], stored["stored"], missing["sha256"], missing["stored"]) == (
        STORED, True, NOT_SENT, False)
    assert stored["thumbnail"] == f"/api/v1/photos/{STORED}/thumbnail"
    assert stored["display"] == f"/api/v1/photos/{STORED}/display"
    assert "thumbnail" not in missing


def test_an_inspector_sees_only_their_own_inspections(app, client, auth, corrected):
    pid = corrected[0]
    other = create_user("inspector2", "inspector", "correct horse battery", "Other Inspector")
    headers = {"Authorization": f"Bearer {issue_token(other, 'pytest')[0]}"}
    db.session.flush()
    theirs = inspect(client, {"other": headers}, pid, role="other", access="refused",
                     finished_at="2026-12-02T09:00:00-06:00")
    everyone = _panel(client, auth["superintendent"], pid)
    assert (everyone["inspections_scope"], len(everyone["inspections"])) == ("all", 3)
    own = _panel(client, headers, pid)
    assert own["inspections_scope"] == "own"
    assert [i["uuid"] for i in own["inspections"]] == [theirs["uuid"]]


def test_notices_come_newest_first_with_deadline_and_days_left(client, auth, seeded_city):
    parcel = unvisited_parcels(1)[0]
    drafted = notice_through(client, auth, parcel, mailed_days_ago=None)
    # Withdrawn, so that a second notice of the same kind is drafted for the parcel.
    assert post(client, auth, "superintendent", f"/notices/{drafted}/withdraw").status_code == 200
    delivered = notice_through(client, auth, parcel, mailed_days_ago=20, delivered_days_ago=18)
    notices = _panel(client, auth["clerk"], parcel.id)["notices"]
    assert [n["id"] for n in notices] == [delivered, drafted]
    row = db.session.get(Notice, delivered)
    newest = notices[0]
    assert (newest["kind"], newest["state"], newest["sections"]) == (row.kind, "delivered", row.sections)
    assert (newest["mailed_on"], newest["deadline"]) == (row.mailed_on.isoformat(), row.deadline.isoformat())
    assert newest["days_left"] == (row.deadline - city_today()).days > 0
    assert newest["overdue"] is False
    assert (notices[1]["state"], notices[1]["deadline"], notices[1]["days_left"]) == ("withdrawn", None, None)


def test_a_served_notice_past_its_deadline_is_flagged_before_the_tick(client, auth, seeded_city):
    parcel = unvisited_parcels(1)[0]
    notice_id = notice_through(client, auth, parcel, mailed_days_ago=120, delivered_days_ago=118)
    row = db.session.get(Notice, notice_id)
    [shown] = _panel(client, auth["clerk"], parcel.id)["notices"]
    assert (shown["state"], shown["overdue"]) == ("delivered", True)
    assert shown["days_left"] == (row.deadline - city_today()).days < 0


def test_the_panel_gives_the_parcel_bbox(client, auth, seeded_city):
    parcel = unvisited_parcels(1)[0]
    minx, miny, maxx, maxy = _panel(client, auth["inspector"], parcel.id)["bbox"]
    assert -91.52 < minx < maxx < -91.48 and 44.24 < miny < maxy < 44.27
