"""``GET /api/v1/layers``: the registry's public part, and a layer declared once served
everywhere a layer is (feature API, OGC, tiles, exports, the registry itself)."""

from __future__ import annotations

import dataclasses
import json

import mapbox_vector_tile
import pytest
from sqlalchemy import select

from server.core.accounts.models import User
from server.core.accounts.service import create_user, issue_token
from server.core.extensions import db
from server.field.sync import FIELD_EDIT_LAYERS, PULL_LAYERS
from server.network import models, schemas
from server.network.layers import LAYERS, FieldInput, Layer, MapStyle, styled_layers
from server.network.tiles.grid import tile_for
from tests.support.databases import fresh_app

WHERE = (-91.4995, 44.2532)


def test_the_registry_needs_a_login(client):
    r = client.get("/api/v1/layers")
    assert r.status_code == 401 and r.get_json()["error"]["code"] == "unauthorized"


def test_every_layer_is_described_as_declared(client, auth):
    r = client.get("/api/v1/layers", headers=auth["inspector"])
    assert r.status_code == 200
    served = {d["name"]: d for d in r.get_json()}
    assert list(served) == list(LAYERS)
    assert [n for n, d in served.items() if d["pulled"]] == sorted(PULL_LAYERS, key=list(LAYERS).index)
    assert {n for n, d in served.items() if d["field_editable"]} == FIELD_EDIT_LAYERS
    taps = served["taps"]
    assert taps["style"] == {"label": "Taps", "colour": "#54278f", "kind": "point", "on": False, "z": 5,
                             "label_field": None, "label_zoom": 16}
    # Maps write each street's name along it, from a zoom where the names fit between the lots.
    assert served["streets"]["style"]["label_field"] == "name" and served["streets"]["style"]["on"]
    assert {"name", "left_from", "left_to", "right_from", "right_to"} <= set(served["streets"]["properties"])
    assert [i["id"] for i in taps["field_inputs"]] == ["clock_position"]
    assert taps["field_inputs"][0] == {"id": "clock_position", "prompt": "Clock position (12 = crown)",
                                       "type": "number", "min": 0.5, "max": 12.0, "step": 0.5}
    assert taps["checked_on_save"] and not served["findings"]["checked_on_save"]
    assert served["parcels"]["style"] is None  # the survey map draws parcels by survey state
    assert "clock_position" in taps["properties"] and taps["write_roles"] == ["admin", "superintendent"]


def test_the_registry_is_in_the_openapi_document(client, auth):
    doc = client.get("/api/v1/openapi.json", headers=auth["inspector"]).get_json()
    schema = doc["paths"]["/api/v1/layers"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    assert schema["items"]["$ref"].endswith("/LayerOut")


HYDRANTS = Layer("hydrants", "hydrant", models.Manhole, schemas.ManholeProperties, ("Point",), "POINT",
                 ("facility_id",), style=MapStyle("Hydrants", "#ff0000", "point", on=True, z=9),
                 field_inputs=(FieldInput("facility_id", "Hydrant number", "number"),))


@pytest.fixture
def with_hydrants(monkeypatch):
    """A throw-away layer, declared only in the registry (it borrows the manholes' table)."""
    monkeypatch.setitem(LAYERS, HYDRANTS.name, HYDRANTS)
    return HYDRANTS


def test_a_layer_declared_once_is_served_everywhere(with_hydrants, db_kind, tmp_path):
    with fresh_app(db_kind, tmp_path) as app:
        with app.app_context():
            token = issue_token(create_user("super7", "superintendent", "pw-hydrants-1", "Hydrants"), "t")[0]
            db.session.commit()
        client = app.test_client()
        headers = {"Authorization": f"Bearer {token}"}
        made = client.post("/api/v1/hydrants", headers=headers, json={
            "type": "Feature", "geometry": {"type": "Point", "coordinates": list(WHERE)},
            "properties": {"facility_id": "H-1"}})
        assert made.status_code == 201, made.get_json()
        fid = made.get_json()["id"]

        listed = client.get("/api/v1/hydrants", headers=headers).get_json()
        assert [f["id"] for f in listed["features"]] == [fid]

        collections = client.get("/ogc/collections?f=json", headers=headers).get_json()["collections"]
        assert "hydrants" in [c["id"] for c in collections]
        items = client.get("/ogc/collections/hydrants/items?f=json", headers=headers).get_json()
        assert [f["id"] for f in items["features"]] == [fid]

        z = 18
        x, y = tile_for(*WHERE, z)
        tile = client.get(f"/tiles/hydrants/{z}/{x}/{y}.mvt", headers=headers)
        assert tile.status_code == 200
        decoded = mapbox_vector_tile.decode(tile.data)
        assert [f["id"] for f in decoded["hydrants"]["features"]] == [fid]

        export = client.get("/api/v1/exports/hydrants.geojson", headers=headers)
        assert export.status_code == 200
        assert [f["properties"]["facility_id"] for f in json.loads(export.data)["features"]] == ["H-1"]

        registry = {d["name"]: d for d in client.get("/api/v1/layers", headers=headers).get_json()}
        assert registry["hydrants"]["style"] == dataclasses.asdict(HYDRANTS.style)
        assert registry["hydrants"]["field_inputs"][0]["prompt"] == "Hydrant number"


def test_the_survey_map_s_legend_is_the_registry_s_styles(client):
    clerk = db.session.scalar(select(User).where(User.username == "clerk1"))
    with client.session_transaction() as session:
        session.update(user_id=clerk.id, session_version=clerk.session_version)
    html = client.get("/map").get_data(as_text=True)
    legend = html[html.index('aria-label="Legend"'):]
    labels = [layer.style.label for layer in styled_layers()]  # bottom to top, as the map stacks them
    assert len(labels) == 8
    positions = [legend.index(f"{label}</li>") for label in labels]
    assert positions == sorted(positions)
    assert 'style="--c: #54278f"' in legend  # taps' colour, from the registry
