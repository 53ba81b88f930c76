"""Scanned forms attached to a permit: at the counter with the application, later from the
permit's page, and over the API; listed on the page and downloadable by the office; a bad
file refused with a clear error and nothing kept."""

from __future__ import annotations

import io
from dataclasses import replace

import pytest
from PIL import Image
from sqlalchemy import func, select

from server.core import settings
from server.core.extensions import db
from server.permits.models import Permit, PermitAttachment
from tests.support.office import audit_rows
from tests.support.permits import VALID_UNTIL, apply

PDF = b"%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n"


def _image(fmt: str, size=(120, 80)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, (240, 240, 230)).save(out, fmt)
    return out.getvalue()


def _count() -> int:
    return db.session.scalar(select(func.count(PermitAttachment.id)))


def _post(client, auth, permit_id, files, role="clerk", **form):
    data = {"files": [(io.BytesIO(body), name) for name, body in files], **form}
    return client.post(f"/api/v1/permits/{permit_id}/attachments", data=data, headers=auth[role],
                       content_type="multipart/form-data")


def test_the_api_attaches_lists_and_serves_scanned_forms(client, auth, parcel):
    permit = apply(client, auth, parcel.id)
    png, jpeg = _image("PNG"), _image("JPEG")
    response = _post(client, auth, permit["id"], [("application.pdf", PDF), ("consent.png", png),
                                                  ("plan.jpg", jpeg)], description="signed at the counter")
    assert response.status_code == 201, response.get_json()
    kept = response.get_json()
    assert [(a["filename"], a["media_type"]) for a in kept] == [
        ("application.pdf", "application/pdf"), ("consent.png", "image/png"), ("plan.jpg", "image/jpeg")]
    listed = client.get(f"/api/v1/permits/{permit['id']}/attachments", headers=auth["clerk"]).get_json()
    assert [a["id"] for a in listed] == [a["id"] for a in kept]
    assert listed[0]["description"] == "signed at the counter"
    served = client.get(f"/api/v1/permits/{permit['id']}/attachments/{kept[1]['id']}", headers=auth["superintendent"])
    assert served.status_code == 200 and served.data == png and served.mimetype == "image/png"
    pdf = client.get(f"/api/v1/permits/{permit['id']}/attachments/{kept[0]['id']}", headers=auth["clerk"])
    assert pdf.data == PDF and pdf.headers["Content-Disposition"].startswith("attachment")


def test_an_inspector_neither_attaches_nor_reads_the_forms(client, auth, parcel):
    permit = apply(client, auth, parcel.id)
    assert _post(client, auth, permit["id"], [("a.pdf", PDF)], role="inspector").status_code == 403
    assert client.get(f"/api/v1/permits/{permit['id']}/attachments", headers=auth["inspector"]).status_code == 403


def test_another_permits_file_is_not_found(client, auth, parcel):
    first, second = apply(client, auth, parcel.id), apply(client, auth, parcel.id)
    kept = _post(client, auth, first["id"], [("a.pdf", PDF)]).get_json()
    wrong = client.get(f"/api/v1/permits/{second['id']}/attachments/{kept[0]['id']}", headers=auth["clerk"])
    assert wrong.status_code == 404


def _truncated_png() -> bytes:
    return _image("PNG", (400, 400))[:-200]


