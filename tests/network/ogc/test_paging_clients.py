"""GIS clients walk a layer page by page through the ``next`` links' cursors (both engines).

GDAL's OAPIF driver (``ogrinfo``, ``ogr2ogr``), OWSLib and QGIS's OAPIF provider each
read every parcel of the live city in pages of 7 (43 pages for 300 parcels) and must end
with exactly the database's parcels: none lost, none twice. A current GDAL (3.12, the one
pyogrio's wheel carries) reads the layer too, at its own page size and at 7: it sends
``crs=`` (OGC API – Features Part 2) on every page, and takes its page size from the
API definition's ``limit``.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from owslib.ogcapi.features import Features
from owslib.util import Authentication
from sqlalchemy import select

from server.network.models import Parcel
from tests.support.env import REPO_ROOT, STRICT

PAGE = 7
QGIS_PYTHON = "/usr/bin/python3"
QGIS_WALK = REPO_ROOT / "tests" / "support" / "qgis_walk.py"


def _parcel_ids(ogc_city) -> list[int]:
    with ogc_city.app.app_context():
        from server.core.extensions import db

        return list(db.session.scalars(select(Parcel.id).order_by(Parcel.id)))


def _gdal(tool: str, ogc_city, tmp_path, *args: str) -> subprocess.CompletedProcess:
    headers = tmp_path / "headers.txt"
    headers.write_text(f"Authorization: Bearer {ogc_city.token}\n")
    env = {**os.environ, "GDAL_HTTP_HEADER_FILE": str(headers), "GDAL_HTTP_TIMEOUT": "30", "CPL_DEBUG": "ON"}
    done = subprocess.run([tool, *args], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return done


def _fetched_pages(stderr: str) -> list[str]:
    return [u for u in re.findall(r"HTTP: Fetch\((\S+)\)", stderr) if "/collections/parcels/items?" in u]


def test_ogrinfo_walks_every_page_by_cursor(ogr, ogc_city, tmp_path):
    done = _gdal(ogr[0], ogc_city, tmp_path, "-ro", "-al", "-q", "-oo", f"PAGE_SIZE={PAGE}",
                 f"OAPIF:{ogc_city.url}/ogc", "parcels")
    ids = [int(fid) for fid in re.findall(r"^OGRFeature\(parcels\):(\d+)", done.stdout, flags=re.M)]
    assert ids == _parcel_ids(ogc_city)
    pages = _fetched_pages(done.stderr)
    assert len(pages) >= -(-len(ids) // PAGE)
    assert sum("cursor=" in u for u in pages) >= len(ids) // PAGE - 1
    assert not any("offset=" in u for u in pages)


def test_ogr2ogr_copies_the_layer_in_small_pages(ogr, ogc_city, tmp_path):
    out = tmp_path / "parcels.gpkg"
    _gdal(ogr[1], ogc_city, tmp_path, "-f", "GPKG", "-oo", f"PAGE_SIZE={PAGE}", str(out),
          f"OAPIF:{ogc_city.url}/ogc", "parcels")
    info = _gdal(ogr[0], ogc_city, tmp_path, "-ro", "-so", str(out), "parcels").stdout
    assert int(re.search(r"Feature Count: (\d+)", info).group(1)) == len(_parcel_ids(ogc_city))


def test_owslib_walks_the_next_links(ogc_city):
    api = Features(f"{ogc_city.url}/ogc", auth=Authentication(ogc_city.username, ogc_city.password))
    page = api.collection_items("parcels", limit=PAGE)
    matched, ids, pages = page["numberMatched"], [], 0
    while True:
        ids += [f["id"] for f in page["features"]]
        pages += 1
        nxt = [link["href"] for link in page["links"] if link["rel"] == "next"]
        if not nxt:
            break
        query = {k: v[0] for k, v in parse_qs(urlsplit(nxt[0]).query).items()}
        page = api.collection_items("parcels", **query)
    assert ids == _parcel_ids(ogc_city) and matched == len(ids)
    assert pages == -(-len(ids) // PAGE)


@pytest.fixture(scope="module")
def qgis():
    """Debian's python3 with QGIS's bindings (python3-qgis, qgis-providers)."""
    probe = subprocess.run([QGIS_PYTHON, "-c", "import qgis.core"], capture_output=True, text=True) \
        if Path(QGIS_PYTHON).exists() else None
    if probe is None or probe.returncode != 0:
        if STRICT:
            pytest.fail("strict mode: QGIS is not installed (apt-get install python3-qgis qgis-providers)",
                        pytrace=False)
        pytest.skip("QGIS is not installed (apt-get install python3-qgis qgis-providers)")
    return QGIS_PYTHON


def test_qgis_walks_the_layer_to_the_database_count(qgis, ogc_city, tmp_path):
    env = {**os.environ, "QGIS_AUTH_DB_DIR_PATH": str(tmp_path), "HOME": str(tmp_path),
           "XDG_RUNTIME_DIR": str(tmp_path), "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run([qgis, str(QGIS_WALK), f"{ogc_city.url}/ogc", "parcels", str(PAGE),
                           ogc_city.username, ogc_city.password],
                          env=env, capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr[-2000:]
    walked = json.loads(done.stdout.strip().splitlines()[-1])
    expected = _parcel_ids(ogc_city)
    assert sorted(walked["ids"]) == expected
    assert walked["feature_count"] == len(expected)


# Read in a child process: GDAL's HTTP settings are process-wide, and CPL_DEBUG's "Fetch"
# lines (stderr) show the pages asked for.
PYOGRIO_READ = """
import json, sys
import pyogrio
from pyogrio.raw import read
options = {"PAGE_SIZE": sys.argv[2]} if sys.argv[2] != "default" else {}
# Times as text: pyogrio's datetimes fail on a time in the last half millisecond of a
# second (GDAL keeps milliseconds; 59.9997 s rounds to 1,000 ms), and the seeded city's
# created_at/updated_at land there whenever its seeding crosses a second.
meta, fids, geometry, fields = read(sys.argv[1], layer="parcels", return_fids=True, datetime_as_string=True,
                                    **options)
