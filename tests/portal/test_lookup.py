"""A mailed letter prints a lookup code, the portal's address and a QR code; the code and the
parcel number open that notice, in plain words, and nothing else; a closed notice's code
expires after the rulebook's days."""

from __future__ import annotations

from datetime import timedelta

from server.core import city
from server.core.extensions import db
from server.notices.events import portal_invite
from server.notices.models import Notice
from server.portal import codes
from server.portal.models import LookupCode
from tests.support.notices import OWNER, draft_one, post, walk
from tests.support.portal import code_on_letter, form_token, letter_text, lookup


def test_the_letter_prints_the_code_and_the_portals_address(lettered):
    text = letter_text(lettered["id"])
    assert "/portal/" in text and lettered["code"] in text
    stored = [c.code_sha256 for c in db.session.query(LookupCode).filter_by(notice_id=lettered["id"])]
    assert codes.digest(codes.normalise(lettered["code"])) in stored  # each print issues its own


def test_the_qr_code_carries_the_address_and_the_code_after_a_hash(lettered):
    printed = db.session.query(LookupCode).filter_by(notice_id=lettered["id"]).count()
    invite = portal_invite(db.session.get(Notice, lettered["id"]))
    assert invite.qr == f"{invite.address}#code={invite.code}" and invite.address.endswith("/portal/")
    assert db.session.query(LookupCode).filter_by(notice_id=lettered["id"]).count() == printed + 1  # each its own


def test_a_code_on_a_letter_printed_but_not_mailed_opens_nothing(client, auth, violation):
    """Issue 29: a letter is printed, with its code, before the clerk records it as mailed
    (or after a mistaken recording is voided); until then the code opens nothing."""
    notice = walk(client, auth, draft_one(client, auth)["id"], "approved")
    post(client, auth, "clerk", "/mailings", {"notice_ids": [notice["id"]]})
    code = code_on_letter(notice["id"])
    r = lookup(client, code, notice["parcel_number"])
    assert r.status_code in (403, 404, 422) and r.get_json()["error"]["code"] == "lookup_failed", r.get_json()


def test_the_code_and_parcel_number_open_the_notice_in_plain_words(client, lettered):
    r = lookup(client, lettered["code"].lower().replace("-", " "), lettered["parcel_number"].replace("-", ""))
    assert r.status_code == 200, r.get_json()
    body = r.get_json()
    assert body["state"] == "served" and body["parcel"]["parcel_number"] == lettered["parcel_number"]
    assert body["deadline"] == lettered["deadline"] and body["deadline_steps"]
    assert body["findings"] and body["action"] and body["contact"]["phone"] == "(608) 555-0147"
    assert client.get("/api/v1/portal/notice").get_json() == body


def test_nothing_about_the_owner_is_shown(client, lettered):
    body = lookup(client, lettered["code"], lettered["parcel_number"]).get_data(as_text=True)
    page = client.get("/portal/notice").get_data(as_text=True)
    for text in (body, page):
        assert OWNER not in text and "DETTLOFF" not in text and f'"id": {lettered["id"]}' not in text


def test_the_page_form_opens_the_notice(client, lettered):
    token = form_token(client)
    r = client.post("/portal/", data={"csrf_token": token, "code": lettered["code"],
                                      "parcel_number": lettered["parcel_number"]})
    assert r.status_code == 302 and r.headers["Location"].endswith("/portal/notice")
    page = client.get("/portal/notice").get_data(as_text=True)
    assert "Where it stands" in page and "How we counted this date" in page
    assert lettered["parcel_number"] in page


def test_the_state_follows_the_notice(client, auth, lettered):
    lookup(client, lettered["code"], lettered["parcel_number"])
    r = post(client, auth, "clerk", f"/notices/{lettered['id']}/appeal",
             {"on": lettered["mailed_on"], "note": "The downspout drains to the lawn."})
    assert r.status_code == 200, r.get_json()
    assert client.get("/api/v1/portal/notice").get_json()["state"] == "under appeal"


def test_a_closed_notice_opens_until_its_days_after_closing(app, client, auth, lettered):
    post(client, auth, "superintendent", f"/notices/{lettered['id']}/comply", {"note": "plumber's invoice"})
    days = city.current().rulebook.section("portal")["code_days_after_close"]
    assert lookup(client, lettered["code"], lettered["parcel_number"]).get_json()["state"] == "complied"
    notice = db.session.get(Notice, lettered["id"])
    notice.complied_on = city.current().today() - timedelta(days=days + 1)
    db.session.flush()
    assert client.get("/api/v1/portal/notice").status_code == 401  # the session's code expired too
    assert lookup(client, lettered["code"], lettered["parcel_number"]).get_json()["error"]["code"] == "lookup_failed"


def test_the_photos_the_letter_prints_are_shared_and_no_others(client, lettered, tmp_path, monkeypatch):
    from PIL import Image

    from server.portal import lookup as portal_lookup

    photo = tmp_path / "failed.jpg"
    Image.new("RGB", (800, 600), (200, 40, 40)).save(photo, "JPEG")
    monkeypatch.setattr(portal_lookup, "photo_paths", lambda notice: (photo,))
    assert client.get("/portal/notice/photos/1").status_code == 302  # no code yet
    assert lookup(client, lettered["code"], lettered["parcel_number"]).get_json()["photos"] == 1
    r = client.get("/portal/notice/photos/1")
    assert r.status_code == 200 and r.mimetype == "image/jpeg" and r.data[:2] == b"\xff\xd8"
    assert client.get("/portal/notice/photos/2").status_code == 404
    assert 'alt="Photo 1 the city took at the property"' in client.get("/portal/notice").get_data(as_text=True)
