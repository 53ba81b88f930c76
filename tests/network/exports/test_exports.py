"""Layer exports read back with pyogrio: counts, attributes and geometry, on both engines."""

from __future__ import annotations

import zipfile

import pyogrio
import pytest
import shapely
from geoalchemy2.shape import to_shape
from sqlalchemy import select

from server.core.extensions import db
from server.network.exports import FORMATS, write_export
from server.network.layers import LAYERS
from server.network.models import Parcel

BBOX = (-91.502, 44.2525, -91.499, 44.254)


def _read(path, fmt):
    if fmt == "shp.zip":
        path = f"/vsizip/{path}"
    # Times as text: pyogrio's datetimes fail on a time in the last half millisecond of a
    # second (tests/network/imports/test_import_parcels.py), where a seeded row's stamps may fall.
    return pyogrio.raw.read(str(path), read_geometry=True, return_fids=False, datetime_as_string=True)


def _columns(result) -> dict:
    meta, _, geometry, values = result[0], result[1], result[2], result[3]
    return {"geometry": geometry, **dict(zip(meta["fields"], values, strict=True))}


def _stored(model):
    return {row.id: row for row in db.session.scalars(select(model).order_by(model.id))}


@pytest.mark.parametrize("fmt", list(FORMATS))
@pytest.mark.parametrize("layer_name", ["parcels", "mains", "taps", "findings"])
def test_export_round_trips(app, seeded_city, tmp_path, fmt, layer_name):
    layer = LAYERS[layer_name]
    path = tmp_path / f"{layer_name}.{fmt}"
    count = write_export(layer, fmt, path)
    stored = _stored(layer.model)
    cols = _columns(_read(path, fmt))
    assert count == len(stored) == len(cols["id"]) > 0
    ids = [int(v) for v in cols["id"]]
    assert ids == sorted(stored)
    for i, fid in enumerate(ids[:25]):
        expected = to_shape(stored[fid].geom)
        got = shapely.from_wkt(cols["WKT"][i]) if fmt == "csv" else shapely.from_wkb(cols["geometry"][i])
        # GeoJSON (RFC 7946) keeps 7 decimals; a shapefile cannot tell a one-part multipolygon.
        assert got.hausdorff_distance(expected) < 1e-6, fid
        assert abs(got.area - expected.area) <= 1e-2 * expected.area, fid


@pytest.mark.parametrize("fmt", ["gpkg", "geojson"])
def test_attributes_keep_their_values_and_nulls(app, seeded_city, tmp_path, fmt):
    path = tmp_path / f"parcels.{fmt}"
    write_export(LAYERS["parcels"], fmt, path)
    cols = _columns(_read(path, fmt))
    stored = _stored(Parcel)
    for i, fid in enumerate(int(v) for v in cols["id"]):
        parcel = stored[fid]
        assert cols["parcel_number"][i] == parcel.parcel_number
        assert cols["owner_name_2"][i] == parcel.owner_name_2  # mostly None: nulls stay null
        assert bool(cols["has_building"][i]) is parcel.has_building
        assert int(cols["version"][i]) == parcel.version


def test_csv_carries_wkt_geometry_and_text_columns(app, seeded_city, tmp_path):
    path = tmp_path / "taps.csv"
    write_export(LAYERS["taps"], "csv", path)
    header = path.read_text().splitlines()[0].split(",")
    assert header[0] == "WKT" and "main_id" in header and "method" in header


def test_shapefile_zip_holds_the_parts(app, seeded_city, tmp_path):
    path = tmp_path / "tracer-wires.shp.zip"
    write_export(LAYERS["tracer-wires"], "shp.zip", path)
    names = set(zipfile.ZipFile(path).namelist())
    assert {"tracer_wires.shp", "tracer_wires.shx", "tracer_wires.dbf", "tracer_wires.prj"} <= names


def test_bbox_limits_the_export(app, seeded_city, tmp_path):
    path = tmp_path / "parcels.gpkg"
    count = write_export(LAYERS["parcels"], "gpkg", path, BBOX)
    inside = {p.id for p in db.session.scalars(select(Parcel))
              if to_shape(p.geom).intersects(shapely.box(*BBOX))}
    assert 0 < count == len(inside) < 200
    assert set(_columns(_read(path, "gpkg"))["id"].astype(int)) == inside


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_download_endpoint(client, auth, seeded_city, tmp_path, fmt):
    r = client.get(f"/api/v1/exports/manholes.{fmt}", headers=auth["clerk"])
    assert r.status_code == 200
    assert r.mimetype == FORMATS[fmt].media_type
    assert f'filename=manholes.{fmt}' in r.headers["Content-Disposition"]
    path = tmp_path / f"download.{fmt}"
    path.write_bytes(r.data)
    assert len(_columns(_read(path, fmt))["id"]) == len(_stored(LAYERS["manholes"].model))


def test_download_with_bbox(client, auth, seeded_city, tmp_path):
    r = client.get("/api/v1/exports/parcels.geojson?bbox=" + ",".join(map(str, BBOX)), headers=auth["inspector"])
    body = r.get_json(force=True)
    inside = {p.id for p in db.session.scalars(select(Parcel)) if to_shape(p.geom).intersects(shapely.box(*BBOX))}
    assert {f["properties"]["id"] for f in body["features"]} == inside


@pytest.mark.parametrize("name, status", [("sidewalks.gpkg", 404), ("parcels.kml", 404), ("parcels", 404)])
def test_unknown_layer_or_format(client, auth, name, status):
    assert client.get(f"/api/v1/exports/{name}", headers=auth["clerk"]).status_code == status


def test_download_needs_a_login(client):
    assert client.get("/api/v1/exports/parcels.gpkg").status_code == 401


def test_cli_export(migrated_app, tmp_path):
    kind, app, _ = migrated_app
    result = app.test_cli_runner().invoke(args=["export", "service-areas", "geojson", str(tmp_path / "sa.geojson")])
    assert result.exit_code == 0, result.output
    assert "service-areas" in result.output
    assert pyogrio.read_info(str(tmp_path / "sa.geojson"))["features"] == int(result.output.split()[1])


def test_cli_refuses_to_overwrite(migrated_app, tmp_path):
    _, app, _ = migrated_app
    target = tmp_path / "x.csv"
    target.write_text("keep me")
    result = app.test_cli_runner().invoke(args=["export", "taps", "csv", str(target)])
    assert result.exit_code != 0 and target.read_text() == "keep me"


@pytest.mark.parametrize("typed", ['=HYPERLINK("http://evil.example","Click")', "+1+cmd|' /C calc'!A0",
                                   "-2+3", "@SUM(A1:A9)", "\t=1+1", "\r=1+1"])
def test_csv_cells_that_start_like_a_formula_are_neutralised(app, parcel, tmp_path, typed):
    """OWASP's CSV injection advice: a leading quote, so the spreadsheet shows text (issue 30)."""
    import csv

    parcel.owner_name = typed
    parcel.owner_name_2 = "Ann Kulig"  # ordinary text is left alone
    db.session.flush()
    path = tmp_path / "parcels.csv"
    write_export(LAYERS["parcels"], "csv", path)
    with path.open(newline="") as f:
        row = next(r for r in csv.DictReader(f) if r["id"] == str(parcel.id))
    assert row["owner_name"] == "'" + typed
    assert row["owner_name_2"] == "Ann Kulig"
