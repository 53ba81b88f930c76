"""The OGC collection ``permits``: permits served like a layer's features (keyed on the
parcel, paged, filtered, counted), with the owners' personal data for the office only."""

from __future__ import annotations

import pytest
import shapely
from geoalchemy2.shape import to_shape

from server.core.extensions import db
from server.network.models import Parcel
from server.permits.schemas import PERSONAL
from tests.support.permits import applied_and_issued


@pytest.fixture
def permits(client, auth, parcel):
    return applied_and_issued(client, auth, parcel.id)


def test_the_collection_is_listed_and_described(client, auth, permits):
    ids = [c["id"] for c in client.get("/ogc/collections", headers=auth["clerk"]).get_json()["collections"]]
    assert "permits" in ids
    doc = client.get("/ogc/collections/permits", headers=auth["clerk"]).get_json()
    assert doc["id"] == "permits" and doc["extent"]["spatial"]["bbox"]
    assert any(link["rel"] == "items" for link in doc["links"])


def test_items_are_permits_on_their_parcel_paged_and_counted(client, auth, parcel, permits):
    first, second = permits
    page = client.get("/ogc/collections/permits/items?limit=1", headers=auth["superintendent"])
    assert page.status_code == 200 and page.mimetype == "application/geo+json"
    doc = page.get_json()
    assert doc["numberMatched"] == 2 and doc["numberReturned"] == 1
    feature = doc["features"][0]
    assert feature["id"] == first["id"] and feature["properties"]["number"] == first["properties"]["number"]
    assert shapely.geometry.shape(feature["geometry"]).equals(to_shape(db.session.get(Parcel, parcel.id).geom))
    after = client.get(next(link["href"] for link in doc["links"] if link["rel"] == "next"),
                       headers=auth["superintendent"]).get_json()
    assert [f["id"] for f in after["features"]] == [second["id"]]


def test_items_filter_by_state_and_kind_and_bbox(client, auth, permits):
    _, second = permits
    issued = client.get("/ogc/collections/permits/items?state=issued", headers=auth["clerk"]).get_json()
    assert [f["id"] for f in issued["features"]] == [second["id"]]
    taps = client.get("/ogc/collections/permits/items?kind=tap", headers=auth["clerk"]).get_json()
    assert [f["id"] for f in taps["features"]] == [second["id"]]
    far = client.get("/ogc/collections/permits/items?bbox=10,10,10.1,10.1", headers=auth["clerk"]).get_json()
    assert far["features"] == [] and far["numberMatched"] == 0
    bad = client.get("/ogc/collections/permits/items?state=lost", headers=auth["clerk"])
    assert bad.status_code == 400


@pytest.mark.parametrize("role", ["clerk", "superintendent", "admin"])
def test_the_office_reads_the_owners_personal_data(client, auth, permits, role):
    first, _ = permits
    props = client.get(f"/ogc/collections/permits/items/{first['id']}", headers=auth[role]).get_json()["properties"]
    assert props["applicant_name"] == "Dana Kowalski" and props["applicant_email"] == "dana@example.org"
    assert props["applicant_phone"] == "608-555-0110"


def test_an_inspector_gets_the_permit_without_the_personal_data(client, auth, permits):
    first, _ = permits
    one = client.get(f"/ogc/collections/permits/items/{first['id']}", headers=auth["inspector"]).get_json()
    assert one["properties"]["number"] == first["properties"]["number"]
    assert one["properties"]["plumber_license"] == "222614-222"
    assert not set(PERSONAL) & set(one["properties"])
    page = client.get("/ogc/collections/permits/items", headers=auth["inspector"])
    assert "Dana Kowalski" not in page.get_data(as_text=True)
    html = client.get("/ogc/collections/permits/items?f=html", headers=auth["inspector"])
    assert html.status_code == 200 and "Dana Kowalski" not in html.get_data(as_text=True)


def test_the_api_definition_documents_the_collection(client, auth):
    spec = client.get("/ogc/api?f=json", headers=auth["clerk"]).get_json()
    assert "/collections/permits/items" in spec["paths"]
    params = {p["name"] for p in spec["paths"]["/collections/permits/items"]["get"]["parameters"] if "name" in p}
    assert {"state", "kind"} <= params


def test_an_unknown_permit_is_404(client, auth):
    assert client.get("/ogc/collections/permits/items/999999", headers=auth["clerk"]).status_code == 404
