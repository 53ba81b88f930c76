"""Plumbers' CCTV submittals on both databases: the form and its coded observations (a bad
value names its field and writes nothing), the video over tus (sniffed, sized, the
plumber's own), staff review with range requests, the certificate of compliance and the
repair notice through the notices domain's drafting."""

from __future__ import annotations

import hashlib
import io
import re
from datetime import timedelta

import pytest
from pypdf import PdfReader
from sqlalchemy import func, select

from server.core import city
from server.core.extensions import db
from server.notices.models import Notice
from server.permits.models import Permit
from server.portal.cctv_models import CctvCertificate, CctvObservation, CctvSubmittal
from server.portal.cctv_pages import PATCH_MAX_BYTES, PATCH_SLACK_BYTES, TUS
from server.portal.models import PlumberLicense
from server.rules.models import Violation
from tests.support.cctv import (
    add_plumber,
    create_upload,
    head,
    latest,
    log_in,
    mp4_bytes,
    patch,
    submit,
    upload,
    webm_bytes,
)
from tests.support.env import REPO_ROOT
from tests.support.notices import add_parcel, mail
from tests.support.office import audit_rows
from tests.support.portal import letter_text


@pytest.fixture
def filming_plumber(app, parcel):
    """A verified plumber's logged-in browser, with ``.user`` (the parcel and the plumber
    committed: a refused request rolls back its own work only)."""
    browser = app.test_client()
    browser.user = add_plumber()
    db.session.commit()
    log_in(browser, browser.user)
    return browser


@pytest.fixture
def cctv_received(filming_plumber, parcel):
    """A submittal of ``parcel`` whose MP4 arrived."""
    assert submit(filming_plumber, parcel.parcel_number).status_code == 302
    s = latest()
    r = upload(filming_plumber, s.id, mp4_bytes())
    assert r.status_code == 201, r.get_data(as_text=True)
    return s


def _path(created) -> str:
    """The upload's URL path, from the creation's ``Location``."""
    return created.headers["Location"].replace("http://localhost", "")


def _count(model) -> int:
    return db.session.scalar(select(func.count()).select_from(model))


def test_a_submittal_keeps_its_coded_observations_and_waits_for_its_video(filming_plumber, parcel):
    before = audit_rows()
    r = submit(filming_plumber, parcel.parcel_number)
    assert r.status_code == 302
    s = latest()
    assert (s.plumber_id, s.parcel_id, s.state) == (filming_plumber.user.id, parcel.id, "awaiting_video")
    rows = db.session.scalars(select(CctvObservation).filter_by(submittal_id=s.id).order_by("position")).all()
    assert [(o.code, o.distance_ft, o.clock, o.grade, o.seconds) for o in rows] == [
        ("FM", 23.5, 12, 4, 1.0), ("RMJ", 41.0, 3, 2, None)]
    assert audit_rows() == before + 1
    page = filming_plumber.get(r.headers["Location"]).get_data(as_text=True)
    assert 'id="cctv-upload"' in page and "fracture multiple (FM)" in page and 'data-state="awaiting_video"' in page


@pytest.mark.parametrize(("field", "value", "named"), [
    ("obs-1-code", "ZZ", "observations.1.code"),
    ("obs-1-code", "", "observations.1.code"),
    ("obs-2-distance_ft", "forty", "observations.2.distance_ft"),
    ("obs-2-distance_ft", "-3", "observations.2.distance_ft"),
    ("obs-2-distance_ft", "12.25", "observations.2.distance_ft"),
    ("obs-1-clock", "13", "observations.1.clock"),
    ("obs-1-clock", "0", "observations.1.clock"),
    ("obs-2-grade", "6", "observations.2.grade"),
    ("obs-2-grade", "2.5", "observations.2.grade"),
    ("parcel_number", "000-nothing", "parcel_number"),
    ("inspected_on", "yesterday", "inspected_on"),
    ("permit_number", "P-NOPE", "permit_number"),
])
def test_a_bad_value_is_named_and_nothing_is_written(filming_plumber, parcel, field, value, named):
    before = (audit_rows(), _count(CctvSubmittal), _count(CctvObservation))
    r = submit(filming_plumber, parcel.parcel_number, **{field: value})
    assert r.status_code == 422
    assert f'data-field="{named}"' in r.get_data(as_text=True)
    assert (audit_rows(), _count(CctvSubmittal), _count(CctvObservation)) == before


