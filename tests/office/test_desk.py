"""The clerk's notice desk: what it lists, what its forms do, and who may use it."""

from __future__ import annotations

import re
from datetime import date, timedelta

import pytest

from gis.rulebook import load_rulebook
from server.core.extensions import db
from server.notices.models import MailingBatch, Notice
from server.notices.tick import tick
from tests.support.city_calendar import city_today
from tests.support.notices import MAILED_ON, NO_STREET, SIGNED, add_parcel, add_violation, draft_one

ARCADIA = load_rulebook("arcadia")  # the test apps' rulebook; pure code is always told which


def _state(notice_id: int) -> str:
    db.session.expire_all()
    return db.session.get(Notice, notice_id).state


def _section(html: str, name: str) -> str:
    """The table of one desk section (``drafts``, ``approved``, ``held``, ``mailed``, ``overdue``)."""
    match = re.search(rf'<table class="grid" data-section="{name}">(.*?)</table>', html, re.S)
    return match.group(1) if match else ""


def test_desk_lists_each_notice_under_its_state(desk, client, auth, notice_in):
    approved = notice_in("approved")
    add_violation(add_parcel(NO_STREET))
    held = draft_one(client, auth)
    add_violation(add_parcel())
    drafted = draft_one(client, auth)

    html = desk("clerk1").page()

    assert drafted["parcel_number"] in _section(html, "drafts")
    assert approved["parcel_number"] in _section(html, "approved")
    assert held["parcel_number"] in _section(html, "held")
    assert "no street" in _section(html, "held").lower() or held["held_reason"] in _section(html, "held")
    assert approved["parcel_number"] not in _section(html, "drafts")


def test_empty_desk_says_so(desk):
    html = desk("clerk1").page()
    assert "No drafts." in html and "Nothing to mail." in html and "Nothing overdue." in html


def test_superintendent_approves_a_draft(desk, client, auth, violation):
    notice = draft_one(client, auth)
    d = desk("superintendent1")
    assert 'name="approve"' in _section(d.page(), "drafts")

    r = d.post(f"/desk/notices/{notice['id']}/approve")

    assert f"Notice {notice['id']} ({notice['parcel_number']}) is now approved." in r.get_data(as_text=True)
    assert _state(notice["id"]) == "approved"


def test_clerk_cannot_approve_and_is_told_why(desk, client, auth, violation):
    notice = draft_one(client, auth)
    d = desk("clerk1")
    assert 'name="approve"' not in d.page()

    r = d.post(f"/desk/notices/{notice['id']}/approve")

    assert "approve needs the role superintendent" in r.get_data(as_text=True)
    assert _state(notice["id"]) == "draft"


def _two_approved(client, auth, notice_in) -> list[int]:
    first = notice_in("approved")
    add_violation(add_parcel())
    second = draft_one(client, auth)
    client.post(f"/api/v1/notices/{second['id']}/approve", json={}, headers=auth["superintendent"])
    return [first["id"], second["id"]]


def _printed(d, ids) -> int:
    r = d.post("/desk/mailings", {"notice_id": [str(i) for i in ids]}, follow=False)
    assert r.status_code == 302
    return int(r.headers["Location"].rstrip("/").rsplit("/", 1)[1])


def test_printing_at_the_desk_mails_nothing(desk, client, auth, notice_in):
    ids = _two_approved(client, auth, notice_in)
    d = desk("clerk1")
    assert "Print letters and mailing book" in d.page()

    batch_id = _printed(d, ids)

    batch = db.session.get(MailingBatch, batch_id)
    assert batch.pieces == 2 and batch.mailed_on is None and batch.printed_on == city_today()
    assert {_state(i) for i in ids} == {"approved"}
    assert {db.session.get(Notice, i).deadline for i in ids} == {None}
    page = d.page(f"/desk/mailings/{batch_id}")
    assert "not yet mailed" in page and "Record 2 letters as mailed on the date above" in page
    assert f'min="{city_today().isoformat()}"' in page  # not before the print
    assert f"/api/v1/mailings/{batch_id}/letters.pdf" in page
    assert f"/api/v1/mailings/{batch_id}/mailing-book.pdf" in page
    assert db.session.get(Notice, ids[0]).article_number in page
    assert f"mailing {batch_id}" in d.page()  # the desk lists the printed batch still to record
    for pdf in ("letters.pdf", "mailing-book.pdf"):
        got = client.get(f"/api/v1/mailings/{batch_id}/{pdf}")
        assert got.status_code == 200 and got.data.startswith(b"%PDF")


