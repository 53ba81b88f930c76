"""A verified plumber's permits on the portal: the application with the owner's consent and
the fees shown first, through the permits workflow; the refusals that write nothing; their
own permits only (another plumber's is the same 404 as none); the card once issued; the
inspection and the reinspection they ask for."""

from __future__ import annotations

import io
import re
from datetime import timedelta

import pytest
from PIL import Image
from sqlalchemy import func, select

from server.core import city, settings
from server.core.accounts.models import User
from server.core.audit.models import AuditEvent
from server.core.extensions import db
from server.permits.models import Permit, PermitAttachment
from server.portal import plumber_permits, plumbers
from tests.support.office import audit_rows
from tests.support.permits import THAWED_DAY, walk
from tests.support.plumbers import (
    CONSENT_PDF,
    add_plumber,
    application_form,
    apply_on_page,
    bearer,
    logged_in,
    png,
    token,
)
from tests.support.portal import hold_code

EARLIEST = f"{THAWED_DAY.isoformat()}T08:00"


def _permits() -> int:
    return db.session.scalar(select(func.count(Permit.id)))


@pytest.fixture
def browser(app, plumber):
    return logged_in(app, plumber)


@pytest.fixture
def applied(browser, parcel) -> Permit:
    r = apply_on_page(browser, parcel.parcel_number)
    assert r.status_code == 302, r.get_data(as_text=True)
    permit_id = int(re.search(r"/portal/plumbers/permits/(\d+)", r.headers["Location"]).group(1))
    return db.session.get(Permit, permit_id)


def _page(browser, permit: Permit) -> str:
    return browser.get(f"/portal/plumbers/permits/{permit.id}").get_data(as_text=True)


def _ask(browser, permit: Permit, earliest: str = EARLIEST, contact: str = "Dana, 608-555-0190"):
    return browser.post(f"/portal/plumbers/permits/{permit.id}/inspection",
                        data={"csrf_token": token(browser), "earliest": earliest, "contact": contact})


# ------------------------------------------------------------------ applying


def test_the_fees_from_the_rulebook_are_shown_before_applying(browser):
    page = browser.get("/portal/plumbers/apply").get_data(as_text=True)
    assert 'data-kind="new_connection">$600.00' in page  # 500 + 50 + 50 (arcadia.toml)
    assert "Connection charge $500.00" in page and 'name="consent"' in page
    assert "connected to the city's sewer on June 1, 2009" in page  # the rulebook's day (§ 315-11E(2))


def test_a_verified_plumber_applies_through_the_permits_workflow(applied, plumber, parcel):
    lic = plumbers.license_of(plumber)
    assert (applied.state, applied.parcel_id, applied.plumber_user_id) == ("applied", parcel.id, plumber.id)
    assert (applied.applicant_name, applied.plumber_name, applied.plumber_license) == (
        "Dana Kulig", "Dana Kulig", lic.license_number)
    assert (applied.applicant_is_owner, applied.owner_consent_by) == (False, "Olive Owner")
    assert str(applied.fee_total) == "600.00" and not applied.paid
    [consent] = db.session.scalars(select(PermitAttachment).filter_by(permit_id=applied.id)).all()
    assert (consent.description, consent.media_type, consent.size) == (plumber_permits.CONSENT, "application/pdf",
                                                                       len(CONSENT_PDF))
    actions = {a.action: a.user_id for a in db.session.scalars(
        select(AuditEvent).where(AuditEvent.subject_type == "permit", AuditEvent.subject_id == applied.id))}
    # audited as the plumber's: the application, the consent kept with it
    assert actions == {"apply": plumber.id, "attach": plumber.id, "portal_permit_application": plumber.id}


def test_the_desk_sees_it_came_from_the_portal_with_the_consent(applied, office):
    clerk = office("clerk1")
    page = clerk.get(f"/permits/{applied.id}").get_data(as_text=True)
    assert "the plumbers' portal" in page
    link = re.search(r'href="(/permits/\d+/files/\d+)"', page).group(1)
    assert clerk.get(link).get_data() == CONSENT_PDF


def test_a_plumber_who_owns_the_property_needs_no_consent(browser, parcel):
    r = apply_on_page(browser, parcel.parcel_number, plumber_is_owner="yes", owner_name=None, consent=None,
                      consent_signed_on=None)
    assert r.status_code == 302
    permit = db.session.scalar(select(Permit).order_by(Permit.id.desc()))
    assert permit.applicant_is_owner and db.session.scalar(select(func.count(PermitAttachment.id))) == 0


