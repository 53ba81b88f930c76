"""Issue 29, "A desk that cannot act by mistake" (the newcomer's walk): staff pages show
the names people use (codes in a tooltip), no inspection uuids or item paths in violation
text, proper plurals, and every time a person reads in the city's zone. Recording a
mailing (article numbers, deadlines) needs the clerk's count of the letters: a stray
click on the pre-ticked list records nothing."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from server.core.extensions import db
from server.field.checklist_templates import load_templates
from server.field.models import Inspection
from server.notices.models import MailingBatch, Notice
from server.rules.models import Violation
from tests.support.notices import add_parcel, add_violation, draft_one
from tests.support.sync import make_feature, push, record, sump_pump, survey


def test_the_desk_names_each_notice_kind_and_keeps_the_code_in_a_tooltip(desk, client, auth):
    add_violation(add_parcel())
    draft_one(client, auth)
    add_violation(add_parcel(), "HOOKUP-365", "§ 315-11D", "Occupied dwelling not connected")
    draft_one(client, auth)
    html = desk("superintendent1").page("/desk/")
    assert '<td title="CW-DISCONNECT-60">Disconnect clear water from the sanitary sewer</td>' in html
    assert '<td title="HOOKUP-365">Connect to the public sewer</td>' in html
    assert ">CW-DISCONNECT-60<" not in html and ">HOOKUP-365<" not in html


def test_violation_text_names_the_checklist_day_and_question_not_a_uuid(client, auth):
    load_templates()
    parcel = make_feature("parcels", parcel_number="206-00778-0000")
    [result] = push(client, auth["inspector"], record(survey(parcel, [sump_pump()])))
    assert result["status"] == 201, result
    inspection = db.session.get(Inspection, result["server_id"])
    [message] = db.session.scalars(
        select(Violation.message).where(Violation.parcel_id == parcel)).all()
    assert inspection.uuid not in message and "sources.0" not in message and "item " not in message
    assert "of 2026-11-30: " in message and "entry 1" in message  # the survey of that morning in Arcadia


def test_review_shows_times_on_the_city_clock(desk, client, auth):
    load_templates()
    parcel = make_feature("parcels", parcel_number="206-00779-0000")
    push(client, auth["inspector"], record(survey(parcel, [sump_pump()])))  # finished 09:40 -06:00
    html = desk("superintendent1").page("/review/")
    assert "finished 2026-11-30 09:40 CST" in html
    assert "15:40" not in html and " UTC" not in html


@pytest.mark.parametrize("counted", [None, "", "1", "3", "two"])
def test_recording_a_mailing_needs_the_clerk_s_count_of_the_letters(desk, client, auth, counted):
    ids = []
    for _ in range(2):
        add_violation(add_parcel())
        notice = draft_one(client, auth)
        assert client.post(f"/api/v1/notices/{notice['id']}/approve", json={},
                           headers=auth["superintendent"]).status_code == 200
        ids.append(str(notice["id"]))
    d = desk("clerk1")
    r = d.post("/desk/mailings", {"notice_id": ids}, follow=False)
    batch_id = int(r.headers["Location"].rstrip("/").rsplit("/", 1)[1])
    assert 'name="confirm_count"' in d.page(f"/desk/mailings/{batch_id}")
    form = {"confirm_count": counted} if counted is not None else {}
    text = d.post(f"/desk/mailings/{batch_id}/record", form).get_data(as_text=True)
    assert "count the letters you are taking to the post office" in text.lower()
    assert db.session.get(MailingBatch, batch_id).mailed_on is None
    assert {n.state for n in db.session.scalars(select(Notice))} == {"approved"}
    d.post(f"/desk/mailings/{batch_id}/record", {"confirm_count": "2"})
    assert db.session.get(MailingBatch, batch_id).mailed_on is not None


def test_the_desk_offers_the_substitute_notice_for_mail_that_came_back(desk, notice_in):
    notice = notice_in("refused")
    html = desk("clerk1").page("/desk/")
    link = f'href="/api/v1/notices/{notice["id"]}/substitute-notice.pdf" data-substitute-notice="{notice["id"]}"'
    assert link in html
