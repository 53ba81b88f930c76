"""Email to an owner who left an address, read from a local SMTP sink (aiosmtpd): a plain-text
part, the way to stop, and nothing more once stopped."""

from __future__ import annotations

import io
import re

import pytest
from PIL import Image
from sqlalchemy import select

from server.core.extensions import db
from server.portal.models import PortalAction
from tests.support.portal import form_token, lookup


def _jpeg() -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (40, 30), (10, 90, 60)).save(buf, "JPEG")
    return buf.getvalue()


@pytest.fixture
def proof_sent(app, lettered, smtp_sink):
    owner = app.test_client()
    lookup(owner, lettered["code"], lettered["parcel_number"])
    r = owner.post("/portal/proof", data={"csrf_token": form_token(owner, "/portal/proof"), "note": "Capped the drain.",
                                          "email": "ann@example.org", "files": [(io.BytesIO(_jpeg()), "a.jpg")]},
                   content_type="multipart/form-data")
    assert r.status_code == 302
    return db.session.scalar(select(PortalAction).filter_by(kind="proof"))


def _plain(message) -> str:
    return message.get_body(preferencelist=("plain",)).get_content()


def test_the_owner_is_told_the_proof_was_received_in_plain_text(proof_sent, smtp_sink):
    [message] = smtp_sink.messages
    assert message["To"] == "ann@example.org" and "We received your proof" in message["Subject"]
    text = _plain(message)
    assert "superintendent will look" in text and "To stop getting emails" in text
    assert re.search(r"/portal/stop/\S+", text) and message["List-Unsubscribe"].strip().startswith("<http")


def test_the_decision_on_the_proof_is_emailed(proof_sent, smtp_sink, office):
    office("superintendent1").post(f"/review/owners/{proof_sent.id}", {"decision": "accept", "reason": "ok"})
    assert "the notice is closed" in smtp_sink.messages[-1]["Subject"]
    assert "Nothing more is needed" in _plain(smtp_sink.messages[-1])


def test_stopping_means_no_more_email(app, proof_sent, smtp_sink, office):
    link = re.search(r"(/portal/stop/\S+)", _plain(smtp_sink.messages[0])).group(1)
    browser = app.test_client()
    assert browser.get(link).status_code == 200 and proof_sent.email == "ann@example.org"  # a GET changes nothing
    r = browser.post(link, data={"csrf_token": form_token(browser, link)})
    assert r.status_code == 200 and proof_sent.email is None
    office("superintendent1").post(f"/review/owners/{proof_sent.id}", {"decision": "accept", "reason": "ok"})
    assert len(smtp_sink.messages) == 1


def test_a_forged_stop_link_is_refused(client):
    assert client.get("/portal/stop/not-a-token").status_code == 404
