"""Every class of bad input gets a clear 4xx with a stable code and writes nothing."""

from __future__ import annotations

import json
import math

import pytest

from server.network.layers import LAYERS
from tests.support.features import feature, row_counts


def post_raw(client, auth, layer, body, content_type="application/json"):
    return client.post(f"/api/v1/{layer}", data=body, headers={**auth["superintendent"], "Content-Type": content_type})


def assert_refused(client, auth, layer, response, status, code):
    assert response.status_code == status, response.get_data(as_text=True)
    error = response.get_json()["error"]
    assert error["code"] == code
    assert error["message"]
    return error


@pytest.fixture
def unchanged(client):
    """Asserts, after the test body, that the layer's rows and the audit trail did not change."""
    holder = {}

    def watch(layer):
        holder["model"] = LAYERS[layer].model
        holder["before"] = row_counts(holder["model"])

    yield watch
    assert row_counts(holder["model"]) == holder["before"]


def test_malformed_json_is_400(client, auth, unchanged):
    unchanged("parcels")
    r = post_raw(client, auth, "parcels", '{"type": "Feature", "geometry": ')
    assert_refused(client, auth, "parcels", r, 400, "malformed_json")


def test_wrong_content_type_is_415(client, auth, unchanged):
    unchanged("parcels")
    r = post_raw(client, auth, "parcels", json.dumps(feature("parcels")), content_type="text/plain")
    assert_refused(client, auth, "parcels", r, 415, "unsupported_media_type")


def test_unknown_property_is_422_naming_it(client, auth, unchanged):
    unchanged("taps")
    r = client.post("/api/v1/taps", json=feature("taps", colour="red"), headers=auth["superintendent"])
    error = assert_refused(client, auth, "taps", r, 422, "invalid_fields")
    assert error["details"]["fields"]["properties"]["colour"] == ["Unknown field."]
    assert "properties.colour" in error["message"]


def test_unknown_top_level_member_is_422(client, auth, unchanged):
    unchanged("taps")
    r = client.post("/api/v1/taps", json={**feature("taps"), "crs": {"type": "name"}}, headers=auth["superintendent"])
    error = assert_refused(client, auth, "taps", r, 422, "invalid_fields")
    assert "crs" in error["details"]["fields"]


def test_missing_required_property_is_422_naming_it(client, auth, unchanged):
    unchanged("parcels")
    body = feature("parcels")
    del body["properties"]["parcel_number"]
    r = client.post("/api/v1/parcels", json=body, headers=auth["superintendent"])
    error = assert_refused(client, auth, "parcels", r, 422, "invalid_fields")
    assert "parcel_number" in error["details"]["fields"]["properties"]


def test_missing_geometry_is_422(client, auth, unchanged):
    unchanged("manholes")
    body = feature("manholes")
    del body["geometry"]
    r = client.post("/api/v1/manholes", json=body, headers=auth["superintendent"])
    error = assert_refused(client, auth, "manholes", r, 422, "invalid_fields")
    assert "geometry" in error["details"]["fields"]


@pytest.mark.parametrize("name, value", [
    ("diameter_in", "eight"),
    ("install_year", 20.5),
    ("kind", "siphon"),
    ("diameter_in", -8),
])
def test_wrong_type_or_value_is_422_naming_the_field(client, auth, unchanged, name, value):
    unchanged("mains")
    r = client.post("/api/v1/mains", json=feature("mains", **{name: value}), headers=auth["superintendent"])
    error = assert_refused(client, auth, "mains", r, 422, "invalid_fields")
    assert name in error["details"]["fields"]["properties"]


def test_unknown_foreign_key_is_422(client, auth, unchanged):
    unchanged("laterals")
    r = client.post("/api/v1/laterals", json=feature("laterals", parcel_id=999999), headers=auth["superintendent"])
    error = assert_refused(client, auth, "laterals", r, 422, "invalid_fields")
    assert "parcel_id" in error["details"]["fields"]["properties"]