def test_a_photo_of_the_signed_consent_is_taken(browser, parcel):
    r = apply_on_page(browser, parcel.parcel_number, consent=(io.BytesIO(png()), "consent.png"))
    assert r.status_code == 302
    assert db.session.scalar(select(PermitAttachment.media_type)) == "image/png"


def _webp() -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (20, 20)).save(buf, "WEBP")
    return buf.getvalue()


@pytest.mark.parametrize(("changes", "status", "words"), [
    ({"consent": None}, 422, "attach the owner"),
    ({"owner_name": None}, 422, "attach the owner"),
    ({"consent": "gif"}, 422, "neither a photo nor a PDF"),
    ({"consent": "webp"}, 422, "PDF, JPEG or PNG"),
    ({"consent": "huge"}, 413, "larger than"),
    ({"inside_limits": "no"}, 422, "corporate limits"),
    ({"parcel_number": "000-00000-0000"}, 422, "no parcel has this number"),
    ({"connection_size_in": "5.0"}, 422, "connection&#39;s size"),
    ({"wastes": " "}, 422, "what wastes"),
])
def test_a_refused_application_says_why_and_writes_nothing(app, browser, parcel, changes, status, words):
    files = {"gif": lambda: (io.BytesIO(b"GIF89a not a consent"), "consent.gif"),
             "webp": lambda: (io.BytesIO(_webp()), "consent.webp"),
             "huge": lambda: (io.BytesIO(CONSENT_PDF + b"0" * settings.current().portal_file_max_bytes), "c.pdf")}
    changes = {k: files[v]() if k == "consent" and v in files else v for k, v in changes.items()}
    db.session.commit()  # the parcel: the refused request rolls back to here
    before = (audit_rows(), _permits())
    r = apply_on_page(browser, parcel.parcel_number, **changes)
    assert r.status_code == status and words in r.get_data(as_text=True)
    assert (audit_rows(), _permits()) == before


def test_outside_the_limits_with_a_connection_on_the_day_is_taken(browser, parcel):
    r = apply_on_page(browser, parcel.parcel_number, inside_limits="no", connected_by_cutoff="yes")
    assert r.status_code == 302
    assert db.session.scalar(select(Permit.surcharged))


def test_an_expired_license_blocks_the_application(browser, plumber, parcel):
    plumbers.license_of(plumber).expires_on = city.current().today() - timedelta(days=1)
    db.session.commit()
    assert "You cannot apply for a new permit now" in browser.get("/portal/plumbers/apply").get_data(as_text=True)
    before = (audit_rows(), _permits())
    r = apply_on_page(browser, parcel.parcel_number)
    assert r.status_code == 422 and "expired" in r.get_data(as_text=True)
    assert (audit_rows(), _permits()) == before


def test_an_unverified_plumber_cannot_apply_even_with_a_token(app, parcel):
    user = add_plumber("newbie", license_number="MP-555666", verified=False)
    before = _permits()
    r = app.test_client().post("/api/v1/portal/permits", data=application_form(parcel.parcel_number),
                               headers=bearer(user), content_type="multipart/form-data")
    assert r.status_code == 401 and _permits() == before


def test_the_api_takes_an_application_and_lists_the_plumbers_permits(app, plumber, parcel):
    api = app.test_client()
    headers = bearer(plumber)
    fees = api.get("/api/v1/portal/permits/fees", headers=headers).get_json()
    assert fees["tap"]["total"] == "100.00"
    r = api.post("/api/v1/portal/permits", data=application_form(parcel.parcel_number), headers=headers,
                 content_type="multipart/form-data")
    assert r.status_code == 201, r.get_json()
    body = r.get_json()
    assert (body["state"], body["fee_total"], body["paid"]) == ("applied", "600.00", False)
    listed = api.get("/api/v1/portal/permits", headers=headers).get_json()["permits"]
    assert [p["id"] for p in listed] == [body["id"]]


def test_the_api_refuses_a_missing_consent_with_the_error_shape(app, plumber, parcel):
    r = app.test_client().post("/api/v1/portal/permits", data=application_form(parcel.parcel_number, consent=None),
                               headers=bearer(plumber), content_type="multipart/form-data")
    assert r.status_code == 422 and r.get_json()["error"]["code"] == "owner_consent_missing"