def test_clerk_records_the_printed_batch_as_mailed_with_the_count(desk, client, auth, notice_in):
    ids = _two_approved(client, auth, notice_in)
    d = desk("clerk1")
    batch_id = _printed(d, ids)

    text = d.post(f"/desk/mailings/{batch_id}/record", {"mailed_on": city_today().isoformat(),
                                                        "confirm_count": "2"}).get_data(as_text=True)

    assert "2 letters recorded as mailed" in text
    assert db.session.get(MailingBatch, batch_id).mailed_on == city_today()
    assert {_state(i) for i in ids} == {"mailed"}
    assert "Void this mailing" in text  # the same day, a mistaken recording can be undone


def test_clerk_voids_a_mistaken_recording_the_same_day(desk, client, auth, notice_in):
    ids = _two_approved(client, auth, notice_in)
    d = desk("clerk1")
    batch_id = _printed(d, ids)
    d.post(f"/desk/mailings/{batch_id}/record", {"confirm_count": "2"})

    text = d.post(f"/desk/mailings/{batch_id}/void", {"reason": ""}).get_data(as_text=True)
    assert "say why the mailing is voided" in text and {_state(i) for i in ids} == {"mailed"}
    text = d.post(f"/desk/mailings/{batch_id}/void", {"reason": "letters still on my desk"}).get_data(as_text=True)

    assert f"Mailing {batch_id} voided" in text and "letters still on my desk" in text
    assert {_state(i) for i in ids} == {"approved"}
    assert "Record 2 letters as mailed" in text


def test_printing_nothing_ticked_is_refused(desk):
    r = desk("clerk1").post("/desk/mailings")
    assert "Tick at least one approved notice to print." in r.get_data(as_text=True)


def test_printing_a_draft_shows_the_service_message_and_prints_nothing(desk, client, auth, violation):
    notice = draft_one(client, auth)
    r = desk("clerk1").post("/desk/mailings", {"notice_id": str(notice["id"])})
    assert f"notice {notice['id']} is draft; &#39;mail&#39; is not allowed" in r.get_data(as_text=True)
    assert _state(notice["id"]) == "draft"
    assert db.session.query(MailingBatch).count() == 0


@pytest.mark.parametrize(("event", "state"), [("deliver", "delivered"), ("refuse", "refused"),
                                              ("unclaimed", "unclaimed")])
def test_clerk_records_the_return_receipt(desk, notice_in, event, state):
    notice = notice_in("mailed")
    d = desk("clerk1")
    assert notice["article_number"] in _section(d.page(), "mailed")
    on = MAILED_ON + timedelta(days=15 if event == "unclaimed" else 3)  # USPS holds unclaimed mail 15 days

    d.post(f"/desk/notices/{notice['id']}/{event}", {"on": on.isoformat()})

    stored = db.session.get(Notice, notice["id"])
    assert _state(notice["id"]) == state
    assert stored.delivery_event_on == on
    # Delivered starts the clock; mail that came back starts none until substitute service.
    assert (stored.deadline is not None) == (state == "delivered")
    if state != "delivered":
        assert f'data-notice="{notice["id"]}"' in _section(d.page(), "came-back")


def test_clerk_records_substitute_service_and_the_clock_starts(desk, notice_in):
    notice = notice_in("unclaimed")  # came back 15 days after mailing
    d = desk("clerk1")
    remailed, posted = MAILED_ON + timedelta(days=16), MAILED_ON + timedelta(days=17)
    d.post(f"/desk/notices/{notice['id']}/substitute", {"on": remailed.isoformat(), "step": "first_class_mailing"})
    assert db.session.get(Notice, notice["id"]).deadline is None
    d.post(f"/desk/notices/{notice['id']}/substitute", {"on": posted.isoformat(), "step": "posting"})
    stored = db.session.get(Notice, notice["id"])
    assert stored.served_on == posted and stored.deadline is not None
    assert f'data-notice="{notice["id"]}"' not in _section(d.page(), "came-back")