print(json.dumps({"gdal": pyogrio.__gdal_version_string__, "fids": [int(f) for f in fids],
                  "columns": list(meta["fields"])}))
"""


def _pyogrio_read(ogc_city, page: str) -> tuple[dict, list[str]]:
    env = {**os.environ, "GDAL_HTTP_AUTH": "BEARER", "GDAL_HTTP_BEARER": ogc_city.token,
           "GDAL_HTTP_TIMEOUT": "30", "CPL_DEBUG": "ON"}
    done = subprocess.run([sys.executable, "-c", PYOGRIO_READ, f"OAPIF:{ogc_city.url}/ogc", page],
                          env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1]), _fetched_pages(done.stderr)


@pytest.mark.parametrize("page", ["default", str(PAGE)])
def test_current_gdal_reads_every_parcel(ogc_city, page):
    """GDAL 3.12 (pyogrio's): every parcel once, ``crs`` accepted on each page, cursors followed.

    At its default it asks for the API definition's ``limit`` (1,000 here, between the
    default 100 and the maximum 5,000); with ``PAGE_SIZE=7`` it walks 43 pages.
    """
    read, pages = _pyogrio_read(ogc_city, page)
    ids = _parcel_ids(ogc_city)
    assert tuple(int(p) for p in read["gdal"].split(".")[:2]) >= (3, 9)
    assert read["fids"] == ids
    assert "parcel_number" in read["columns"]
    walked = [u for u in pages if "crs=" in u]
    assert walked and all("crs=http" in u for u in walked)
    if page == "default":
        assert all("limit=1000" in u for u in walked)
    else:
        assert len(walked) >= -(-len(ids) // PAGE)
        assert sum("cursor=" in u for u in walked) >= len(ids) // PAGE - 1
