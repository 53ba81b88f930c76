"""/map, /assign/ and the certification's map open on the city, not on a stray parcel (issue 34)."""

from __future__ import annotations

import io
import json
import re

import shapely
from pypdf import PdfReader

from server.office import certification
from tests.support.framing import STRAY_LONLAT, add_stray_parcel


def test_the_map_pages_open_on_the_city_not_on_the_stray(seeded_city_300, desk):
    add_stray_parcel()
    session = desk("superintendent1")
    for page, config_id in (("/map", "map-config"), ("/assign/", "assign-config")):
        html = session.client.get(page).get_data(as_text=True)
        raw = re.search(rf'<script type="application/json" id="{config_id}">(.*?)</script>', html, re.S).group(1)
        frame = json.loads(raw)["frame"]
        assert not shapely.box(*frame).contains(shapely.Point(STRAY_LONLAT)), page
        assert shapely.box(*frame).contains(shapely.Point(-91.501, 44.253)), page  # Arcadia


def test_map_opens_on_the_parcel_asked_for_wherever_it_is(seeded_city_300, desk):
    stray = add_stray_parcel()
    session = desk("superintendent1")
    r = session.client.get(f"/api/v1/survey/parcels/{stray.id}")
    assert r.status_code == 200
    box = r.get_json()["bbox"]  # what /map?parcel=N fits (survey_map.js showParcel)
    assert shapely.box(*box).contains(shapely.Point(STRAY_LONLAT[0] + 0.0001, STRAY_LONLAT[1] + 0.0001))


def test_the_certification_map_is_framed_on_the_city_with_a_stray_present(seeded_city_300, desk):
    add_stray_parcel()
    data = certification.city_map_data()
    assert data.frame is not None
    assert not shapely.box(*data.frame).contains(shapely.Point(STRAY_LONLAT))
    d = desk("superintendent1")
    issued = d.post("/survey/certify", follow=False)
    assert issued.status_code == 302
    r = d.client.get(issued.headers["Location"].rstrip("/") + "/certification.pdf")
    assert r.status_code == 200
    text = " ".join(page.extract_text() for page in PdfReader(io.BytesIO(r.data)).pages)
    # The city is drawn large enough that its streets' names fit along them: not a speck.
    assert "W Main St" in text and "E River St" in text