def test_a_report_without_observations_is_refused(filming_plumber, parcel):
    empty = {f"obs-{n}-{k}": "" for n in (1, 2) for k in ("code", "distance_ft", "clock", "grade", "seconds", "remark")}
    r = submit(filming_plumber, parcel.parcel_number, **empty)
    assert r.status_code == 422 and 'data-field="observations"' in r.get_data(as_text=True)


def test_the_inspection_day_cannot_be_in_the_future(filming_plumber, parcel):
    tomorrow = (city.current().today() + timedelta(days=1)).isoformat()
    r = submit(filming_plumber, parcel.parcel_number, inspected_on=tomorrow)
    assert r.status_code == 422 and 'data-field="inspected_on"' in r.get_data(as_text=True)


def _permit(parcel, license_number: str) -> Permit:
    permit = Permit(number=f"LR-{parcel.id}", kind="lateral_repair", state="issued", parcel_id=parcel.id,
                    applied_on=city.current().today(), applicant_name="Ann Kulig", plumber_name="Pat",
                    plumber_license=license_number, plumber_license_expires=city.current().today() + timedelta(days=9),
                    wastes="domestic", connection_size_in=4.0, fees={}, fee_total=0)
    db.session.add(permit)
    db.session.flush()
    return permit


def test_the_plumbers_own_permit_is_recorded_and_anothers_is_refused(filming_plumber, parcel):
    mine = db.session.scalar(select(PlumberLicense).filter_by(user_id=filming_plumber.user.id))
    permit = _permit(parcel, mine.license_number)
    assert submit(filming_plumber, parcel.parcel_number, permit_number=permit.number).status_code == 302
    assert latest().permit_id == permit.id
    other = _permit(add_parcel(), "MP-999999")
    r = submit(filming_plumber, db.session.get(type(parcel), other.parcel_id).parcel_number, permit_number=other.number)
    assert r.status_code == 422 and 'data-field="permit_number"' in r.get_data(as_text=True)


def test_an_unverified_plumber_cannot_log_in_to_submit(app, parcel):
    browser = app.test_client()
    user = add_plumber(verified=False)
    r = browser.post("/login", data={"username": user.username, "password": "pipe wrench and a level"})
    assert r.status_code != 302
    assert browser.get("/portal/plumbers/cctv/new").status_code in (302, 401)


# ------------------------------------------------------------------ the video over tus


@pytest.mark.parametrize(("data", "kind"), [(mp4_bytes(), "video/mp4"), (mp4_bytes(b"qt  "), "video/quicktime"),
                                            (webm_bytes(), "video/webm")])
def test_the_video_arrives_over_tus_and_the_submittal_is_received(app, filming_plumber, parcel, data, kind):
    submit(filming_plumber, parcel.parcel_number)
    s = latest()
    r = upload(filming_plumber, s.id, data)
    assert r.status_code == 201, r.get_data(as_text=True)
    assert r.headers["Upload-Offset"] == str(len(data))
    db.session.refresh(s)
    assert (s.state, s.video_media_type, s.video_size) == ("received", kind, len(data))
    assert s.video_sha256 == hashlib.sha256(data).hexdigest()
    with app.extensions["lateral_blobs"].open(s.video_sha256) as f:
        assert f.read() == data


@pytest.mark.parametrize("data", [b"\xff\xd8\xff\xe0" + bytes(2000), b"%PDF-1.7\n" + bytes(2000),
                                  mp4_bytes()[:-100], b"\x1a\x45\xdf\xa3\x84\x42\x82\x81x" + bytes(100)])
