"""GDAL's OAPIF driver as an independent client of the live server (both engines)."""

from __future__ import annotations

import os
import re
import subprocess
from urllib.parse import urlsplit

import pytest
import shapely
from geoalchemy2.shape import to_shape
from sqlalchemy import select

from server.network.models import ClearWaterFinding, Parcel, Tap

SPAT = (-91.502, 44.2525, -91.499, 44.254)


@pytest.fixture
def gdal(ogr, ogc_city, tmp_path):
    """Run a GDAL tool against the live server with its bearer token; returns stdout."""
    header_file = tmp_path / "headers.txt"
    header_file.write_text(f"Authorization: Bearer {ogc_city.token}\n")
    env = {**os.environ, "GDAL_HTTP_HEADER_FILE": str(header_file), "GDAL_HTTP_TIMEOUT": "30"}
    source = f"OAPIF:{ogc_city.url}/ogc"

    def call(tool: str, args: tuple[str, ...], **extra_env: str) -> subprocess.CompletedProcess:
        done = subprocess.run([tool, *args], env={**env, **extra_env}, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        return done

    def run(tool: str, *args: str) -> str:
        return call(tool, args).stdout

    run.source = source
    run.debug = lambda tool, *args: call(tool, args, CPL_DEBUG="ON")  # stderr logs each URL fetched
    return run


def _feature_count(text: str) -> int:
    return int(re.search(r"Feature Count: (\d+)", text).group(1))


def test_ogrinfo_lists_every_collection(gdal, ogr):
    out = gdal(ogr[0], "-ro", "-so", gdal.source)
    names = re.findall(r"^\d+: (\S+) ", out, flags=re.M)
    assert names == ["parcels", "mains", "manholes", "laterals", "taps", "tracer-wires", "streets", "service-areas",
                     "findings", "permits"]


def test_parcel_count_matches_the_database(gdal, ogr, ogc_city):
    out = gdal(ogr[0], "-ro", "-al", "-so", gdal.source, "parcels")
    assert _feature_count(out) == ogc_city.count(Parcel) == 300
    assert "parcel_number: String" in out


def test_spatial_filter_reads_the_intersecting_parcels(gdal, ogr, ogc_city):
    out = gdal(ogr[0], "-ro", "-al", "-q", gdal.source, "parcels", "-spat", *map(str, SPAT))
    with ogc_city.app.app_context():
        from server.core.extensions import db

        expected = {pid for pid, g in db.session.execute(select(Parcel.id, Parcel.geom))
                    if to_shape(g).intersects(shapely.box(*SPAT))}
    got = {int(fid) for fid in re.findall(r"^OGRFeature\(parcels\):(\d+)", out, flags=re.M)}
    assert expected and got == expected


def test_fid_fetches_one_feature(gdal, ogr):
    out = gdal(ogr[0], "-ro", "-q", gdal.source, "parcels", "-fid", "42")
    assert re.findall(r"^OGRFeature\(parcels\):(\d+)", out, flags=re.M) == ["42"]
    assert "MULTIPOLYGON" in out


def test_where_on_a_documented_filter_is_sent_to_the_server(gdal, ogr, ogc_city):
    """GDAL finds the items parameters in the API definition and sends the -where as one."""
    done = gdal.debug(ogr[0], "-ro", "-q", gdal.source, "findings", "-where", "source = 'sump_pump'")
    fetched = re.findall(r"HTTP: Fetch\((\S+)\)", done.stderr)
    assert any(urlsplit(url).path == "/ogc/api" for url in fetched), fetched
    assert any("/ogc/collections/findings/items?" in url and "source=sump_pump" in url for url in fetched), fetched
    got = len(re.findall(r"^OGRFeature\(findings\):", done.stdout, flags=re.M))
    assert got == ogc_city.count(ClearWaterFinding, ClearWaterFinding.source == "sump_pump") > 0


def test_ogr2ogr_copies_two_layers_to_geopackage(gdal, ogr, ogc_city, tmp_path):
    out_file = tmp_path / "city.gpkg"
    gdal(ogr[1], "-f", "GPKG", str(out_file), gdal.source, "parcels", "taps")
    for layer, model in (("parcels", Parcel), ("taps", Tap)):
        info = gdal(ogr[0], "-ro", "-so", str(out_file), layer)
        assert _feature_count(info) == ogc_city.count(model) > 0


def test_basic_auth_with_a_password(ogr, ogc_city):
    env = {**os.environ, "GDAL_HTTP_AUTH": "BASIC",
           "GDAL_HTTP_USERPWD": f"{ogc_city.username}:{ogc_city.password}"}
    done = subprocess.run([ogr[0], "-ro", "-so", f"OAPIF:{ogc_city.url}/ogc"], env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "1: parcels" in done.stdout


def test_without_a_login_gdal_is_refused(ogr, ogc_city):
    done = subprocess.run([ogr[0], "-ro", "-so", f"OAPIF:{ogc_city.url}/ogc"], env=dict(os.environ),
                          capture_output=True, text=True, timeout=60)
    assert done.returncode != 0
    assert "401" in done.stderr