def test_mail_without_a_receipt_after_the_wait_is_put_before_the_clerk(app, desk, notice_in, tmp_path, monkeypatch):
    from gis.rulebook import RULEBOOK_DIR
    from server.core import city

    notice = notice_in("mailed")  # mailed 20 days ago; Arcadia waits 21
    d = desk("clerk1")
    assert "data-no-receipt" not in _section(d.page(), "mailed")
    text = (RULEBOOK_DIR / "arcadia.toml").read_text()
    path = tmp_path / "shortwait.toml"
    path.write_text(text.replace("receipt_wait_days = 21", "receipt_wait_days = 19"))
    monkeypatch.setitem(app.extensions, city.EXTENSION, city.City.from_config({"LATERAL_RULEBOOK": str(path)}))
    page = _section(d.page(), "mailed")
    assert f'data-no-receipt="{notice["id"]}"' in page and "No return receipt after 19 days" in page


def test_receipt_dated_before_mailing_is_refused(desk, notice_in):
    notice = notice_in("mailed")
    r = desk("clerk1").post(f"/desk/notices/{notice['id']}/deliver",
                            {"on": (MAILED_ON - timedelta(days=1)).isoformat()})
    assert "is before the mailing on" in r.get_data(as_text=True)
    assert _state(notice["id"]) == "mailed"


def test_receipt_on_an_unmailed_notice_shows_the_transition_message(desk, notice_in):
    notice = notice_in("approved")
    r = desk("clerk1").post(f"/desk/notices/{notice['id']}/deliver", {"on": city_today().isoformat()})
    assert "is approved; &#39;deliver&#39; is not allowed from there (allowed: withdraw, mail)" \
        in r.get_data(as_text=True)


def test_malformed_date_is_refused(desk, notice_in):
    notice = notice_in("mailed")
    r = desk("clerk1").post(f"/desk/notices/{notice['id']}/deliver", {"on": "yesterday"})
    assert "is not a date (YYYY-MM-DD)" in r.get_data(as_text=True)
    assert _state(notice["id"]) == "mailed"


def test_overdue_notices_are_listed(desk, notice_in):
    notice = notice_in("delivered")
    tick(date.fromisoformat(notice["deadline"]) + timedelta(days=1))
    assert notice["parcel_number"] in _section(desk("clerk1").page(), "overdue")


def test_post_without_the_form_token_is_refused(desk, client, auth, violation):
    notice = draft_one(client, auth)
    desk("superintendent1")
    r = client.post(f"/desk/notices/{notice['id']}/approve", data={"csrf_token": "forged"})
    assert r.status_code == 400
    assert _state(notice["id"]) == "draft"


def test_unknown_event_is_not_found(desk, notice_in):
    notice = notice_in("approved")
    assert desk("clerk1").post(f"/desk/notices/{notice['id']}/comply", follow=False).status_code == 404


@pytest.mark.parametrize("username", ["clerk1", "superintendent1", "admin1"])
def test_desk_roles_see_the_desk_and_its_nav_link(desk, username):
    assert 'href="/desk/"' in desk(username).page()


def test_inspector_is_refused(desk, client):
    desk("inspector1")
    r = client.get("/desk/")
    assert r.status_code == 403
    assert 'href="/desk/"' not in client.get("/").get_data(as_text=True)


def test_anonymous_is_sent_to_the_login(client):
    r = client.get("/desk/")
    assert r.status_code == 302 and "/login?next=/desk/" in r.headers["Location"]


@pytest.mark.parametrize(("username", "shown"), [("superintendent1", True), ("admin1", True), ("clerk1", False)])
def test_certification_link_for_those_who_certify(desk, username, shown):
    assert ('href="/survey/certify"' in desk(username).page()) is shown


def test_the_desk_shows_the_commissions_clock_and_when_it_is_overdue(desk, notice_in):
    from server.notices.models import NoticeAppeal

    notice = notice_in("appealed")
    page = _section(desk("clerk1").page(), "appeals")
    assert f'data-notice="{notice["id"]}"' in page and "days left" in page
    db.session.query(NoticeAppeal).one().decide_by = city_today() - timedelta(days=1)
    db.session.commit()
    page = _section(desk("clerk1").page(), "appeals")
    assert f'data-decision-overdue="{notice["id"]}"' in page and "overdue" in page


