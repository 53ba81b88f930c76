"""OWSLib's OGC API – Features client against the live server, logging in with a password."""

from __future__ import annotations

import pytest
from owslib.ogcapi.features import Features
from owslib.util import Authentication

from server.network.models import ClearWaterFinding, Parcel

BBOX = [-91.502, 44.2525, -91.499, 44.254]


@pytest.fixture
def api(ogc_city) -> Features:
    return Features(f"{ogc_city.url}/ogc", auth=Authentication(ogc_city.username, ogc_city.password))


def test_conformance_and_collections(api):
    assert any(c.endswith("/conf/geojson") for c in api.conformance()["conformsTo"])
    assert "parcels" in [c["id"] for c in api.collections()["collections"]]


def test_api_definition_read_through_service_desc(api):
    """OWSLib follows the landing page's service-desc link, logging in with the password."""
    definition = api.api()
    assert definition["openapi"].startswith("3.0.")
    items = definition["paths"]["/collections/findings/items"]["get"]
    shared = definition["components"]["parameters"]
    names = {shared[p["$ref"].rsplit("/", 1)[-1]]["name"] if "$ref" in p else p["name"] for p in items["parameters"]}
    assert {"bbox", "limit", "offset", "source", "connected_to_sanitary"} <= names


def test_bbox_items_match_numbermatched(api):
    page = api.collection_items("parcels", bbox=BBOX, limit=500)
    assert page["numberReturned"] == page["numberMatched"] == len(page["features"]) > 0


def test_one_item(api):
    feature = api.collection_item("parcels", "5")
    assert feature["id"] == 5 and feature["properties"]["parcel_number"]


def test_attribute_filter_counts_like_the_database(api, ogc_city):
    page = api.collection_items("findings", connected_to_sanitary="yes", limit=1000)
    assert page["numberMatched"] == ogc_city.count(
        ClearWaterFinding, ClearWaterFinding.connected_to_sanitary == "yes")


def test_token_works_as_well_as_a_password(ogc_city):
    api = Features(f"{ogc_city.url}/ogc", headers={"Authorization": f"Bearer {ogc_city.token}"})
    assert api.collection_items("parcels", limit=1)["numberMatched"] == ogc_city.count(Parcel)


def test_a_wrong_password_is_refused(ogc_city):
    api = Features(f"{ogc_city.url}/ogc", auth=Authentication(ogc_city.username, "not the password"))
    with pytest.raises(RuntimeError, match="unauthorized"):
        api.collections()