@pytest.mark.parametrize(("name", "body", "code", "fragment"), [
    ("notes.txt", b"just some text", "unsupported_format", "neither a PDF nor a JPEG or PNG"),
    ("scan.gif", "gif", "unsupported_format", "scans are kept as PDF, JPEG or PNG"),
    ("scan.png", "truncated png", "truncated", "scan.png"),
    ("form.pdf", b"%PDF-1.4\n1 0 obj", "truncated", "ends early"),
    ("big.pdf", "too large", "too_large", "larger than"),
])
def test_a_bad_file_is_refused_and_nothing_is_kept(client, auth, parcel, app, monkeypatch, name, body, code,
                                                   fragment):
    permit = apply(client, auth, parcel.id)
    if body == "gif":
        body = _image("GIF")
    if body == "truncated png":
        body = _truncated_png()
    if body == "too large":
        monkeypatch.setitem(app.extensions, settings.EXTENSION,
                            replace(settings.of(app), permit_file_max_bytes=len(PDF) - 1))
        body = PDF
    before = (_count(), audit_rows())
    response = _post(client, auth, permit["id"], [("good.pdf", PDF), (name, body)])
    error = response.get_json()["error"]
    assert error["code"] == code and fragment in error["message"], error
    assert response.status_code in (413, 422)
    assert (_count(), audit_rows()) == before


def test_no_file_is_a_clear_error(client, auth, parcel):
    permit = apply(client, auth, parcel.id)
    response = client.post(f"/api/v1/permits/{permit['id']}/attachments", data={}, headers=auth["clerk"],
                           content_type="multipart/form-data")
    assert response.status_code == 422 and response.get_json()["error"]["code"] == "invalid_fields"


FORM = {"kind": "new_connection", "applicant_name": "Dana Kowalski", "applicant_is_owner": "yes",
        "plumber_name": "Trempealeau Plumbing", "plumber_license": "222614-222",
        "plumber_license_expires": VALID_UNTIL.isoformat(), "wastes": "domestic sewage", "connection_kind": "gravity",
        "connection_size_in": "6", "inside_limits": "yes"}


def test_the_clerk_attaches_the_scans_with_the_application_and_the_page_lists_them(office, parcel):
    clerk = office("clerk1")
    response = clerk.post("/permits/new", {**FORM, "parcel_number": parcel.parcel_number,
                                           "description": "application and consent",
                                           "files": [(io.BytesIO(PDF), "application.pdf")]},
                          content_type="multipart/form-data")
    assert response.status_code == 302, response.get_data(as_text=True)
    permit = db.session.scalar(select(Permit).filter_by(parcel_id=parcel.id))
    row = db.session.scalar(select(PermitAttachment).filter_by(permit_id=permit.id))
    assert row.filename == "application.pdf" and row.description == "application and consent"
    page = clerk.get(f"/permits/{permit.id}").get_data(as_text=True)
    assert f'data-attachment="{row.id}"' in page and "application.pdf" in page
    assert clerk.get(f"/permits/{permit.id}/files/{row.id}").data == PDF


def test_a_refused_scan_at_the_counter_takes_no_application(office, parcel):
    clerk = office("clerk1")
    response = clerk.post("/permits/new", {**FORM, "parcel_number": parcel.parcel_number,
                                           "files": [(io.BytesIO(b"not a scan"), "scan.doc")]},
                          content_type="multipart/form-data")
    assert response.status_code == 422
    assert "scan.doc: neither a PDF nor a JPEG or PNG image" in response.get_data(as_text=True)
    assert db.session.scalar(select(func.count(Permit.id)).filter_by(parcel_id=parcel.id)) == 0
    assert _count() == 0


def test_scans_attached_from_the_permit_page(client, auth, office, parcel):
    permit = apply(client, auth, parcel.id)
    clerk = office("clerk1")
    jpeg = _image("JPEG")
    done = clerk.post(f"/permits/{permit['id']}/attach", {"files": [(io.BytesIO(jpeg), "plan.jpg")]},
                      content_type="multipart/form-data", follow=True)
    assert "1 file attached" in done.get_data(as_text=True)
    refused = clerk.post(f"/permits/{permit['id']}/attach", {"files": [(io.BytesIO(b"%PDF-1"), "cut.pdf")]},
                         content_type="multipart/form-data", follow=True)
    assert "Nothing was attached: cut.pdf: the PDF ends early" in refused.get_data(as_text=True)
    assert [a.filename for a in db.session.scalars(select(PermitAttachment).filter_by(permit_id=permit["id"]))] \
        == ["plan.jpg"]