# ------------------------------------------------------------------ their own permits only


def test_another_plumbers_permit_is_the_same_404_as_none(app, applied):
    other = add_plumber("other", name="Oscar Pipe", license_number="MP-777888")
    browser, headers = logged_in(app, other), bearer(other)
    missing = applied.id + 1000
    for permit_id in (applied.id, missing):
        for r in (browser.get(f"/portal/plumbers/permits/{permit_id}"),
                  browser.get(f"/portal/plumbers/permits/{permit_id}/card.pdf"),
                  app.test_client().get(f"/api/v1/portal/permits/{permit_id}", headers=headers),
                  app.test_client().post(f"/api/v1/portal/permits/{permit_id}/inspection", headers=headers,
                                         json={"earliest": "2099-06-15T08:00:00-05:00", "contact": "x"})):
            assert r.status_code == 404 and applied.number not in r.get_data(as_text=True)
    assert app.test_client().get("/api/v1/portal/permits", headers=headers).get_json() == {"permits": []}
    assert applied.number not in browser.get("/portal/plumbers/").get_data(as_text=True)


def test_the_staff_routes_stay_closed_to_plumbers(app, applied, plumber):
    api, headers = app.test_client(), bearer(plumber)
    assert api.get("/api/v1/permits", headers=headers).status_code == 403
    assert api.get(f"/api/v1/permits/{applied.id}", headers=headers).status_code == 403
    r = api.post(f"/api/v1/permits/{applied.id}/request_inspection", headers=headers,
                 json={"earliest": "2099-06-15T08:00:00-05:00", "contact": "x"})
    assert r.status_code == 403


def test_the_list_shows_state_and_fees_due_then_paid(browser, client, auth, applied):
    home = browser.get("/portal/plumbers/").get_data(as_text=True)
    assert f'data-permit="{applied.id}"' in home and "Fees due: $600.00" in home
    walk(client, auth, applied.id, "issued")
    home = browser.get("/portal/plumbers/").get_data(as_text=True)
    assert "Fees paid." in home and 'data-state="issued"' in home
    assert "paid on" in _page(browser, applied)


def test_the_card_is_printed_once_issued(browser, client, auth, applied):
    path = f"/portal/plumbers/permits/{applied.id}/card.pdf"
    assert browser.get(path).status_code == 404
    walk(client, auth, applied.id, "issued")
    r = browser.get(path)
    assert r.status_code == 200 and r.mimetype == "application/pdf" and r.get_data().startswith(b"%PDF")


# ------------------------------------------------------------------ inspections


def test_the_inspection_is_not_asked_for_before_the_work_day_is_set(browser, client, auth, applied):
    walk(client, auth, applied.id, "issued")
    before = audit_rows()
    r = _ask(browser, applied)
    assert r.status_code == 409 and "once the clerk has set the day of the work" in r.get_data(as_text=True)
    assert audit_rows() == before and applied.state == "issued"


def test_the_plumber_asks_for_the_inspection_and_sees_it_scheduled(browser, client, auth, templates, applied,
                                                                     plumber):
    walk(client, auth, applied.id, "scheduled")
    r = _ask(browser, applied)
    assert r.status_code == 302
    assert (applied.state, applied.inspection_contact) == ("inspection_requested", "Dana, 608-555-0190")
    assert applied.inspection_earliest is not None
    row = db.session.scalar(select(AuditEvent).where(AuditEvent.action == "permit_request_inspection"))
    assert row.user_id == plumber.id
    page = _page(browser, applied)
    assert "we will tell you the day" in page
    assert f"ready from {THAWED_DAY.isoformat()} 08:00 CDT" in page  # the city's time, as typed
    inspector = db.session.scalar(select(User).filter_by(role="inspector"))
    assert client.post(f"/api/v1/permits/{applied.id}/assign", json={"inspector_id": inspector.id},
                       headers=auth["superintendent"]).status_code == 200
    assert f"an inspector will come on {THAWED_DAY.isoformat()}" in _page(browser, applied)


@pytest.mark.parametrize(("earliest", "contact", "words"), [
    ("", "Dana", "trench is ready"), (EARLIEST, "  ", "calls on site"), ("2001-01-01T08:00", "Dana", "in the past")])