def test_a_file_that_is_not_a_video_is_refused_and_nothing_kept(filming_plumber, parcel, data):
    submit(filming_plumber, parcel.parcel_number)
    s = latest()
    r = upload(filming_plumber, s.id, data, filename="lateral.mp4")
    assert r.status_code == 415 and r.get_json()["error"]["code"] == "not_a_video"
    db.session.refresh(s)
    assert (s.state, s.video_sha256) == ("awaiting_video", None)


def test_an_oversized_video_is_refused_before_any_byte(app, filming_plumber, parcel):
    submit(filming_plumber, parcel.parcel_number)
    r = upload(filming_plumber, latest().id, b"", length=app.config["CCTV_MAX_BYTES"] + 1)
    assert r.status_code == 413 and r.get_json()["error"]["code"] == "too_large"


def test_a_request_carrying_more_than_one_part_is_refused(filming_plumber, parcel):
    submit(filming_plumber, parcel.parcel_number)
    s = latest()
    big = mp4_bytes(mdat=PATCH_MAX_BYTES + 2 * 1024 * 1024)
    assert upload(filming_plumber, s.id, big).status_code == 413
    db.session.refresh(s)
    assert s.state == "awaiting_video"


def test_nginx_takes_the_parts_the_app_takes():
    """deploy/nginx/lateral.conf's limit for the CCTV uploads is the app's, in MiB."""
    conf = (REPO_ROOT / "deploy" / "nginx" / "lateral.conf").read_text()
    block = conf.split("location /api/v1/portal/cctv/uploads {", 1)[1].split("}", 1)[0]
    limit = re.search(r"client_max_body_size (\d+)m;", block).group(1)
    assert int(limit) * 1024 * 1024 == PATCH_MAX_BYTES + PATCH_SLACK_BYTES
    assert "proxy_request_buffering off;" in block


def test_a_video_for_another_plumbers_submittal_is_not_found(app, filming_plumber, parcel):
    submit(filming_plumber, parcel.parcel_number)
    theirs = latest()
    other = app.test_client()
    other.user = add_plumber()
    log_in(other, other.user)
    r = upload(other, theirs.id, mp4_bytes())
    assert r.status_code == 404
    db.session.refresh(theirs)
    assert theirs.state == "awaiting_video"


def test_a_video_cut_short_resumes_from_the_servers_offset(app, filming_plumber, parcel):
    submit(filming_plumber, parcel.parcel_number)
    s = latest()
    data = mp4_bytes(mdat=64 * 1024)
    r = create_upload(filming_plumber, s.id, len(data))
    assert r.status_code == 201
    location = _path(r)
    assert patch(filming_plumber, location, 0, data[:20_000]).status_code == 204  # then the connection drops
    assert head(filming_plumber, location).headers["Upload-Offset"] == "20000"
    db.session.refresh(s)
    assert s.state == "awaiting_video"
    assert patch(filming_plumber, location, 20_000, data[20_000:]).status_code == 204
    db.session.refresh(s)
    assert (s.state, s.video_sha256) == ("received", hashlib.sha256(data).hexdigest())


def test_another_plumber_cannot_see_or_continue_an_upload(app, filming_plumber, parcel):
    submit(filming_plumber, parcel.parcel_number)
    data = mp4_bytes()
    location = _path(create_upload(filming_plumber, latest().id, len(data)))
    other = app.test_client()
    log_in(other, add_plumber())
    assert head(other, location).status_code == 404
    assert patch(other, location, 0, data).status_code == 404


