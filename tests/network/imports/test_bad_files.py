"""A file that does not fit imports nothing and says why."""

from __future__ import annotations

import pytest
from shapely.geometry import Point, Polygon
from sqlalchemy import func, select

from server.core.extensions import db
from server.network.models import Parcel
from tests.support.import_files import WI_PARCELS, squares, write


def _count() -> int:
    return db.session.scalar(select(func.count(Parcel.id)))


def assert_refused(result, *words: str) -> None:
    assert result.exit_code == 1, result.output
    for word in words:
        assert word in result.output
    assert _count() == 0


def test_points_where_parcels_are_polygons(run_import, tmp_path):
    points = [Point(g.centroid) for g in squares(3)]
    result = run_import("parcels", write(tmp_path / "points.geojson", WI_PARCELS, points))
    assert_refused(result, "3 of 3 features cannot be imported, so none were", "Point where a MultiPolygon is needed")


def test_one_broken_ring_refuses_the_whole_file(run_import, tmp_path):
    good = squares(3)
    x0, y0, x1, y1 = good[2].bounds
    bowtie = Polygon([(x0, y0), (x1, y1), (x1, y0), (x0, y1), (x0, y0)])
    result = run_import("parcels", write(tmp_path / "bowtie.geojson", WI_PARCELS, [*good[:2], bowtie]))
    assert_refused(result, "1 of 3 features cannot be imported", "invalid geometry: Self-intersection")


def test_shapefile_without_a_prj_says_so(run_import, tmp_path):
    result = run_import("parcels", write(tmp_path / "no-crs.zip", WI_PARCELS, squares(3), crs=None))
    assert_refused(result, "does not say its coordinate system")


def test_unknown_fields_without_a_mapping(run_import, tmp_path):
    records = [{"PIN": r["PARCELID"], "OWNER": r["OWNERNME1"]} for r in WI_PARCELS]
    result = run_import("parcels", write(tmp_path / "other.geojson", records, squares(3)))
    assert_refused(result, "nothing in the file gives the parcels layer's parcel_number", "PIN, OWNER",
             "--map SOURCE_FIELD=our_column")


def test_a_mapping_makes_the_same_file_import(run_import, tmp_path):
    records = [{"PIN": r["PARCELID"], "OWNER": r["OWNERNME1"]} for r in WI_PARCELS]
    path = write(tmp_path / "other.geojson", records, squares(3))
    result = run_import("parcels", path, "--map", "PIN=parcel_number", "--map", "OWNER=owner_name")
    assert result.exit_code == 0, result.output
    assert "3 new" in result.output and _count() == 3


def test_duplicate_parcel_numbers(run_import, tmp_path):
    twice = [WI_PARCELS[0], WI_PARCELS[1], {**WI_PARCELS[2], "PARCELID": WI_PARCELS[0]["PARCELID"]}]
    result = run_import("parcels", write(tmp_path / "twice.geojson", twice, squares(3)))
    assert_refused(result, "parcel_number 206-00101-0000 is also feature 0's")


def test_a_value_the_layer_refuses(run_import, tmp_path):
    bad_zip = [{**WI_PARCELS[0], "PSTLADRESS": "412 N DETTLOFF DR ARCADIA WISCONSIN"}, *WI_PARCELS[1:]]
    records = [{**r, "ZIP": "5461"} for r in bad_zip]
    result = run_import("parcels", write(tmp_path / "zip.geojson", records, squares(3)), "--map", "ZIP=mailing_zip")
    assert_refused(result, "mailing_zip: ZIP must be 12345 or 12345-6789")


@pytest.mark.parametrize(("args", "message"), [
    (["--map", "PARCELID"], "write it as SOURCE_FIELD=our_column"),
    (["--map", "NOPE=owner_name"], "has no field 'NOPE'"),
    (["--map", "PARCELID=pin"], "the parcels layer has no column 'pin'"),
])
def test_bad_mappings(run_import, tmp_path, args, message):
    result = run_import("parcels", write(tmp_path / "p.geojson", WI_PARCELS, squares(3)), *args)
    assert_refused(result, message)


def test_not_a_vector_file(run_import, tmp_path):
    path = tmp_path / "notes.geojson"
    path.write_text("these are not parcels")
    assert_refused(run_import("parcels", path), "not a vector file GDAL can read")
