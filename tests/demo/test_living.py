"""`make run`'s demo city is in the middle of its survey: every role's first screen has content.

The seed plays the survey forward through the services (``server/demo/living.py``);
these tests seed it on each engine and look at what each demo login sees first.
"""

from __future__ import annotations

import re

import pytest
from sqlalchemy import func, select

from server.core.accounts.models import User
from server.demo import seed as demo
from server.field.models import Assignment, Inspection, InspectionPhoto, Photo
from server.notices.models import Notice
from server.rules.models import Violation
from tests.support.databases import ENGINES, fresh_app

PARCELS = 300
STATES = {"draft", "approved", "mailed", "delivered", "overdue", "escalated", "appealed", "complied"}


@pytest.fixture(scope="module", params=ENGINES)
def living_app(request, tmp_path_factory):
    from server.core.extensions import db
    from server.field.api.photos import BLOBS

    with fresh_app(request.param, tmp_path_factory.mktemp(f"living-{request.param}")) as app:
        with app.app_context():
            report = demo.seed(parcels=PARCELS, living=True, blobs=app.extensions[BLOBS])
            app.seed_report = report
            db.session.commit()
        yield app


def _client(app, username: str):
    client = app.test_client()
    r = client.post("/login", data={"username": username, "password": demo.DEMO_PASSWORD})
    assert r.status_code == 302, r.get_data(as_text=True)[:300]
    return client


def _section(html: str, anchor: str) -> str:
    """The desk's section from ``<h2 id=anchor>`` to the next ``<h2``."""
    start = html.index(f'id="{anchor}"')
    end = html.find("<h2", start + 1)
    return html[start:end if end > 0 else None]


def test_notices_in_every_state_with_the_clock_running(living_app):
    from server.core.extensions import db
    from server.notices.clock import today

    with living_app.app_context():
        states = {s for (s,) in db.session.execute(select(Notice.state))}
        assert STATES <= states, f"missing states: {STATES - states}"
        on = today()
        for n in db.session.scalars(select(Notice).where(Notice.state == "delivered")):
            assert n.deadline > on, "a deadline still running"
        for n in db.session.scalars(select(Notice).where(Notice.state == "overdue")):
            assert n.deadline < on and n.reinspection_assignment_id is not None
        penalties = db.session.scalars(select(Notice).where(Notice.state == "escalated",
                                                            Notice.penalty_per_day.is_not(None))).all()
        assert penalties and all(n.penalty_accrued > 0 for n in penalties)
        complied = db.session.scalars(select(Notice).where(Notice.state == "complied")).all()
        assert complied and all(n.complied_reason.startswith("resolved by inspection") for n in complied)
        assert db.session.scalar(select(func.count()).select_from(Violation).where(Violation.status == "open")) > 0


def test_inspections_carry_stored_photos(living_app):
    from server.core.extensions import db
    from server.field.api.photos import BLOBS

    with living_app.app_context():
        inspections = db.session.scalars(select(Inspection)).all()
        assert {i.result for i in inspections} == {"pass", "fail"}
        digests = set(db.session.scalars(select(InspectionPhoto.sha256)))
        assert digests and digests <= set(db.session.scalars(select(Photo.sha256)))
        assert all(living_app.extensions[BLOBS].exists(d) for d in digests)


def test_the_inspectors_today_lists_assignments(living_app):
    client = _client(living_app, "inspector")
    body = client.get("/api/v1/sync/pull").get_json()
    due = {a["template_id"] for a in body["assignments"]}
    assert {"clear-water-survey", "tap", "new-lateral", "reinspection"} <= due
    assert body["assignments"] and all(a["status"] == "open" for a in body["assignments"])
    assert client.get("/field/").status_code == 200


