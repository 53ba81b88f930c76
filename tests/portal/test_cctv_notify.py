"""Email to the plumber about a CCTV submittal, read from a local SMTP sink: received when
the video arrives, and the decision; a plain-text part, the way to stop, and nothing more
once stopped."""

from __future__ import annotations

import re

import pytest

from server.core.extensions import db
from server.portal.cctv import observations_of
from tests.support.cctv import add_plumber, latest, log_in, mp4_bytes, submit, upload
from tests.support.mail import plain_text, smtp_sink_for


@pytest.fixture
def plumber_mail(monkeypatch):
    with smtp_sink_for(monkeypatch) as sink:
        yield sink


@pytest.fixture
def cctv_sent(app, parcel, plumber_mail):
    """A plumber's submittal whose video arrived (the received email sent)."""
    browser = app.test_client()
    user = add_plumber()
    db.session.commit()
    log_in(browser, user)
    assert submit(browser, parcel.parcel_number).status_code == 302
    submittal = latest()
    assert upload(browser, submittal.id, mp4_bytes()).status_code == 201
    return {"browser": browser, "user": user, "submittal": submittal}


def test_the_plumber_is_told_the_inspection_was_received(cctv_sent, plumber_mail):
    [message] = plumber_mail.messages
    assert message["To"].startswith("cctv-plumber") and "We received your CCTV inspection" in message["Subject"]
    text = plain_text(message)
    assert f"CCTV-{cctv_sent['submittal'].id}" in text and "2 observations" in text and "To stop getting emails" in text
    assert re.search(r"/portal/plumbers/cctv/stop/\S+", text)
    assert message["List-Unsubscribe"].strip().startswith("<http")


@pytest.mark.parametrize(("path", "data", "subject"), [
    ("certify", {}, "Certificate of compliance issued"),
    ("repair", {"observation_ids": "first", "reason": "fracture"}, "A repair notice will be sent"),
])
def test_the_decision_is_emailed(cctv_sent, plumber_mail, office, path, data, subject):
    s = cctv_sent["submittal"]
    if data.get("observation_ids") == "first":
        data = {**data, "observation_ids": [str(observations_of(s)[0].id)]}
    assert office("superintendent1").post(f"/review/cctv/{s.id}/{path}", data=data).status_code == 302
    assert [" ".join(str(m["Subject"]).split()).split(" (")[0] for m in plumber_mail.messages][1:] == [subject]
    assert f"/portal/plumbers/cctv/{s.id}" in plain_text(plumber_mail.messages[-1])


def test_after_stopping_no_more_email_is_sent(cctv_sent, plumber_mail, office):
    link = re.search(r"(/portal/plumbers/cctv/stop/\S+)", plain_text(plumber_mail.messages[0])).group(1)
    browser = cctv_sent["browser"]
    page = browser.get(link).get_data(as_text=True)
    token = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
    assert "Done." in browser.post(link, data={"csrf_token": token}).get_data(as_text=True)
    db.session.refresh(cctv_sent["submittal"])
    assert cctv_sent["submittal"].emails is False
    office("superintendent1").post(f"/review/cctv/{cctv_sent['submittal'].id}/certify")
    assert len(plumber_mail.messages) == 1


def test_a_forged_stop_link_is_not_found(cctv_sent):
    browser = cctv_sent["browser"]
    page = browser.get("/portal/plumbers/cctv/stop/forged").get_data(as_text=True)
    token = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
    assert browser.post("/portal/plumbers/cctv/stop/forged", data={"csrf_token": token}).status_code == 404