def test_the_clerk_mails_the_decision_letter_from_the_desk(desk, client, auth, notice_in):
    from server.notices.models import NoticeAppeal

    notice = notice_in("appealed")
    client.post(f"/api/v1/notices/{notice['id']}/decide", json={"decision": "upheld"}, headers=auth["clerk"])
    d = desk("clerk1")
    assert f'data-notice="{notice["id"]}"' in _section(d.page(), "decision-letters")
    d.post(f"/desk/notices/{notice['id']}/decision-letter", {"mailed_on": city_today().isoformat(), **SIGNED})
    assert db.session.query(NoticeAppeal).one().letter_mailed_on == city_today()
    assert db.session.get(Notice, notice["id"]).deadline is not None


def _issued(desk, on: date) -> int:
    """A certification issued by the superintendent, dated ``on``; its id."""
    from server.office.models import IssuedCertification

    desk("superintendent1").post("/survey/certify")
    cert = db.session.query(IssuedCertification).one()
    cert.certified_on = on
    db.session.commit()
    return cert.id


def test_the_commissions_five_days_run_from_its_receipt_of_the_certified_survey(desk):
    from server.notices.calendar import deadline_for
    from server.office.models import IssuedCertification, SurveyCertification

    received = city_today() - timedelta(days=1)
    cert_id = _issued(desk, received - timedelta(days=2))
    d = desk("clerk1")
    d.post("/desk/survey-receipt", {"certification_id": str(cert_id), "received_on": received.isoformat()})
    row = db.session.query(SurveyCertification).one()
    assert row.received_on == received and row.certified_on == received - timedelta(days=2)
    assert (row.certification_id, row.certification_sha256) == (
        cert_id, db.session.get(IssuedCertification, cert_id).pdf_sha256)  # the document received
    assert row.notify_by == deadline_for("SURVEY-NOTIFY-5", received, ARCADIA).date
    assert f"<strong data-notify-by>{row.notify_by}</strong>" in d.page()


def test_a_receipt_before_the_certification_is_refused(desk):
    from server.office.models import SurveyCertification

    cert_id = _issued(desk, city_today())
    desk("clerk1").post("/desk/survey-receipt", {"certification_id": str(cert_id),
                                                 "received_on": (city_today() - timedelta(days=1)).isoformat()})
    assert db.session.query(SurveyCertification).count() == 0


def test_a_receipt_names_an_issued_certification(desk):
    from server.office.models import SurveyCertification

    d = desk("clerk1")
    assert "No survey certification has been issued yet" in d.page()
    text = d.post("/desk/survey-receipt", {"received_on": city_today().isoformat()}).get_data(as_text=True)
    assert "Choose the certification the Commission received" in text
    assert db.session.query(SurveyCertification).count() == 0


def test_clerk_scans_the_ps3800_sticker_beside_each_letter(desk, notice_in):
    notice = notice_in("approved")
    d = desk("clerk1")
    assert f'name="sticker_{notice["id"]}"' in _section(d.page(), "approved")
    d.post("/desk/mailings", {"notice_id": [str(notice["id"])],
                              f"sticker_{notice['id']}": "9400 1112 0108 0805 4830 16"})
    assert db.session.get(Notice, notice["id"]).article_number == "9400111201080805483016"
    assert "/labels.pdf" in d.page(f"/desk/mailings/{db.session.get(Notice, notice['id']).batch_id}")


def test_the_clerk_records_the_decision_letter_s_return_receipt(desk, client, auth, notice_in):
    from server.notices.models import NoticeAppeal

    notice = notice_in("decided")
    d = desk("clerk1")
    d.post(f"/desk/notices/{notice['id']}/decision-letter", {"mailed_on": city_today().isoformat(), **SIGNED})
    appeal = db.session.query(NoticeAppeal).one()
    assert f'data-appeal="{appeal.id}"' in _section(d.page(), "decision-receipts")

    text = d.post(f"/desk/notices/{notice['id']}/appeals/{appeal.id}/receipt",
                  {"event": "delivered", "on": city_today().isoformat()}).get_data(as_text=True)

    assert "delivered on" in text
    db.session.expire_all()
    assert db.session.get(NoticeAppeal, appeal.id).letter_served_on == city_today()
    assert f'data-appeal="{appeal.id}"' not in _section(d.page(), "decision-receipts")
