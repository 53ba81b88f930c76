"""The survey certification: the counts and the parcels in violation, as the database holds
them, issued once and kept (issue 29): its PDF and SHA-256, a violation for every parcel it
lists, the receipt tied to it, and each listed parcel's status on its page."""

from __future__ import annotations

import hashlib
import io
import re

import pytest
from geoalchemy2.shape import from_shape, to_shape
from pypdf import PdfReader
from shapely.geometry import Point
from sqlalchemy import select

from server.core.extensions import db
from server.network.models import ClearWaterFinding
from tests.support.city_calendar import city_today
from tests.support.notices import add_parcel, add_violation, draft_one, mail, post


def _issue(desk, username: str = "superintendent1") -> bytes:
    """Issue a certification as ``username`` and return the PDF kept for it."""
    from server.office.models import IssuedCertification

    d = desk(username)
    r = d.post("/survey/certify", follow=False)
    assert r.status_code == 302, r.get_data(as_text=True)
    cert = db.session.scalars(select(IssuedCertification).order_by(IssuedCertification.id.desc())).first()
    pdf = d.client.get(f"/survey/certifications/{cert.id}/certification.pdf")
    assert pdf.status_code == 200 and pdf.mimetype == "application/pdf"
    return pdf.data


def _text(data: bytes) -> str:
    text = "\n".join(page.extract_text() for page in PdfReader(io.BytesIO(data)).pages)
    return re.sub(r"\s+", " ", text)


@pytest.fixture
def survey_parcels(client, auth):
    """Four parcels: one with a clear-water finding and violation, one refusing access, two clean."""
    sump = add_parcel(owner="DUANE HALVERSON")
    refused = add_parcel(owner="MARGARET SOBOTTA")
    add_parcel(), add_parcel()
    add_violation(sump, "CLEAR-WATER", "§ 315-13D")
    add_violation(refused, "SURVEY-ACCESS", "§ 315-12F", "access for the clear-water survey was refused")
    centre = to_shape(sump.geom).centroid
    db.session.add(ClearWaterFinding(parcel_id=sump.id, source="sump_pump", connected_to_sanitary="yes",
                                     geom=from_shape(Point(centre.x, centre.y), srid=4326)))
    db.session.flush()
    draft_one(client, auth)
    return {"sump": sump, "refused": refused}


def test_certification_states_the_counts_and_the_parcels_in_violation(desk, survey_parcels):
    text = _text(_issue(desk))
    assert "Certification of the clear-water survey" in text
    assert "City of Arcadia" in text and "Test Superintendent" in text
    assert "Parcels in the city 4" in text
    assert "Access refused (listed below) 1" in text
    assert "CLEAR-WATER § 315-13D 1" in text and "SURVEY-ACCESS § 315-12F 1" in text
    assert "Art. I notices by state Count draft 2" in text  # one per parcel and kind
    assert "Surveyed 1 (25.0 %)" in text  # the parcel with a finding
    assert "With clear-water connections found (listed below) 1" in text
    sump, refused = survey_parcels["sump"], survey_parcels["refused"]
    assert f"{sump.parcel_number} {sump.site_address} DUANE HALVERSON sump pump § 315-13D" in text
    assert f"{refused.parcel_number} {refused.site_address} MARGARET SOBOTTA access refused § 315-12F" in text


def test_the_city_map_colours_each_parcel_by_its_survey_state(desk, survey_parcels):
    """The sump pump's parcel is a finding open, the refusing owner's access refused; the
    legend names every state."""
    from server.office import certification, survey

    states = {g.bounds: state for g, state, _ in certification.city_map_parcels()}
    bounds = {name: to_shape(survey_parcels[name].geom).bounds for name in ("sump", "refused")}
    assert {name: states[b] for name, b in bounds.items()} == {"sump": "finding_open", "refused": "access_refused"}
    assert sorted(states.values()).count("not_visited") == 2
    text = _text(_issue(desk))
    assert all(s.label in text for s in survey.SURVEY_STATES)


@pytest.mark.parametrize("username", ["clerk1", "inspector1"])
def test_only_the_superintendent_or_admin_certifies(desk, username):
    from server.office.models import IssuedCertification

    d = desk(username)
    assert d.client.get("/survey/certify").status_code == 403
    assert d.client.post("/survey/certify", data={"csrf_token": d.token() if username == "clerk1" else ""}
                         ).status_code == 403
    assert db.session.query(IssuedCertification).count() == 0


