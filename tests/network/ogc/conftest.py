"""The OGC API's independent clients run against a live server on each engine; GDAL's tools."""

from __future__ import annotations

import shutil

import pytest

from tests.support.databases import ENGINES
from tests.support.env import STRICT
from tests.support.live_city import serve_city


@pytest.fixture(scope="package", params=ENGINES)
def ogc_city(request, tmp_path_factory):
    """The 300-parcel demo city served on each engine, read by the package's GIS clients."""
    with serve_city(request.param, tmp_path_factory.mktemp(f"live-{request.param}")) as city:
        yield city


@pytest.fixture(scope="module")
def ogr():
    """The ogrinfo and ogr2ogr paths; strict mode fails when GDAL is missing."""
    paths = shutil.which("ogrinfo"), shutil.which("ogr2ogr")
    if None in paths:
        if STRICT:
            pytest.fail("strict mode: ogrinfo/ogr2ogr are not installed (apt-get install gdal-bin)", pytrace=False)
        pytest.skip("ogrinfo/ogr2ogr are not installed (apt-get install gdal-bin)")
    return paths