RING = [[-91.5, 44.25], [-91.4998, 44.25], [-91.4998, 44.2502], [-91.5, 44.2502]]
BAD_GEOMETRIES = {
    "unclosed_ring": ("parcels", {"type": "Polygon", "coordinates": [RING]}),
    "self_intersecting": ("parcels", {"type": "Polygon", "coordinates": [[
        [-91.5, 44.25], [-91.4998, 44.2502], [-91.4998, 44.25], [-91.5, 44.2502], [-91.5, 44.25]]]}),
    "nan": ("manholes", {"type": "Point", "coordinates": [math.nan, 44.25]}),
    "infinity": ("manholes", {"type": "Point", "coordinates": [math.inf, 44.25]}),
    "lon_out_of_range": ("manholes", {"type": "Point", "coordinates": [-191.5, 44.25]}),
    "lat_out_of_range": ("manholes", {"type": "Point", "coordinates": [-91.5, 94.25]}),
    "wrong_type": ("mains", {"type": "Point", "coordinates": [-91.5, 44.25]}),
    "projected": ("manholes", {"type": "Point", "coordinates": [520412.3, 301123.8]}),
    "not_numbers": ("manholes", {"type": "Point", "coordinates": ["-91.5", "44.25"]}),
    "zero_length_line": ("mains", {"type": "LineString", "coordinates": [[-91.5, 44.25], [-91.5, 44.25]]}),
    # Nested for another type: shapely raised a TypeError on these (a 500 before).
    "polygon_of_numbers": ("parcels", {"type": "Polygon", "coordinates": [-91.5, 44.25]}),
    "multipolygon_of_positions": ("parcels", {"type": "MultiPolygon", "coordinates": [RING + [RING[0]]]}),
    "point_of_positions": ("manholes", {"type": "Point", "coordinates": [[-91.5, 44.25]]}),
}
REASONS = {
    "unclosed_ring": "unclosed_ring", "self_intersecting": "invalid", "nan": "not_finite",
    "infinity": "not_finite", "lon_out_of_range": "out_of_range", "lat_out_of_range": "out_of_range",
    "wrong_type": "wrong_type", "projected": "projected_coordinates", "not_numbers": "malformed",
    "zero_length_line": "invalid", "polygon_of_numbers": "malformed",
    "multipolygon_of_positions": "malformed", "point_of_positions": "malformed",
}


@pytest.mark.parametrize("case", list(BAD_GEOMETRIES))
def test_invalid_geometry_is_422_with_the_reason(client, auth, unchanged, case):
    layer, geometry = BAD_GEOMETRIES[case]
    unchanged(layer)
    body = feature(layer)
    body["geometry"] = geometry
    # NaN and infinity are not JSON; clients that send them send these tokens.
    text = json.dumps(body, allow_nan=True)
    r = post_raw(client, auth, layer, text)
    if case in ("nan", "infinity"):
        assert r.status_code in (400, 422)
        assert r.get_json()["error"]["code"] in ("malformed_json", "invalid_geometry")
        return
    error = assert_refused(client, auth, layer, r, 422, "invalid_geometry")
    assert error["details"]["reason"] == REASONS[case]


def test_body_over_the_limit_is_413(client, auth, unchanged, app):
    unchanged("parcels")
    limit = app.config["MAX_CONTENT_LENGTH"]
    body = feature("parcels", owner_name="x" * (limit + 10))
    r = client.post("/api/v1/parcels", json=body, headers=auth["superintendent"])
    assert_refused(client, auth, "parcels", r, 413, "payload_too_large")


@pytest.mark.parametrize("method", ["get", "patch", "delete"])
def test_unknown_id_is_404(client, auth, method):
    headers = {**auth["superintendent"], "If-Match": '"1"'}
    kwargs = {"json": {"type": "Feature", "properties": {}}} if method == "patch" else {}
    r = getattr(client, method)("/api/v1/taps/987654", headers=headers, **kwargs)
    assert r.status_code == 404
    assert r.get_json()["error"]["code"] == "not_found"


def test_unknown_route_is_404_in_the_same_shape(client, auth):
    r = client.get("/api/v1/pipes", headers=auth["inspector"])
    assert r.status_code == 404
    assert set(r.get_json()["error"]) == {"code", "message", "details"}


def test_bad_query_parameter_is_422(client, auth):
    r = client.get("/api/v1/parcels?colour=red", headers=auth["inspector"])
    assert r.status_code == 422
    assert "colour" in r.get_json()["error"]["details"]["fields"]["query"]


@pytest.mark.parametrize("bbox", ["1,2,3", "a,b,c,d", "10,10,0,0", "-200,0,0,10"])
def test_bad_bbox_is_422(client, auth, bbox):
    r = client.get(f"/api/v1/parcels?bbox={bbox}", headers=auth["inspector"])
    assert r.status_code == 422
    assert "bbox" in r.get_json()["error"]["details"]["fields"]["query"]


def test_duplicate_parcel_number_is_409_naming_the_field(client, auth, unchanged):
    assert client.post("/api/v1/parcels", json=feature("parcels"), headers=auth["superintendent"]).status_code == 201
    unchanged("parcels")
    r = client.post("/api/v1/parcels", json=feature("parcels"), headers=auth["superintendent"])
    error = assert_refused(client, auth, "parcels", r, 409, "duplicate")
    assert error["details"]["field"] == "properties.parcel_number"