def test_admin_certifies_too(desk):
    assert "Parcels in the city 0" in _text(_issue(desk, "admin1"))


HOSTILE_OWNER = "Smith & <Sons"


@pytest.fixture
def hostile_parcel(tmp_path):
    """A parcel in violation whose address is ReportLab markup for an image on the server's disk."""
    from PIL import Image

    secret = tmp_path / "secret.png"
    Image.new("RGB", (40, 40), "red").save(secret)
    address = f'<img src="{secret}" width="40" height="40"/> 1 Main St'
    parcel = add_parcel(owner=HOSTILE_OWNER)
    parcel.site_address = address
    add_violation(parcel, "CLEAR-WATER", "§ 315-13D <b>")
    db.session.flush()
    return address


def test_parcel_text_is_printed_as_written_not_read_as_markup(desk, hostile_parcel):
    """Issue 15 row 7: an owner ``Smith & <Sons`` made the page a 500, and an address holding
    ``<img src=...>`` embedded a file from the server's disk."""
    import pdfplumber

    data = _issue(desk)

    text = _text(data)
    assert HOSTILE_OWNER in text
    assert hostile_parcel.split(" 1 Main")[0].split()[0] in text  # '<img' shows as text
    assert "§ 315-13D <b>" in text
    with pdfplumber.open(io.BytesIO(data)) as pdf:
        assert [im for page in pdf.pages for im in page.images] == []


def _first_page(data: bytes) -> str:
    return re.sub(r"\s+", " ", PdfReader(io.BytesIO(data)).pages[0].extract_text())


def test_counts_equal_the_lists_and_only_art_i_findings_are_certified(desk, survey_parcels):
    """Issue 14: it said 5 parcels had clear-water connections but named 1, and listed tap,
    tracer-wire and septic violations among the Art. I findings."""
    from server.office import certification

    tap_parcel = add_parcel(owner="TAP OWNER")
    add_violation(tap_parcel, "TAP-SPACING-24IN", "§ 315-13B(2)")
    add_violation(add_parcel(owner="SEPTIC OWNER"), "SEPTIC-IN-AREA", "§ 315-11C")
    add_violation(add_parcel(owner="WIRE OWNER"), "TRACER-WIRE", "§ 315-13C(3)")
    second = add_parcel(owner="SECOND CW OWNER")
    centre = to_shape(second.geom).centroid
    for source in ("sump_pump", "roof_downspout"):
        db.session.add(ClearWaterFinding(parcel_id=second.id, source=source, connected_to_sanitary="yes",
                                         geom=from_shape(Point(centre.x, centre.y), srid=4326)))
    db.session.flush()

    figures = certification.survey_figures()
    text = _text(_issue(desk))

    assert [r["owner"] for r in figures.clear_water] == ["DUANE HALVERSON", "SECOND CW OWNER"]
    assert f"With clear-water connections found (listed below) {len(figures.clear_water)}" in text
    assert f"Parcels with clear-water connections ({len(figures.clear_water)})" in text
    assert "roof downspout, sump pump" in text
    for other in ("TAP OWNER", "SEPTIC OWNER", "WIRE OWNER", "TAP-SPACING-24IN", "SEPTIC-IN-AREA", "TRACER-WIRE"):
        assert other not in text


def test_a_partial_survey_says_so_on_its_first_page(desk, survey_parcels):
    first = _first_page(_issue(desk))

    assert "Partial survey. 1 of the city's 4 parcels (25.0 %) have been surveyed; 3 have not." in first
    assert "PARTIAL SURVEY" in first  # the footer of every page


# ------------------------------------------------------------------ issue 29: the certification is kept


def test_a_certification_is_kept_as_issued_with_its_sha256(desk, survey_parcels):
    from server.core.audit.models import AuditEvent
    from server.office.models import IssuedCertification

    first = _issue(desk)
    cert = db.session.query(IssuedCertification).one()
    assert cert.pdf == first and cert.pdf_sha256 == hashlib.sha256(first).hexdigest()
    again = desk("clerk1").client.get(f"/survey/certifications/{cert.id}/certification.pdf")
    assert again.data == first and again.headers["ETag"] == f'"{cert.pdf_sha256}"'  # the same bytes, not re-rendered
    audit = db.session.query(AuditEvent).filter_by(action="certify", subject_type="issued_certification").one()
    assert audit.after["pdf_sha256"] == cert.pdf_sha256
    listed = {p["parcel_id"]: p["listed"] for p in cert.parcels}
    assert listed == {survey_parcels["sump"].id: "clear_water", survey_parcels["refused"].id: "access_refused"}
    assert "Certify the survey as it stands today" in desk("superintendent1").page("/survey/certify")