def test_the_demo_city_has_a_permit_in_every_state_and_an_inspection_before_backfill_today(living_app):
    from server.permits.models import STATES as PERMIT_STATES
    from server.permits.models import Permit

    with living_app.app_context():
        from server.core.extensions import db

        states = set(db.session.scalars(select(Permit.state)))
    assert states == set(PERMIT_STATES)
    pulled = _client(living_app, "inspector").get("/api/v1/sync/pull").get_json()["assignments"]
    [before_backfill] = [a for a in pulled if a["template_id"] == "new-lateral"]
    assert before_backfill["permit"]["state"] == "inspection_requested"
    assert before_backfill["permit"]["number"] in before_backfill["reason"]
    assert {c["rule"] for c in before_backfill["permit"]["conditions"]} >= {"LATERAL-SDR26", "TRACER-WIRE"}
    page = _client(living_app, "clerk").get("/permits/").get_data(as_text=True)
    assert 'data-state="closed"' in page


def test_the_clerks_desk_lists_notices(living_app):
    html = _client(living_app, "clerk").get("/desk/").get_data(as_text=True)
    for anchor in ("drafts", "approved", "mailed", "appeals", "overdue"):
        assert "<tr" in _section(html, anchor), f"the desk's {anchor} list is empty"


def test_the_superintendents_map_and_dashboard_have_data(living_app):
    client = _client(living_app, "superintendent")
    assert client.get("/map").status_code == 200
    html = client.get("/dashboard").get_data(as_text=True)
    assert re.search(r"<td[^>]*>\s*(appealed|escalated|overdue)\s*</td>", html), "notices on the dashboard"
    r = client.get("/api/v1/violations?limit=5")
    assert r.status_code == 200 and r.get_json()["features"]


def test_admins_first_screen(living_app):
    client = _client(living_app, "admin")
    html = client.get("/").get_data(as_text=True)
    assert "Notice desk" in html and "Survey map" in html
    users = client.get("/users/").get_data(as_text=True)
    assert all(name in users for name, _role, _full in demo.DEMO_USERS)


def test_the_superintendents_pages_have_work(living_app):
    client = _client(living_app, "superintendent")
    assert "Pat Inspector" in client.get("/assign/").get_data(as_text=True)
    assert "CW-DISCONNECT-60" in client.get("/rules/").get_data(as_text=True)
    assert "TRACER-WIRE" in client.get("/rules/notices").get_data(as_text=True), "violations left to draft"
    assert "Fail" in client.get("/review/").get_data(as_text=True)


def test_living_needs_the_demo_users(tmp_path):
    with fresh_app("spatialite", tmp_path) as app, app.app_context():
        with pytest.raises(demo.DemoError, match="demo users"):
            demo.seed(parcels=200, with_users=False, living=True)


def test_the_story_is_the_same_on_every_seed(living_app, tmp_path):
    """Two seeds on the same day tell the same story (same notices, parcels, states)."""
    from server.core.extensions import db
    from server.field.api.photos import BLOBS

    def story(app):
        with app.app_context():
            return (sorted(db.session.execute(select(Notice.parcel_id, Notice.kind, Notice.state)).all()),
                    sorted(db.session.execute(select(Assignment.parcel_id, Assignment.template_id,
                                                     Assignment.status)).all()),
                    db.session.scalar(select(func.count()).select_from(User)))

    with fresh_app("spatialite", tmp_path) as other:
        with other.app_context():
            demo.seed(parcels=PARCELS, living=True, blobs=other.extensions[BLOBS])
            db.session.commit()
        assert story(other) == story(living_app)


def test_the_demo_plumber_has_an_application_and_a_cctv_inspection_in_the_queue(living_app):
    plumber = _client(living_app, "plumber")
    home = plumber.get("/portal/plumbers/").get_data(as_text=True)
    assert "You may apply for new permits" in home
    permits = plumber.get("/api/v1/portal/permits").get_json()
    assert [p["state"] for p in permits["permits"]] == ["applied"]
    mine = plumber.get("/portal/plumbers/cctv/").get_data(as_text=True)
    [submittal_id] = re.findall(r"/portal/plumbers/cctv/(\d+)\"", mine)
    queue = _client(living_app, "superintendent").get("/review/cctv/").get_data(as_text=True)
    assert f"CCTV-{submittal_id}" in queue
    video = _client(living_app, "superintendent").get(f"/review/cctv/{submittal_id}/video")
    assert video.status_code == 200 and video.data[4:8] == b"ftyp"
