"""GeoPackage exports are version 1.2, which every GDAL from 2.2 on (Debian 12's 3.6, under
QGIS 3.22) opens without "may only be partially supported"."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from server.demo import seed as demo
from server.network.exports import write_export
from server.network.layers import LAYERS


@pytest.fixture
def parcels_gpkg(app, tmp_path):
    demo.seed(parcels=200, with_users=False)
    path = tmp_path / "parcels.gpkg"
    assert write_export(LAYERS["parcels"], "gpkg", path) > 0
    return path


def test_the_header_says_geopackage_1_2(parcels_gpkg):
    header = parcels_gpkg.read_bytes()[:100]
    assert header[:16] == b"SQLite format 3\x00"
    assert header[68:72] == b"GPKG"  # application_id
    assert int.from_bytes(header[60:64], "big") == 10200  # user_version: 1.2.0


def test_ogrinfo_opens_it_without_a_warning(parcels_gpkg):
    ogrinfo = shutil.which("ogrinfo")
    if ogrinfo is None:
        pytest.skip("gdal-bin is not installed")
    done = subprocess.run([ogrinfo, "-ro", "-so", str(parcels_gpkg), "parcels"], capture_output=True, text=True,
                          check=True)
    assert "Feature Count: 200" in done.stdout
    assert "Warning" not in done.stdout + done.stderr, done.stderr
