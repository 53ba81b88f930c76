"""The survey certification PDF: the counts and the parcels in violation, as the database holds them."""

from __future__ import annotations

import io
import re

import pytest
from geoalchemy2.shape import from_shape, to_shape
from pypdf import PdfReader
from shapely.geometry import Point

from server.core.extensions import db
from server.network.models import ClearWaterFinding
from tests.support.notices import add_parcel, add_violation, draft_one


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
    r = desk("superintendent1").client.get("/survey/certify")

    assert r.status_code == 200 and r.mimetype == "application/pdf"
    text = _text(r.data)
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
    text = _text(desk("superintendent1").client.get("/survey/certify").data)
    assert all(s.label in text for s in survey.SURVEY_STATES)


@pytest.mark.parametrize("username", ["clerk1", "inspector1"])
def test_only_the_superintendent_or_admin_certifies(desk, username):
    assert desk(username).client.get("/survey/certify").status_code == 403


def test_admin_certifies_too(desk):
    r = desk("admin1").client.get("/survey/certify")
    assert r.status_code == 200 and "Parcels in the city 0" in _text(r.data)


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

    r = desk("superintendent1").client.get("/survey/certify")

    assert r.status_code == 200
    text = _text(r.data)
    assert HOSTILE_OWNER in text
    assert hostile_parcel.split(" 1 Main")[0].split()[0] in text  # '<img' shows as text
    assert "§ 315-13D <b>" in text
    with pdfplumber.open(io.BytesIO(r.data)) as pdf:
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
    text = _text(desk("superintendent1").client.get("/survey/certify").data)

    assert [r["owner"] for r in figures.clear_water] == ["DUANE HALVERSON", "SECOND CW OWNER"]
    assert f"With clear-water connections found (listed below) {len(figures.clear_water)}" in text
    assert f"Parcels with clear-water connections ({len(figures.clear_water)})" in text
    assert "roof downspout, sump pump" in text
    for other in ("TAP OWNER", "SEPTIC OWNER", "WIRE OWNER", "TAP-SPACING-24IN", "SEPTIC-IN-AREA", "TRACER-WIRE"):
        assert other not in text


def test_a_partial_survey_says_so_on_its_first_page(desk, survey_parcels):
    first = _first_page(desk("superintendent1").client.get("/survey/certify").data)

    assert "Partial survey. 1 of the city's 4 parcels (25.0 %) have been surveyed; 3 have not." in first
    assert "PARTIAL SURVEY" in first  # the footer of every page
