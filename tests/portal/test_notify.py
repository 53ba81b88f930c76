"""Email to an owner who left an address, read from a local SMTP sink (aiosmtpd): a plain-text
part, the way to stop, and nothing more once stopped; each thing they wait for (received,
reviewed, a visit set, the appeal decided), in the language they used."""

from __future__ import annotations

import dataclasses
import io
import re
from datetime import timedelta

import pytest
from PIL import Image
from sqlalchemy import select

from server.core import city, settings
from server.core.accounts.models import User
from server.core.errors import LateralError
from server.core.extensions import db
from server.core.web.transaction import write_transaction
from server.field import assignments
from server.notices.models import Notice
from server.notices.reinspections import request_reinspection
from server.portal.models import PortalAction
from tests.support.notices import post
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


# ------------------------------------------------------------------ in the owner's language

SPANISH = {"Accept-Language": "es-US,es;q=0.9"}


@pytest.fixture
def spanish_proof(app, lettered, smtp_sink):
    owner = app.test_client()
    lookup(owner, lettered["code"], lettered["parcel_number"])
    r = owner.post("/portal/proof", headers=SPANISH, content_type="multipart/form-data",
                   data={"csrf_token": form_token(owner, "/portal/proof"), "note": "Tapé el desagüe.",
                         "email": "ana@example.org", "files": [(io.BytesIO(_jpeg()), "a.jpg")]})
    assert r.status_code == 302
    return db.session.scalar(select(PortalAction).filter_by(kind="proof"))


def test_an_owner_who_read_spanish_gets_spanish_email(spanish_proof, smtp_sink):
    [message] = smtp_sink.messages
    assert spanish_proof.language == "es" and message["Content-Language"] == "es"
    assert "Recibimos su prueba" in message["Subject"]
    text = _plain(message)
    assert "El superintendente la revisará" in text and "Para dejar de recibir correos" in text
    assert re.search(r"/portal/stop/\S+", text)


def test_the_superintendents_review_reaches_the_owner_in_their_language(spanish_proof, smtp_sink, office):
    """The superintendent's page is English; the email it sends is the owner's."""
    office("superintendent1").post(f"/review/owners/{spanish_proof.id}", {"decision": "reinspect", "reason": "ver"})
    assert "Necesitamos ver el trabajo" in smtp_sink.messages[-1]["Subject"]
    assert "Necesitamos ir a ver el trabajo" in _plain(smtp_sink.messages[-1])


# ------------------------------------------------------------------ heard from events


@pytest.fixture
def waiting_for_visit(app, lettered, smtp_sink):
    """The owner asked for a visit and left an address (the acknowledgement already sent)."""
    owner = app.test_client()
    lookup(owner, lettered["code"], lettered["parcel_number"])
    day = city.current().today() + timedelta(days=3)
    r = owner.post("/portal/visit", data={"csrf_token": form_token(owner, "/portal/visit"), "day": [day.isoformat()],
                                          "email": "ann@example.org"})
    assert r.status_code == 302 and len(smtp_sink.messages) == 1
    return db.session.get(Notice, lettered["id"])


def _inspector() -> User:
    return db.session.scalar(select(User).filter_by(username="inspector1"))


def test_the_owner_waiting_for_a_visit_is_told_its_day(waiting_for_visit, smtp_sink, client, auth, templates):
    due = city.current().today() + timedelta(days=5)
    r = post(client, auth, "superintendent", "/assignments",
             {"inspector_id": _inspector().id, "parcel_id": waiting_for_visit.parcel_id, "template_id": "reinspection",
              "due_on": due.isoformat()})
    assert r.status_code == 201, r.get_json()
    message = smtp_sink.messages[-1]
    assert len(smtp_sink.messages) == 2 and "A day is set for our visit" in message["Subject"]
    assert f"{due:%B} {due.day}, {due.year}" in _plain(message) and "To stop getting emails" in _plain(message)


def test_a_visit_set_in_a_write_that_rolls_back_is_never_announced(app, waiting_for_visit, smtp_sink, templates):
    superintendent = db.session.scalar(select(User).filter_by(username="superintendent1"))

    def work():
        assignments.create_assignment({"inspector_id": _inspector().id, "parcel_id": waiting_for_visit.parcel_id,
                                       "template_id": "reinspection", "due_on": None, "reason": None}, superintendent)
        raise LateralError("invalid_fields", "refused after the assignment was made")

    with app.test_request_context("/"), pytest.raises(LateralError):
        write_transaction(work)()
    assert len(smtp_sink.messages) == 1


def test_no_visit_news_for_an_owner_who_waits_for_none(app, lettered, smtp_sink, client, auth, templates):
    notice = db.session.get(Notice, lettered["id"])
    r = post(client, auth, "superintendent", "/assignments",
             {"inspector_id": _inspector().id, "parcel_id": notice.parcel_id, "template_id": "reinspection"})
    assert r.status_code == 201 and smtp_sink.messages == []


@pytest.fixture
def appealed_online(app, in_time, smtp_sink):
    owner = app.test_client()
    lookup(owner, in_time["code"], in_time["parcel_number"])
    r = owner.post("/portal/appeal", headers=SPANISH,
                   data={"csrf_token": form_token(owner, "/portal/appeal"), "facts": "El bajante va al césped.",
                         "fee": "yes", "email": "ana@example.org"})
    assert r.status_code == 302 and "Recibimos su apelación" in smtp_sink.messages[-1]["Subject"]
    return in_time


def test_the_commissions_decision_on_an_online_appeal_is_emailed(appealed_online, smtp_sink, client, auth):
    r = post(client, auth, "clerk", f"/notices/{appealed_online['id']}/decide", {"decision": "overturned"})
    assert r.status_code == 200, r.get_json()
    message = smtp_sink.messages[-1]
    assert len(smtp_sink.messages) == 2 and "Se decidió su apelación" in message["Subject"]
    text = _plain(message)
    assert "a su favor" in text and "Arcadia Utility Commission" in text and "Para dejar de recibir" in text


def test_a_refused_decision_sends_nothing(appealed_online, smtp_sink, client, auth):
    r = post(client, auth, "clerk", f"/notices/{appealed_online['id']}/decide", {"decision": "modified"})
    assert r.status_code == 422 and len(smtp_sink.messages) == 1


def test_a_reinspection_the_daily_tick_orders_is_emailed_with_the_portals_address(waiting_for_visit, smtp_sink,
                                                                                  monkeypatch, templates):
    """Outside a web request (the tick, the job worker) the stop link is LATERAL_PORTAL_URL's."""
    patched = dataclasses.replace(settings.current(), portal_url="https://lateral.arcadia.example/portal/")
    monkeypatch.setattr(settings, "current", lambda: patched)
    assert request_reinspection(waiting_for_visit) is not None
    db.session.commit()  # the tick's transaction (a savepoint under the test's)
    assert len(smtp_sink.messages) == 2
    assert "https://lateral.arcadia.example/portal/stop/" in _plain(smtp_sink.messages[-1])


def test_without_the_portals_address_a_message_outside_a_request_is_not_sent(waiting_for_visit, smtp_sink,
                                                                             templates):
    assert settings.current().portal_url is None
    assert request_reinspection(waiting_for_visit) is not None
    db.session.commit()
    assert len(smtp_sink.messages) == 1
