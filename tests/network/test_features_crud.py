"""Create, read, update and delete on every layer, on both databases."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from server.core.audit.models import AuditEvent
from server.core.extensions import db
from server.network.layers import LAYERS
from tests.support.features import CHANGES, feature

ALL = list(LAYERS)


def create(client, auth, layer, role="superintendent", **props):
    return client.post(f"/api/v1/{layer}", json=feature(layer, **props), headers=auth[role])


@pytest.mark.parametrize("layer", ALL)
def test_create_returns_feature_with_etag_and_location(client, auth, layer):
    r = create(client, auth, layer)
    assert r.status_code == 201, r.get_json()
    body = r.get_json()
    assert body["type"] == "Feature" and isinstance(body["id"], int)
    assert r.headers["ETag"] == '"1"'
    assert r.headers["Location"].endswith(f"/api/v1/{layer}/{body['id']}")
    assert r.mimetype == "application/geo+json"


@pytest.mark.parametrize("layer", ALL)
def test_get_round_trips_properties(client, auth, layer):
    fid = create(client, auth, layer).get_json()["id"]
    r = client.get(f"/api/v1/{layer}/{fid}", headers=auth["inspector"])
    assert r.status_code == 200
    sent = feature(layer)["properties"]
    got = r.get_json()["properties"]
    assert {k: got[k] for k in sent} == sent


@pytest.mark.parametrize("layer", ALL)
def test_patch_with_current_etag_changes_and_bumps_version(client, auth, layer):
    fid = create(client, auth, layer).get_json()["id"]
    name, value = CHANGES[layer]
    r = client.patch(f"/api/v1/{layer}/{fid}", json={"type": "Feature", "properties": {name: value}},
                     headers={**auth["superintendent"], "If-Match": '"1"'})
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["properties"][name] == value
    assert r.headers["ETag"] == '"2"'


@pytest.mark.parametrize("layer", ALL)
def test_patch_with_stale_etag_is_412_and_changes_nothing(client, auth, layer):
    fid = create(client, auth, layer).get_json()["id"]
    name, value = CHANGES[layer]
    headers = {**auth["superintendent"], "If-Match": '"1"'}
    assert client.patch(f"/api/v1/{layer}/{fid}", json={"type": "Feature", "properties": {name: value}},
                        headers=headers).status_code == 200
    before = client.get(f"/api/v1/{layer}/{fid}", headers=auth["inspector"]).get_json()
    r = client.patch(f"/api/v1/{layer}/{fid}", json={"type": "Feature", "properties": {name: None}},
                     headers=headers)
    assert r.status_code == 412
    assert r.get_json()["error"]["code"] == "version_conflict"
    assert r.get_json()["error"]["details"]["current_version"] == 2
    assert client.get(f"/api/v1/{layer}/{fid}", headers=auth["inspector"]).get_json() == before


def test_patch_without_if_match_is_428(client, auth):
    fid = create(client, auth, "taps").get_json()["id"]
    r = client.patch(f"/api/v1/taps/{fid}", json={"type": "Feature", "properties": {"clock_position": 11.0}},
                     headers=auth["superintendent"])
    assert r.status_code == 428
    assert r.get_json()["error"]["code"] == "precondition_required"


def test_patch_geometry_moves_the_tap(client, auth):
    fid = create(client, auth, "taps").get_json()["id"]
    moved = {"type": "Point", "coordinates": [-91.5009, 44.2531]}
    r = client.patch(f"/api/v1/taps/{fid}", json={"type": "Feature", "geometry": moved},
                     headers={**auth["superintendent"], "If-Match": '"1"'})
    assert r.status_code == 200
    assert r.get_json()["geometry"]["coordinates"] == pytest.approx([-91.5009, 44.2531])


@pytest.mark.parametrize("layer", ALL)
def test_delete_with_current_etag(client, auth, layer):
    fid = create(client, auth, layer).get_json()["id"]
    r = client.delete(f"/api/v1/{layer}/{fid}", headers={**auth["superintendent"], "If-Match": '"1"'})
    assert r.status_code == 204
    assert client.get(f"/api/v1/{layer}/{fid}", headers=auth["inspector"]).status_code == 404


def test_delete_with_stale_etag_is_412(client, auth):
    fid = create(client, auth, "manholes").get_json()["id"]
    r = client.delete(f"/api/v1/manholes/{fid}", headers={**auth["superintendent"], "If-Match": '"7"'})
    assert r.status_code == 412
    assert client.get(f"/api/v1/manholes/{fid}", headers=auth["inspector"]).status_code == 200


def test_every_write_lands_an_audit_row_with_before_and_after(client, auth):
    fid = create(client, auth, "parcels").get_json()["id"]
    client.patch(f"/api/v1/parcels/{fid}", json={"type": "Feature", "properties": {"owner_name": "Ben"}},
                 headers={**auth["superintendent"], "If-Match": '"1"'})
    client.delete(f"/api/v1/parcels/{fid}", headers={**auth["superintendent"], "If-Match": '"2"'})
    rows = db.session.scalars(
        select(AuditEvent).where(AuditEvent.subject_type == "parcel", AuditEvent.subject_id == fid)
        .order_by(AuditEvent.id)
    ).all()
    assert [r.action for r in rows] == ["create", "update", "delete"]
    assert rows[1].before["properties"]["owner_name"] == "Ann Kulig"
    assert rows[1].after["properties"]["owner_name"] == "Ben"
    assert rows[2].after is None and rows[0].before is None
    assert all(r.user_id is not None for r in rows)


def test_polygons_are_stored_counter_clockwise(client, auth):
    clockwise = {"type": "Polygon", "coordinates": [[[-91.5, 44.25], [-91.5, 44.2502], [-91.4998, 44.2502],
                                                     [-91.4998, 44.25], [-91.5, 44.25]]]}
    body = feature("parcels")
    body["geometry"] = clockwise
    r = client.post("/api/v1/parcels", json=body, headers=auth["superintendent"])
    ring = r.get_json()["geometry"]["coordinates"][0][0]
    area2 = sum(x0 * y1 - x1 * y0 for (x0, y0), (x1, y1) in zip(ring, ring[1:], strict=False))
    assert r.get_json()["geometry"]["type"] == "MultiPolygon"
    assert area2 > 0  # positive shoelace area = counter-clockwise
