"""Permits export like any layer (issue 32: "OGC API and exports serve permits like any
layer, with owners' personal data only for staff"): GeoPackage, zipped Shapefile, CSV and
GeoJSON at ``/api/v1/exports/permits.<format>``, at once or as a job, each permit on its
parcel, the owners' personal data only in the office's files."""

from __future__ import annotations

import csv
import io
import json

import pyogrio
import pytest
import shapely
from geoalchemy2.shape import to_shape

from server.core.extensions import db
from server.network.models import Parcel
from server.permits.schemas import PERSONAL
from tests.support.permits import applied_and_issued, apply


@pytest.fixture
def two_permits(client, auth, parcel):
    return applied_and_issued(client, auth, parcel.id)


def _geojson(response) -> dict:
    assert response.status_code == 200, response.get_json()
    return json.loads(response.data)


def test_the_office_exports_permits_on_their_parcels_with_the_owners_data(client, auth, parcel, two_permits):
    doc = _geojson(client.get("/api/v1/exports/permits.geojson", headers=auth["clerk"]))
    assert [f["properties"]["id"] for f in doc["features"]] == [p["id"] for p in two_permits]
    first = doc["features"][0]
    assert first["properties"]["applicant_email"] == "dana@example.org"
    assert first["properties"]["number"] == two_permits[0]["properties"]["number"]
    assert doc["features"][1]["properties"]["state"] == "issued"
    # GeoJSON (RFC 7946) keeps 7 decimals, about a centimetre: the parcel's shape to that.
    written, stored = shapely.geometry.shape(first["geometry"]), to_shape(db.session.get(Parcel, parcel.id).geom)
    assert shapely.hausdorff_distance(written, stored) < 1e-6


def test_an_inspector_s_file_has_no_owners_personal_data(client, auth, two_permits):
    doc = _geojson(client.get("/api/v1/exports/permits.geojson", headers=auth["inspector"]))
    assert len(doc["features"]) == 2
    for feature in doc["features"]:
        assert not set(PERSONAL) & set(feature["properties"])
        assert feature["properties"]["kind"] in ("new_connection", "tap")
    text = client.get("/api/v1/exports/permits.csv", headers=auth["inspector"]).data.decode()
    assert "dana@example.org" not in text and "applicant_email" not in text


@pytest.mark.parametrize("suffix", ["gpkg", "shp.zip"])
def test_gis_files_carry_typed_columns(client, auth, two_permits, tmp_path, suffix):
    r = client.get(f"/api/v1/exports/permits.{suffix}", headers=auth["superintendent"])
    assert r.status_code == 200
    path = tmp_path / f"permits.{suffix}"
    path.write_bytes(r.data)
    frame = pyogrio.read_info(f"/vsizip/{path}" if suffix == "shp.zip" else str(path))
    assert frame["features"] == 2 and frame["geometry_type"] in ("MultiPolygon", "Polygon")
    names = list(frame["fields"])
    assert "state" in names and ("applied_on" in names or "applied_on"[:10] in names)
    if suffix == "gpkg":
        types = dict(zip(frame["fields"], frame["dtypes"], strict=True))
        assert types["connection_size_in"] == "float64" and types["paid"] == "bool"
        assert types["applied_on"].startswith("datetime64")


def test_a_permits_export_job_writes_what_the_submitter_may_read(client, auth, two_permits):
    r = client.post("/api/v1/exports/permits.geojson", headers=auth["inspector"])
    assert r.status_code == 202, r.get_json()
    job = r.get_json()
    assert job["state"] == "done" and job["result"]["features"] == 2
    doc = _geojson(client.get(f"/api/v1/exports/jobs/{job['id']}", headers=auth["inspector"]))
    assert not set(PERSONAL) & set(doc["features"][0]["properties"])
    office = client.post("/api/v1/exports/permits.geojson", headers=auth["clerk"]).get_json()
    doc = _geojson(client.get(f"/api/v1/exports/jobs/{office['id']}", headers=auth["clerk"]))
    assert doc["features"][0]["properties"]["applicant_email"] == "dana@example.org"


def test_a_spreadsheet_formula_in_a_permit_is_text_in_the_csv(client, auth, parcel):
    apply(client, auth, parcel.id, applicant_name='=HYPERLINK("http://evil.example","x")')
    rows = list(csv.DictReader(io.StringIO(client.get("/api/v1/exports/permits.csv", headers=auth["clerk"])
                                            .data.decode())))
    assert rows[0]["applicant_name"].startswith("'=")


def test_the_export_command_writes_permits_and_names_a_wrong_layer(app, client, auth, two_permits, tmp_path):
    runner = app.test_cli_runner()
    result = runner.invoke(args=["export", "permits", "geojson", str(tmp_path / "permits.geojson")])
    assert result.exit_code == 0, result.output
    doc = json.loads((tmp_path / "permits.geojson").read_text())
    assert len(doc["features"]) == 2 and doc["features"][0]["properties"]["applicant_email"] == "dana@example.org"
    wrong = runner.invoke(args=["export", "permit", "geojson", str(tmp_path / "x.geojson")])
    assert wrong.exit_code != 0 and "permits" in wrong.output and not (tmp_path / "x.geojson").exists()
