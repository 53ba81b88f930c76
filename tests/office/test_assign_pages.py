"""Assign work (/assign/): who may come, what its forms write, and that a refused form writes nothing."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import func, select

from server.core.accounts.models import User
from server.core.extensions import db
from server.field.models import Assignment
from server.notices import reinspections
from tests.support.city_calendar import city_today
from tests.support.notices import add_parcel
from tests.support.office import audit_rows

PAGES = [("get", "/assign/"), ("post", "/assign/"), ("post", "/assign/1/reassign"), ("post", "/assign/1/unassign")]


def _user(username: str) -> User:
    return db.session.scalar(select(User).where(User.username == username))


def _open_count() -> int:
    return db.session.scalar(select(func.count(Assignment.id)).where(Assignment.status == "open"))


def _assignment(parcel, inspector="inspector1", due=None) -> Assignment:
    a = Assignment(inspector_id=_user(inspector).id, parcel_id=parcel.id, template_id="tap", status="open",
                   due_on=due)
    db.session.add(a)
    db.session.commit()  # there before the superintendent's request (a refused one rolls back)
    return a


@pytest.mark.parametrize("role", ["inspector", "clerk"])
@pytest.mark.parametrize(("method", "path"), PAGES)
def test_inspector_and_clerk_are_refused(office, templates, role, method, path):
    session = office(f"{role}1")
    r = session.get(path) if method == "get" else session.post(path, {"inspector_id": "1"})
    assert r.status_code == 403
    assert _open_count() == 0


def test_without_a_login_the_page_sends_to_the_form(client):
    r = client.get("/assign/")
    assert r.status_code == 302 and "/login?next=/assign/" in r.headers["Location"]


@pytest.mark.parametrize("role", ["superintendent", "admin"])
def test_page_lists_checklists_inspectors_and_load(office, templates, role):
    parcel = add_parcel()
    _assignment(parcel, due=city_today() - timedelta(days=2))
    html = office(f"{role}1").get("/assign/").get_data(as_text=True)
    assert '<option value="clear-water-survey">Clear-water survey</option>' in html
    assert "Test Inspector — 1 open, 1 overdue" in html
    assert "data-assignment=" in html and parcel.parcel_number in html


def test_assigns_every_parcel_chosen_by_map_and_by_number(office, templates):
    by_map, by_number, both = add_parcel(), add_parcel(), add_parcel()
    due = city_today() + timedelta(days=7)
    before = audit_rows()
    r = office("superintendent1").post("/assign/", {
        "parcel_id": [str(by_map.id), str(both.id)],
        "parcel_numbers": f"{by_number.parcel_number}, {both.parcel_number}",
        "inspector_id": str(_user("inspector1").id), "template_id": "clear-water-survey", "due_on": due.isoformat(),
        "reason": "Block 12"}, follow=True)
    assert r.status_code == 200
    assert "3 parcels assigned to Test Inspector (clear-water-survey), due" in r.get_data(as_text=True)
    made = db.session.scalars(select(Assignment).order_by(Assignment.parcel_id)).all()
    assert sorted(a.parcel_id for a in made) == sorted([by_map.id, by_number.id, both.id])
    assert {(a.inspector_id, a.template_id, a.due_on, a.reason, a.status) for a in made} == {
        (_user("inspector1").id, "clear-water-survey", due, "Block 12", "open")}
    assert audit_rows() == before + 3


def test_a_parcel_already_assigned_that_checklist_is_left_and_reported(office, templates):
    taken, free = add_parcel(), add_parcel()
    db.session.add(Assignment(inspector_id=_user("superintendent1").id, parcel_id=taken.id,
                              template_id="clear-water-survey", status="open"))
    db.session.flush()
    r = office("superintendent1").post("/assign/", {
        "parcel_id": [str(taken.id), str(free.id)], "inspector_id": str(_user("inspector1").id),
        "template_id": "clear-water-survey"}, follow=True)
    html = r.get_data(as_text=True)
    assert "1 parcel assigned to Test Inspector" in html
    assert ("1 already had an open clear-water-survey assignment and were left as they were: "
            f"{taken.parcel_number}") in html
    assert _open_count() == 2


BAD = {
    "no parcel": ({"parcel_id": []}, "choose at least one parcel"),
    "unknown number": ({"parcel_numbers": "999-99999-9999"}, "no parcel numbered 999-99999-9999"),
    "unknown id": ({"parcel_id": ["987654"]}, "no parcel with id 987654"),
    "no inspector": ({"inspector_id": ""}, "no active inspector"),
    "a clerk as inspector": ({"inspector_id": "clerk1"}, "no active inspector"),
    "no checklist": ({"template_id": ""}, "choose a checklist"),
    "unknown checklist": ({"template_id": "bogus"}, "choose a checklist"),
    "due date passed": ({"due_on": "2000-01-01"}, "has already passed"),
    "malformed date": ({"due_on": "next tuesday"}, "is not a date"),
}


@pytest.mark.parametrize("case", BAD)
def test_bad_input_is_refused_and_writes_nothing(office, templates, case):
    parcel = add_parcel()
    db.session.commit()  # the city's parcels are there before the superintendent comes
    change, words = BAD[case]
    data = {"parcel_id": [str(parcel.id)], "inspector_id": str(_user("inspector1").id), "template_id": "tap",
            "due_on": (city_today() + timedelta(days=3)).isoformat(), **change}
    if data["inspector_id"] == "clerk1":
        data["inspector_id"] = str(_user("clerk1").id)
    before = audit_rows()
    r = office("superintendent1").post("/assign/", data)
    assert r.status_code == 422
    html = r.get_data(as_text=True)
    assert "Nothing was assigned" in html and words in html
    assert 'class="field-error"' in html
    assert _open_count() == 0 and audit_rows() == before
    if change.get("parcel_id") is None and data["parcel_id"]:
        # The selection survives the refusal: the parcel is still listed in the form.
        assert f'name="parcel_id" value="{parcel.id}"' in html


def test_a_form_without_the_token_is_refused(office, client, templates):
    office("superintendent1")
    parcel = add_parcel()
    r = client.post("/assign/", data={"parcel_id": str(parcel.id), "inspector_id": str(_user("inspector1").id),
                                      "template_id": "tap"})
    assert r.status_code == 400 and _open_count() == 0


def test_reassign_moves_the_work_and_the_due_date(office, templates):
    a = _assignment(add_parcel())
    due = city_today() + timedelta(days=1)
    r = office("superintendent1").post(f"/assign/{a.id}/reassign",
                                       {"inspector_id": str(_user("superintendent1").id), "due_on": due.isoformat()},
                                       follow=True)
    assert f"Assignment {a.id} now goes to Test Superintendent, due {due.isoformat()}." in r.get_data(as_text=True)
    db.session.refresh(a)
    assert (a.inspector_id, a.due_on, a.status) == (_user("superintendent1").id, due, "open")


def test_reassign_to_a_disabled_inspector_is_refused(office, templates):
    a = _assignment(add_parcel())
    gone = _user("clerk1")
    before = audit_rows()
    r = office("superintendent1").post(f"/assign/{a.id}/reassign", {"inspector_id": str(gone.id)})
    assert r.status_code == 422 and "no active inspector" in r.get_data(as_text=True)
    db.session.refresh(a)
    assert a.inspector_id == _user("inspector1").id and audit_rows() == before


def test_unassign_calls_the_work_off(office, templates):
    a = _assignment(add_parcel())
    r = office("superintendent1").post(f"/assign/{a.id}/unassign", follow=True)
    assert f"Assignment {a.id} is called off" in r.get_data(as_text=True)
    db.session.refresh(a)
    assert a.status == "cancelled"
    # Done or cancelled work cannot be called off or moved again.
    again = office("superintendent1").post(f"/assign/{a.id}/unassign")
    assert again.status_code == 409


def test_a_reinspection_a_notice_ordered_is_reassigned_not_called_off(office, templates, notice_in):
    from server.notices.models import Notice

    notice = db.session.get(Notice, notice_in("mailed")["id"])
    assignment = reinspections.request_reinspection(notice)
    assert assignment is not None
    db.session.commit()
    r = office("superintendent1").post(f"/assign/{assignment.id}/unassign")
    assert r.status_code == 409 and f"the reinspection notice {notice.id}" in r.get_data(as_text=True)
    db.session.refresh(assignment)
    assert assignment.status == "open"


def test_unknown_assignment_is_404(office, templates):
    assert office("superintendent1").post("/assign/987654/unassign").status_code == 404