def test_an_unfinished_video_past_its_expiry_is_purged(app, filming_plumber, parcel, monkeypatch):
    submit(filming_plumber, parcel.parcel_number)
    data = mp4_bytes()
    location = _path(create_upload(filming_plumber, latest().id, len(data)))
    server = app.extensions[TUS]
    later = server.clock() + server.expires_after + 60
    monkeypatch.setattr(server, "clock", lambda: later)
    result = app.test_cli_runner().invoke(args=["photos", "purge-uploads"])
    assert result.exit_code == 0, result.output
    monkeypatch.undo()
    assert head(filming_plumber, location).status_code == 404


def test_another_plumbers_submittal_is_not_found(app, cctv_received):
    other = app.test_client()
    log_in(other, add_plumber())
    for tail in ("", "/certificate.pdf"):
        assert other.get(f"/portal/plumbers/cctv/{cctv_received.id}{tail}").status_code == 404
    assert f"CCTV-{cctv_received.id}" not in other.get("/portal/plumbers/cctv/").get_data(as_text=True)


def test_staff_pages_are_not_the_plumbers(filming_plumber, cctv_received):
    assert filming_plumber.get("/review/cctv/").status_code == 403
    assert filming_plumber.get(f"/review/cctv/{cctv_received.id}/video").status_code == 403


def test_staff_cannot_use_the_plumbers_pages(office, cctv_received):
    assert office("superintendent1").get(f"/portal/plumbers/cctv/{cctv_received.id}").status_code == 403


# ------------------------------------------------------------------ review


def test_the_queue_and_the_review_page_show_the_video_beside_the_observations(office, cctv_received):
    boss = office("superintendent1")
    assert f'data-submittal="{cctv_received.id}"' in boss.get("/review/cctv/").get_data(as_text=True)
    page = boss.get(f"/review/cctv/{cctv_received.id}").get_data(as_text=True)
    src = f"/review/cctv/{cctv_received.id}/video"
    assert f'<video id="cctv-video" controls preload="metadata" width="640" src="{src}"' in page
    assert 'data-seconds="1.0"' in page and "23.5 ft from the cleanout" in page and "41.0 ft from the cleanout" in page


def test_the_video_is_served_in_byte_ranges(office, cctv_received):
    boss = office("superintendent1")
    whole = mp4_bytes()
    r = boss.get(f"/review/cctv/{cctv_received.id}/video")
    assert r.status_code == 200 and r.data == whole and r.headers["Accept-Ranges"] == "bytes"
    assert r.mimetype == "video/mp4"
    r = boss.client.get(f"/review/cctv/{cctv_received.id}/video", headers={"Range": "bytes=100-199"})
    assert r.status_code == 206 and r.data == whole[100:200]
    assert r.headers["Content-Range"] == f"bytes 100-199/{len(whole)}"
    r = boss.client.get(f"/review/cctv/{cctv_received.id}/video", headers={"Range": f"bytes={len(whole) + 10}-"})
    assert r.status_code == 416


def test_the_certificate_of_compliance_is_recorded_against_the_lateral(office, filming_plumber, cctv_received, parcel):
    boss = office("superintendent1")
    before = audit_rows()
    assert boss.post(f"/review/cctv/{cctv_received.id}/certify", data={"reason": "clean pipe"}).status_code == 302
    db.session.refresh(cctv_received)
    cert = db.session.scalar(select(CctvCertificate).filter_by(submittal_id=cctv_received.id))
    assert cctv_received.state == "certified" and cctv_received.reviewed_by_id == cert.issued_by_id
    assert (cert.parcel_id, cert.issued_on) == (parcel.id, city.current().today())
    assert cert.sha256 == hashlib.sha256(cert.pdf).hexdigest()
    text = "\n".join(p.extract_text() for p in PdfReader(io.BytesIO(cert.pdf)).pages)
    assert "Certificate of compliance" in text and parcel.parcel_number in text and f"CCTV-{cctv_received.id}" in text
    assert audit_rows() == before + 1
    page = filming_plumber.get(f"/portal/plumbers/cctv/{cctv_received.id}").get_data(as_text=True)
    assert 'data-state="certified"' in page and 'id="cctv-certificate"' in page
    pdf = filming_plumber.get(f"/portal/plumbers/cctv/{cctv_received.id}/certificate.pdf")
    assert pdf.status_code == 200 and pdf.data == cert.pdf
    again = boss.post(f"/review/cctv/{cctv_received.id}/certify", data={}, follow=True).get_data(as_text=True)
    assert "decided already" in again


