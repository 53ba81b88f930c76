"""The city's own basemap file, served with HTTP range requests (issue 34)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from server.core import settings


@pytest.fixture
def basemap_file(app, tmp_path, monkeypatch):
    """A stand-in for a PMTiles file: the route serves bytes, it does not read tiles."""
    path = tmp_path / "county.pmtiles"
    path.write_bytes(b"PMTiles" + bytes(range(256)) * 40)
    monkeypatch.setitem(app.extensions, settings.EXTENSION, replace(settings.of(app), basemap_pmtiles=path))
    return path


def test_a_range_request_gets_those_bytes_only(client, auth, basemap_file):
    r = client.get("/tiles/basemap.pmtiles", headers={**auth["inspector"], "Range": "bytes=0-126"})
    assert r.status_code == 206
    assert r.data == basemap_file.read_bytes()[:127]
    assert r.headers["Content-Range"] == f"bytes 0-126/{basemap_file.stat().st_size}"


def test_the_whole_file_for_the_tablet_and_304_when_it_is_kept(client, auth, basemap_file):
    whole = client.get("/tiles/basemap.pmtiles", headers=auth["inspector"])
    assert whole.status_code == 200 and whole.data == basemap_file.read_bytes()
    again = client.get("/tiles/basemap.pmtiles", headers={**auth["inspector"], "If-None-Match": whole.headers["ETag"]})
    assert again.status_code == 304


def test_the_maps_are_told_where_it_is(client, auth, basemap_file):
    cfg = client.get("/field/config.json").get_json()
    assert cfg["basemap_pmtiles"] == "/tiles/basemap.pmtiles"


def test_no_file_configured_is_404_and_the_maps_draw_the_city_s_own_data(client, auth):
    r = client.get("/tiles/basemap.pmtiles", headers=auth["inspector"])
    assert r.status_code == 404 and r.get_json()["error"]["code"] == "not_found"
    assert client.get("/field/config.json").get_json()["basemap_pmtiles"] is None


def test_it_needs_a_login(client, basemap_file):
    assert client.get("/tiles/basemap.pmtiles").status_code == 401