def test_every_certified_parcel_gets_a_violation_for_its_notice(desk, client, auth):
    """Issue 29: four certified owners had no violation, so no notice and the 5-day clock never counted them."""
    from server.notices.models import Notice
    from server.office.models import IssuedCertification
    from server.rules.models import Violation

    found_only = add_parcel(owner="FOUND ONLY")  # a connection recorded on the map, no violation
    centre = to_shape(found_only.geom).centroid
    db.session.add(ClearWaterFinding(parcel_id=found_only.id, source="foundation_drain", connected_to_sanitary="yes",
                                     geom=from_shape(Point(centre.x, centre.y), srid=4326)))
    db.session.commit()
    assert db.session.query(Violation).filter_by(parcel_id=found_only.id).count() == 0

    text = _text(_issue(desk))

    [violation] = db.session.query(Violation).filter_by(parcel_id=found_only.id, status="open").all()
    assert violation.rule_id == "CLEAR-WATER" and violation.section == "§ 315-13D"
    assert "certified to the Commission" in violation.message
    cert = db.session.query(IssuedCertification).one()
    assert cert.parcels == [{"parcel_id": found_only.id, "parcel_number": found_only.parcel_number,
                             "listed": "clear_water", "violation_id": violation.id}]
    assert "CLEAR-WATER § 315-13D 1" in text  # the certification counts it
    r = client.post("/api/v1/notices/draft", json={"parcel_ids": [found_only.id]}, headers=auth["superintendent"])
    assert r.status_code == 201 and db.session.get(Notice, r.get_json()[0]["id"]).kind == "CW-DISCONNECT-60"
    _issue(desk)  # certified again: the open violation is found, not doubled
    assert db.session.query(Violation).filter_by(parcel_id=found_only.id).count() == 1


def test_the_certification_page_shows_each_listed_parcel_s_status(desk, client, auth, survey_parcels):
    from server.notices.models import Notice
    from server.office.models import IssuedCertification

    _issue(desk)
    cert = db.session.query(IssuedCertification).one()
    sump_notice = db.session.query(Notice).filter_by(parcel_id=survey_parcels["sump"].id).one()
    post(client, auth, "superintendent", f"/notices/{sump_notice.id}/approve")
    assert mail(client, auth, [sump_notice.id]).status_code == 200
    html = desk("clerk1").page(f"/survey/certifications/{cert.id}")

    assert cert.pdf_sha256 in html
    rows = dict(re.findall(r'<tr data-parcel="(\d+)"[^>]*>(.*?)</tr>', html, re.S))
    sump, refused = rows[str(survey_parcels["sump"].id)], rows[str(survey_parcels["refused"].id)]
    assert "clear-water connection" in sump and ">open<" in sump
    assert f"notice {sump_notice.id}, mailed" in sump and city_today().isoformat() in sump
    assert "access refused" in refused and ", draft<" in refused  # drafted by the fixture, not sent


def test_the_receipt_is_tied_to_the_certification_and_counts_its_owners(desk, survey_parcels):
    from server.office import certification_receipt
    from server.office.models import IssuedCertification, SurveyCertification

    _issue(desk)
    cert = db.session.query(IssuedCertification).one()
    d = desk("clerk1")
    assert f'<option value="{cert.id}">' in d.page()
    d.post("/desk/survey-receipt", {"certification_id": str(cert.id), "received_on": cert.certified_on.isoformat()})
    receipt = db.session.query(SurveyCertification).one()
    assert (receipt.certification_id, receipt.certification_sha256) == (cert.id, cert.pdf_sha256)
    clock = certification_receipt.notify_clock()
    assert clock.certification_id == cert.id and clock.not_notified == 2  # neither owner sent a notice yet
    assert "<strong data-not-notified>2</strong> of the owners it lists" in d.page()
