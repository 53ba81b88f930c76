"""Real utilities' files import through the database, and the rules run over them cleanly."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from server.core.audit.models import AuditEvent
from server.core.extensions import db
from server.network.imports import ImportFailed, import_file
from server.network.layers import LAYERS
from server.rules import run as rules
from server.rules.models import Violation
from tests.support.env import need_shared

pytestmark = pytest.mark.realdata

GIS = ("realdata", "gis")
TACOMA_DIR = (*GIS, "tacoma_wa_stormpiper", "sample_C02_1_C03_1")
TACOMA_GPKG = (*TACOMA_DIR, "tacoma_sample_epsg2927.gpkg")
TACOMA = {layer: (*TACOMA_DIR, "epsg2927", f"{layer}.geojson") for layer in ("trunk_mains", "manholes", "taps")}
SOURCES = {
    "tacoma": [(TACOMA["trunk_mains"], "tacoma-trunk-mains"), (TACOMA["manholes"], "tacoma-manholes"),
               (TACOMA["taps"], "tacoma-taps")],
    "bradford-vt": [((*GIS, "vermont_verso_uvm", "Bradford", f"Bradford{name}.geojson"), mapping)
                    for name, mapping in (("LinearFeatures", "vermont-lines"), ("PointFeatures", "vermont-points"),
                                          ("ServiceArea", "vermont-service-area"))],
    "colchester-vt": [((*GIS, "vermont_verso_uvm", "Colchester", f"Colchester{name}.geojson"), mapping)
                      for name, mapping in (("LinearFeatures", "vermont-lines"),
                                            ("PointFeatures", "vermont-points"),
                                            ("ServiceArea", "vermont-service-area"))],
    "san-francisco": [((*GIS, "sf_dpw_2977J", f"2977J_{name}.geojson"), mapping)
                      for name, mapping in (("101_SW_mains_20", "sf-mains"), ("103_SW_manholes_23", "sf-manholes"),
                                            ("105_SW_laterals_22", "sf-laterals"))],
}


def count(layer: str) -> int:
    return db.session.scalar(select(func.count()).select_from(LAYERS[layer].model))


@pytest.mark.parametrize("utility", list(SOURCES))
def test_a_real_network_imports_and_checks_without_error(app, utility):
    reports = [import_file(need_shared(*parts), mapping) for parts, mapping in SOURCES[utility]]
    for report in reports:
        assert report.imported > 0, report.summary()
        assert report.imported + report.skipped + len(report.rejected) == report.read
    assert {r.layer: count(r.layer) for r in reports} == {r.layer: r.imported for r in reports}
    outcome = rules.run_network()
    assert outcome.features == sum(r.imported for r in reports)
    assert db.session.scalar(select(func.count()).select_from(Violation)) == outcome.opened == outcome.found


def test_tacoma_is_reprojected_from_washington_state_plane(app):
    import_file(need_shared(*TACOMA["manholes"]), "tacoma-manholes")
    minx, miny, maxx, maxy = db.session.execute(select(
        func.min(func.ST_X(LAYERS["manholes"].model.geom)), func.min(func.ST_Y(LAYERS["manholes"].model.geom)),
        func.max(func.ST_X(LAYERS["manholes"].model.geom)), func.max(func.ST_Y(LAYERS["manholes"].model.geom)),
    )).one()
    assert -122.6 < minx < maxx < -122.3 and 47.1 < miny < maxy < 47.4  # Tacoma, WA


def test_tacoma_taps_find_the_main_they_sit_on(app):
    import_file(need_shared(*TACOMA["trunk_mains"]), "tacoma-trunk-mains")
    report = import_file(need_shared(*TACOMA["taps"]), "tacoma-taps")
    tap = LAYERS["taps"].model
    snapped = db.session.scalar(select(func.count()).select_from(tap).where(tap.main_id.is_not(None)))
    assert 0 < snapped <= report.imported


def test_dry_run_reads_and_validates_but_writes_nothing(app):
    audits = db.session.scalar(select(func.count()).select_from(AuditEvent))
    report = import_file(need_shared(*TACOMA["trunk_mains"]), "tacoma-trunk-mains", dry_run=True)
    assert report.imported == 127 and report.dry_run
    assert count("mains") == 0
    assert db.session.scalar(select(func.count()).select_from(AuditEvent)) == audits


def test_an_import_is_one_audit_row(app):
    report = import_file(need_shared(*TACOMA["manholes"]), "tacoma-manholes")
    row = db.session.scalars(select(AuditEvent).order_by(AuditEvent.id.desc())).first()
    assert (row.action, row.subject_type, row.after["imported"]) == ("import", "manhole", report.imported)


def test_a_geopackage_layer_is_read_like_its_geojson_export(app):
    report = import_file(need_shared(*TACOMA_GPKG), "tacoma-manholes")
    assert (report.source_crs, report.imported) == ("EPSG:2927", 783)


def test_a_layer_the_file_lacks_is_a_clear_error(app):
    with pytest.raises(ImportFailed, match="has no layer 'sewers'; it has "):
        import_file(need_shared(*TACOMA_GPKG), "tacoma-manholes", source_layer="sewers")


def test_a_file_that_is_not_gis_data_is_a_clear_error(app, tmp_path):
    bad = tmp_path / "mains.geojson"
    bad.write_text("this is not GeoJSON")
    with pytest.raises(ImportFailed, match="not a vector file GDAL can read"):
        import_file(bad, "sf-mains")


def test_a_missing_file_and_an_unknown_mapping_are_clear_errors(app, tmp_path):
    with pytest.raises(ImportFailed, match="no such file"):
        import_file(tmp_path / "absent.gpkg", "sf-mains")
    with pytest.raises(ImportFailed, match="no import mapping 'nope'"):
        import_file(tmp_path / "absent.gpkg", "nope")


def test_a_file_without_a_coordinate_system_is_refused(app, tmp_path):
    import shapely
    from pyogrio.raw import write

    path = tmp_path / "no_crs.shp"  # a shapefile without its .prj
    write(path, shapely.to_wkb([shapely.Point(1, 2)]), [], fields=[], geometry_type="Point", crs=None)
    with pytest.raises(ImportFailed, match="does not say its coordinate system"):
        import_file(path, "sf-manholes")