def test_a_bad_inspection_request_writes_nothing(browser, client, auth, applied, earliest, contact, words):
    walk(client, auth, applied.id, "scheduled")
    before = audit_rows()
    r = _ask(browser, applied, earliest, contact)
    assert r.status_code == 422 and words in r.get_data(as_text=True)
    assert audit_rows() == before and applied.state == "scheduled"


def test_after_a_failed_inspection_the_corrections_show_and_the_reinspection_is_asked(browser, client, auth, applied):
    walk(client, auth, applied.id, "scheduled")
    assert _ask(browser, applied).status_code == 302
    correction = {"item": "tracer_wire", "section": "§ 315-13C(3)", "measured": "none at the wall",
                  "note": "Tracer wire not brought to the surface"}
    r = client.post(f"/api/v1/permits/{applied.id}/fail", json={"corrections": [correction]},
                    headers=auth["inspector"])
    assert r.status_code == 200, r.get_json()
    page = _page(browser, applied)
    assert 'data-result="failed"' in page
    assert "Tracer wire not brought to the surface (§ 315-13C(3); measured none at the wall)" in page
    assert "Ask for the reinspection" in page
    assert _ask(browser, applied).status_code == 302 and applied.state == "inspection_requested"
    plumber = db.session.get(User, applied.plumber_user_id)
    api = client.get(f"/api/v1/portal/permits/{applied.id}", headers=bearer(plumber))
    assert api.get_json()["results"][0]["corrections"][0]["measured"] == "none at the wall"


def test_the_api_asks_for_the_inspection(app, client, auth, applied, plumber):
    walk(client, auth, applied.id, "scheduled")
    r = app.test_client().post(f"/api/v1/portal/permits/{applied.id}/inspection", headers=bearer(plumber),
                               json={"earliest": "2099-06-15T08:00:00-05:00", "contact": "Dana, 608-555-0190"})
    assert r.status_code == 200, r.get_json()
    body = r.get_json()
    assert body["state"] == "inspection_requested"
    assert body["inspection"]["earliest"] == "2099-06-15T08:00:00-05:00"  # in the city's zone, with its offset


# ------------------------------------------------------------------ the public surface


def test_the_application_form_needs_the_sessions_token(browser, parcel):
    before = (audit_rows(), _permits())
    r = browser.post("/portal/plumbers/apply", data=application_form(parcel.parcel_number),
                     content_type="multipart/form-data")
    assert r.status_code == 400 and (audit_rows(), _permits()) == before


def test_the_api_with_the_session_cookie_needs_the_csrf_header(browser, parcel):
    before = _permits()
    r = browser.post("/api/v1/portal/permits", data=application_form(parcel.parcel_number),
                     content_type="multipart/form-data")
    assert r.status_code == 403 and r.get_json()["error"]["code"] == "csrf_failed" and _permits() == before


def test_a_code_holder_or_a_stranger_opens_no_plumbers_page(app, applied):
    holder = app.test_client()
    hold_code(holder)
    for who in (holder, app.test_client()):
        for path in ("/portal/plumbers/", "/portal/plumbers/apply", f"/portal/plumbers/permits/{applied.id}"):
            r = who.get(path)
            assert r.status_code in (302, 401) and applied.number not in r.get_data(as_text=True)
        assert who.get("/api/v1/portal/permits").status_code == 401


def test_a_staff_login_opens_no_plumbers_page(office, applied):
    clerk = office("clerk1")
    assert clerk.get(f"/portal/plumbers/permits/{applied.id}").status_code == 403


@pytest.mark.parametrize(("changes", "words"), [
    ({"parcel_number": "000-00000-0000"}, "ninguna parcela tiene este número"),
    ({"consent": "gif"}, "consent.gif no es una foto ni un PDF"),
    ({"wastes": " "}, "diga qué aguas residuales llevará la conexión"),
])
def test_a_refusal_speaks_the_plumbers_language(browser, parcel, changes, words):
    """The service's refusals go through the catalogue, so a Spanish page says why in Spanish."""
    if changes.get("consent") == "gif":
        changes = {"consent": (io.BytesIO(b"GIF89a not a consent"), "consent.gif")}
    assert browser.get("/portal/plumbers/apply?lang=es").status_code == 200
    r = apply_on_page(browser, parcel.parcel_number, **changes)
    assert r.status_code == 422 and words in r.get_data(as_text=True)
