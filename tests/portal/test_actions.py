"""What an owner does online with the code: the § 315-21H appeal through the desk's own
rules, proof of correction for the superintendent's review, a visit asked for. Each is
audited as the code holder's and shows on the staff's pages as from the portal."""

from __future__ import annotations

import dataclasses
import io
from datetime import timedelta

import pytest
from PIL import Image
from pypdf import PdfReader
from sqlalchemy import select

from server.core import city, settings
from server.core.audit.models import AuditEvent
from server.core.extensions import db
from server.notices.models import Notice, NoticeAppeal
from server.portal.models import PortalAction, PortalFile
from tests.support.notices import draft_one, mail, post
from tests.support.office import audit_rows
from tests.support.portal import code_on_letter, form_token, lookup

FACTS = "The downspout drains to the lawn; the city's inspector saw the old pipe, now capped."


def _jpeg() -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (40, 30), (120, 90, 60)).save(buf, "JPEG")
    return buf.getvalue()


@pytest.fixture
def owner(app, lettered):
    """A browser of the owner's with the notice open."""
    browser = app.test_client()
    assert lookup(browser, lettered["code"], lettered["parcel_number"]).status_code == 200
    return browser


@pytest.fixture
def in_time(client, auth, violation) -> dict:
    """A notice mailed two days ago and delivered (an appeal today is within its 10 days), with its code."""
    notice = draft_one(client, auth)
    mailed_on = city.current().today() - timedelta(days=2)
    steps = [("approve", "superintendent", {}), ("mail", "clerk", {"mailed_on": mailed_on.isoformat()}),
             ("deliver", "clerk", {"on": (mailed_on + timedelta(days=1)).isoformat()})]
    for event, role, data in steps:
        r = (mail(client, auth, [notice["id"]], mailed_on) if event == "mail"
             else post(client, auth, role, f"/notices/{notice['id']}/{event}", data))
        assert r.status_code in (200, 201)
    return {**notice, "code": code_on_letter(notice["id"])}


@pytest.fixture
def appellant(app, in_time):
    """The owner's browser with the recent notice open."""
    browser = app.test_client()
    assert lookup(browser, in_time["code"], in_time["parcel_number"]).status_code == 200
    return browser


def _post(browser, path, data, **kwargs):
    return browser.post(path, data={"csrf_token": form_token(browser, path), **data}, **kwargs)


def test_an_appeal_filed_online_is_the_desks_appeal_with_a_receipt(appellant, in_time, office):
    r = _post(appellant, "/portal/appeal", {"facts": FACTS, "fee": "yes", "email": ""})
    assert r.status_code == 302, r.get_data(as_text=True)
    confirmation = appellant.get(r.headers["Location"]).get_data(as_text=True)
    action = db.session.scalar(select(PortalAction).filter_by(notice_id=in_time["id"], kind="appeal"))
    assert f"P-{action.id}" in confirmation and "Utility Commission" in confirmation
    appeal = db.session.get(NoticeAppeal, action.appeal_id)
    assert (appeal.facts, appeal.filed_on, appeal.level) == (FACTS, city.current().today(), "commission")
    assert db.session.get(Notice, in_time["id"]).state == "appealed"
    pdf = appellant.get(f"/portal/appeal/{action.id}/receipt.pdf")
    text = PdfReader(io.BytesIO(pdf.data)).pages[0].extract_text()
    assert f"P-{action.id}" in text and "capped" in text and "§ 315-21H" in text
    desk = office("clerk1").get("/desk/").get_data(as_text=True)
    assert f'data-online="{appeal.id}"' in desk and f"receipt P-{action.id}" in desk


def test_the_appeal_is_audited_as_the_code_holders(appellant):
    _post(appellant, "/portal/appeal", {"facts": FACTS, "fee": "yes"})
    row = db.session.scalar(select(AuditEvent).where(AuditEvent.action == "portal_appeal"))
    assert row.user_id is None and row.after["via"] == "portal" and row.after["lookup_code_id"]


def test_a_late_appeal_is_recorded_online_as_at_the_desk_and_flagged(owner, lettered):
    notice = db.session.get(Notice, lettered["id"])  # mailed 20 days ago: its 10 days are past
    r = _post(owner, "/portal/appeal", {"facts": FACTS, "fee": "yes"})
    assert r.status_code == 302
    appeal = db.session.scalar(select(NoticeAppeal).filter_by(notice_id=notice.id))
    assert appeal is not None and appeal.late  # every written appeal is recorded (issue 29)
    page = owner.get(r.headers["Location"]).get_data(as_text=True)
    assert "came after its 10 days" in page and "will decide whether to hear it" in page


