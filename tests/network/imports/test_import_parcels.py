"""`flask import parcels FILE`: the Wisconsin statewide schema from GeoJSON, zipped Shapefile and GeoPackage."""

from __future__ import annotations

import copy

import pytest
import shapely
from geoalchemy2.shape import to_shape
from sqlalchemy import func, select

from server.core.audit.models import AuditEvent
from server.core.extensions import db
from server.network.models import Parcel
from tests.support.import_files import ARCADIA, WI_PARCELS, squares, write

FORMATS = ["parcels.geojson", "parcels.zip", "parcels.gpkg"]


def _count() -> int:
    return db.session.scalar(select(func.count(Parcel.id)))


def _parcel(number: str) -> Parcel:
    db.session.expire_all()
    return db.session.scalar(select(Parcel).where(Parcel.parcel_number == number))


@pytest.mark.parametrize("name", FORMATS)
def test_wisconsin_schema_imports_with_no_mapping(run_import, tmp_path, name):
    path = write(tmp_path / name, WI_PARCELS, squares(3), lower=name.endswith(".gpkg"))

    result = run_import("parcels", path)

    assert result.exit_code == 0, result.output
    assert "3 new, 0 updated, 0 unchanged" in result.output
    assert "wisconsin-statewide-parcels, from EPSG:3071" in result.output
    assert "Checking features" in result.stderr  # the progress bar
    ann = _parcel("206-00101-0000")
    assert (ann.owner_name, ann.site_address, ann.user_class, ann.has_building) == \
        ("ANN KULIG", "412 N DETTLOFF DR", "residential", True)
    assert (ann.mailing_street, ann.mailing_city, ann.mailing_state, ann.mailing_zip) == \
        ("412 N DETTLOFF DR", "ARCADIA", "WI", "54612-1123")
    centre = to_shape(ann.geom).centroid  # reprojected from Wisconsin Transverse Mercator
    assert abs(centre.x - ARCADIA[0]) < 0.001 and abs(centre.y - ARCADIA[1]) < 0.001


def test_postal_line_with_commas_and_site_fallback(run_import, tmp_path):
    run_import("parcels", write(tmp_path / "p.geojson", WI_PARCELS, squares(3)))
    llc = _parcel("206-00102-0000")
    assert (llc.owner_name_2, llc.mailing_street, llc.mailing_city, llc.mailing_zip, llc.user_class) == \
        ("C/O R HALVERSON", "2200 MAIN ST", "LA CROSSE", "54601", "commercial")
    # PSTLADRESS is only the street, and it is the site: the site's place, state and ZIP complete it.
    weiss = _parcel("206-00103-0000")
    assert (weiss.mailing_street, weiss.mailing_city, weiss.mailing_state, weiss.mailing_zip, weiss.has_building) \
        == ("711 E RIVER ST", "ARCADIA", "WI", "54612-1402", False)


def test_import_again_updates_by_parcel_number(run_import, tmp_path):
    run_import("parcels", write(tmp_path / "first.geojson", WI_PARCELS, squares(3)))
    changed = copy.deepcopy(WI_PARCELS)
    changed[0]["OWNERNME1"] = "ANN AND PAUL KULIG"

    result = run_import("parcels", write(tmp_path / "second.geojson", changed, squares(3)))

    assert "0 new, 1 updated, 2 unchanged" in result.output
    assert _parcel("206-00101-0000").owner_name == "ANN AND PAUL KULIG"
    assert _count() == 3


def test_moved_boundary_is_an_update(run_import, tmp_path):
    run_import("parcels", write(tmp_path / "first.geojson", WI_PARCELS, squares(3)))
    moved = [shapely.affinity.translate(g, 3.0, 0) for g in squares(3)]
    result = run_import("parcels", write(tmp_path / "moved.geojson", WI_PARCELS, moved))
    assert "0 new, 3 updated, 0 unchanged" in result.output


def test_dry_run_reports_and_writes_nothing(run_import, tmp_path):
    run_import("parcels", write(tmp_path / "first.geojson", WI_PARCELS[:2], squares(2)))
    changed = copy.deepcopy(WI_PARCELS)
    changed[1]["PSTLADRESS"] = "PO BOX 86 ARCADIA WI 54612"
    audits = db.session.scalar(select(func.count(AuditEvent.id)))

    result = run_import("parcels", write(tmp_path / "next.geojson", changed, squares(3)), "--dry-run")

    assert result.exit_code == 0
    assert "would import 3 features" in result.output
    assert "1 new, 1 updated, 1 unchanged (dry run: nothing written)" in result.output
    assert _count() == 2
    assert _parcel("206-00102-0000").mailing_street == "2200 MAIN ST"
    assert db.session.scalar(select(func.count(AuditEvent.id))) == audits


def test_an_import_is_audited(run_import, tmp_path):
    run_import("parcels", write(tmp_path / "p.geojson", WI_PARCELS, squares(3)))
    event = db.session.scalar(select(AuditEvent).where(AuditEvent.action == "import")
                              .order_by(AuditEvent.id.desc()))
    assert event.after["new"] == 3 and event.after["layer"] == "parcels"


@pytest.mark.parametrize("stamp", ["2026-12-02T08:12:59.999700+00:00", "2026-12-02T08:12:59.999500"])
def test_a_time_in_the_last_half_millisecond_of_a_second_imports(run_import, tmp_path, stamp):
    """GDAL keeps times to the millisecond, and pyogrio turning ``59.9997`` seconds into a
    datetime rounds to 1,000 ms and fails ("microsecond must be in 0..999999"). The
    import reads times as text (pyogrio's ``datetime_as_string``), so such a file, a
    Lateral export among them, imports like any other."""
    records = [{**r, "LASTEDIT": stamp} for r in WI_PARCELS]
    result = run_import("parcels", write(tmp_path / "edited.geojson", records, squares(3)))
    assert result.exit_code == 0, result.output
    assert "3 new" in result.output


def test_an_import_warns_of_a_parcel_far_from_the_rest(run_import, tmp_path, seeded_city_300):
    from pyproj import Transformer
    from shapely.geometry import box

    from tests.support.framing import STRAY_LONLAT

    near = squares(3)
    x, y = Transformer.from_crs("EPSG:4326", "EPSG:3071", always_xy=True).transform(*STRAY_LONLAT)
    geoms = [*near[:2], box(x, y, x + 20, y + 20)]

    result = run_import("parcels", write(tmp_path / "p.geojson", WI_PARCELS, geoms))

    assert result.exit_code == 0, result.output
    warnings = [line for line in result.output.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1 and WI_PARCELS[2]["PARCELID"] in warnings[0]
    assert "far from the rest of the city" in warnings[0]
    assert _parcel(WI_PARCELS[2]["PARCELID"]) is not None  # imported all the same