def test_a_repair_notice_is_drafted_citing_the_observations_picked(office, filming_plumber, cctv_received, parcel):
    boss = office("superintendent1")
    obs = db.session.scalars(select(CctvObservation).filter_by(submittal_id=cctv_received.id)
                             .order_by(CctvObservation.position)).all()
    r = boss.post(f"/review/cctv/{cctv_received.id}/repair", data={"observation_ids": [str(obs[0].id)],
                                                              "reason": "fracture under the driveway"})
    assert r.status_code == 302
    db.session.refresh(cctv_received)
    notice = db.session.get(Notice, cctv_received.repair_notice_id)
    assert (cctv_received.state, notice.kind, notice.state, notice.parcel_id) == ("repair", "LATERAL-REPAIR", "draft",
                                                                            parcel.id)
    [finding] = notice.findings
    assert "fracture multiple (FM), grade 4, 23.5 feet from the cleanout at 12 o'clock" in finding["text"]
    assert finding["section"] == "§ 315-12B"
    violation = db.session.get(Violation, finding["violation_id"])
    assert (violation.rule_id, violation.status) == ("LATERAL-REPAIR", "open")
    page = filming_plumber.get(f"/portal/plumbers/cctv/{cctv_received.id}").get_data(as_text=True)
    assert 'data-state="repair"' in page and 'id="cctv-repair"' in page


def test_the_repair_notice_follows_the_notice_workflow_to_a_mailed_letter(office, client, auth, cctv_received):
    obs = db.session.scalar(select(CctvObservation.id).filter_by(submittal_id=cctv_received.id, position=1))
    office("superintendent1").post(f"/review/cctv/{cctv_received.id}/repair",
                                   data={"observation_ids": [str(obs)], "reason": "fracture"})
    db.session.refresh(cctv_received)
    notice_id = cctv_received.repair_notice_id
    r = client.post(f"/api/v1/notices/{notice_id}/approve", json={}, headers=auth["superintendent"])
    assert r.status_code == 200, r.get_json()
    r = mail(client, auth, [notice_id])  # printed, then recorded as mailed: the desk's two steps
    assert r.status_code == 200, r.get_json()
    text = " ".join(letter_text(notice_id).split())
    assert "NOTICE TO REPAIR THE BUILDING SEWER" in text and "fracture multiple (FM), grade 4" in text
    assert "§ 315-12B" in text


def test_a_repair_notice_needs_an_observation_and_a_reason(office, cctv_received):
    boss = office("superintendent1")
    before = (audit_rows(), _count(Notice))
    page = boss.post(f"/review/cctv/{cctv_received.id}/repair", data={"reason": "x"},
                     follow=True).get_data(as_text=True)
    assert "pick the observations" in page
    obs = db.session.scalar(select(CctvObservation.id).filter_by(submittal_id=cctv_received.id).limit(1))
    page = boss.post(f"/review/cctv/{cctv_received.id}/repair", data={"observation_ids": [str(obs)]},
                     follow=True).get_data(as_text=True)
    assert "write the reason" in page
    db.session.refresh(cctv_received)
    assert cctv_received.state == "received" and (audit_rows(), _count(Notice)) == before


def test_a_submittal_without_its_video_cannot_be_decided(office, filming_plumber, parcel):
    submit(filming_plumber, parcel.parcel_number)
    s = latest()
    page = office("superintendent1").post(f"/review/cctv/{s.id}/certify", follow=True).get_data(as_text=True)
    assert "has not arrived" in page
    assert db.session.scalar(select(CctvCertificate).filter_by(submittal_id=s.id)) is None