def test_an_appeal_without_facts_or_the_fee_is_refused(appellant, in_time):
    assert _post(appellant, "/portal/appeal", {"facts": " ", "fee": "yes"}).status_code == 422
    assert _post(appellant, "/portal/appeal", {"facts": FACTS}).status_code == 422
    assert db.session.get(Notice, in_time["id"]).state == "delivered"


def _send_proof(owner, files, note="New sump line to the yard, done by Kulig Plumbing on Monday."):
    return _post(owner, "/portal/proof", {"note": note, "files": files}, content_type="multipart/form-data")


def test_an_accepted_proof_complies_the_notice_with_the_reason(owner, lettered, office):
    r = _send_proof(owner, [(io.BytesIO(_jpeg()), "after.jpg"), (io.BytesIO(b"%PDF-1.4\n%%EOF"), "invoice.pdf")])
    assert r.status_code == 302 and "sent=proof" in r.headers["Location"]
    action = db.session.scalar(select(PortalAction).filter_by(notice_id=lettered["id"], kind="proof"))
    kinds = sorted(f.media_type for f in db.session.scalars(select(PortalFile).filter_by(action_id=action.id)))
    assert kinds == ["application/pdf", "image/jpeg"]
    superintendent = office("superintendent1")
    queue = superintendent.get("/review/owners/").get_data(as_text=True)
    assert f'data-proof="{action.id}"' in queue
    r = superintendent.post(f"/review/owners/{action.id}", {"decision": "accept", "reason": "photo shows the cap"})
    assert r.status_code == 302
    notice = db.session.get(Notice, lettered["id"])
    assert notice.state == "complied" and notice.complied_reason == "superintendent_decision"
    assert action.state == "accepted" and action.review_note == "photo shows the cap"
    assert owner.get("/api/v1/portal/notice").get_json()["state"] == "complied"


def test_a_proof_may_be_answered_with_a_reinspection(owner, lettered, office):
    _send_proof(owner, [(io.BytesIO(_jpeg()), "after.jpg")])
    action = db.session.scalar(select(PortalAction).filter_by(notice_id=lettered["id"], kind="proof"))
    office("superintendent1").post(f"/review/owners/{action.id}", {"decision": "reinspect", "reason": "blurry"})
    assert action.state == "reinspection" and db.session.get(Notice, lettered["id"]).state == "delivered"


@pytest.mark.parametrize(("data", "status"), [
    (b"MZ\x90\x00 not a photo", 422),  # an executable
    (b"GIF89a" + b"\x00" * 64, 422),  # an image, not a kind we keep
    (b"\xff\xd8\xff\xe0" + b"\x00" * 32, 422),  # a JPEG cut short
])
def test_a_file_of_the_wrong_type_is_refused_and_nothing_kept(owner, lettered, data, status):
    before = audit_rows()
    r = _send_proof(owner, [(io.BytesIO(data), "proof.jpg")])
    assert r.status_code == status
    assert audit_rows() == before and db.session.scalar(select(PortalAction)) is None


def test_an_oversized_file_is_refused(app, owner, lettered, monkeypatch):
    small = dataclasses.replace(settings.current(), portal_file_max_bytes=1000)
    monkeypatch.setattr(settings, "current", lambda: small)
    r = _send_proof(owner, [(io.BytesIO(_jpeg() + b"\x00" * 2000), "big.jpg")])
    assert r.status_code == 413 and db.session.scalar(select(PortalAction)) is None


def test_a_visit_is_asked_for_on_days_that_suit(owner, lettered, office):
    day = city.current().today() + timedelta(days=3)
    r = _post(owner, "/portal/visit", {"day": [day.isoformat(), ""], "note": "after 3 pm"})
    assert r.status_code == 302
    action = db.session.scalar(select(PortalAction).filter_by(notice_id=lettered["id"], kind="visit"))
    assert action.preferred_days == [day.isoformat()]
    assert f'data-visit="{action.id}"' in office("superintendent1").get("/review/owners/").get_data(as_text=True)
    assert _post(owner, "/portal/visit", {"day": [city.current().today().isoformat()]}).status_code == 422


def test_the_forms_need_the_sessions_token(owner):
    r = owner.post("/portal/appeal", data={"facts": FACTS, "fee": "yes"})
    assert r.status_code == 400 and db.session.scalar(select(PortalAction)) is None
