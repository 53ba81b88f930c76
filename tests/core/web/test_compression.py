"""Responses are compressed as Accept-Encoding asks: gzip, br or as they are; Vary says so."""

from __future__ import annotations

import gzip
import json

import brotli
import pytest

from server.network.tiles.grid import tile_for

PAGE = "/api/v1/parcels?limit=100"


def _get(client, auth, path, encoding: str | None, **headers):
    if encoding is not None:
        headers["Accept-Encoding"] = encoding
    return client.get(path, headers={**auth["clerk"], **headers})


def _without_time(body: bytes):
    """The JSON document without an OGC page's ``timeStamp`` (the second may tick between requests)."""
    doc = json.loads(body)
    if isinstance(doc, dict):
        doc.pop("timeStamp", None)
    return doc


def _vary(response) -> set[str]:
    return {v.strip().lower() for v in response.headers.get("Vary", "").split(",")}


@pytest.mark.parametrize("path", [PAGE, "/ogc/collections/parcels/items?limit=100", "/ogc/api",
                                  "/api/v1/openapi.json"])
@pytest.mark.parametrize("encoding, expected, decode", [
    ("gzip", "gzip", gzip.decompress),
    ("br", "br", brotli.decompress),
    ("gzip, deflate, br", "br", brotli.decompress),  # a browser's offer: brotli first
    ("br;q=0.5, gzip", "gzip", gzip.decompress),
])
def test_json_is_compressed_as_the_client_asks(client, auth, seeded_city, path, encoding, expected, decode):
    plain = _get(client, auth, path, None)
    r = _get(client, auth, path, encoding)
    assert r.status_code == plain.status_code == 200
    assert r.headers["Content-Encoding"] == expected
    assert "accept-encoding" in _vary(r)
    assert _without_time(decode(r.get_data())) == _without_time(plain.get_data())
    assert int(r.headers["Content-Length"]) == len(r.get_data()) < len(plain.get_data()) / 3


@pytest.mark.parametrize("encoding, expected", [
    ("gzip;q=0", None), ("gzip; q=0.0, br;q=0", None), ("br;q=0, gzip", "gzip"), ("gzip;q=0.001", "gzip"),
])
def test_an_encoding_given_quality_0_is_refused_not_chosen(client, auth, seeded_city, encoding, expected):
    """RFC 9110 § 12.5.3: ``q=0`` means not acceptable (Flask-Compress alone would gzip)."""
    r = _get(client, auth, PAGE, encoding)
    assert r.status_code == 200
    assert r.headers.get("Content-Encoding") == expected
    if expected is None:
        assert r.get_json()["type"] == "FeatureCollection"


@pytest.mark.parametrize("encoding", [None, "identity", "compress"])
def test_without_an_encoding_both_sides_know_the_body_is_as_it_is(client, auth, seeded_city, encoding):
    r = _get(client, auth, PAGE, encoding)
    assert "Content-Encoding" not in r.headers
    assert r.get_json()["type"] == "FeatureCollection"
    assert "accept-encoding" in _vary(r)


@pytest.mark.parametrize("path", ["/api/v1/health", "/api/v1/parcels?bbox=10,10,11,11", "/api/v1/parcels/999999",
                                  "/api/v1/parcels/1"])
def test_small_responses_are_not_compressed(client, auth, seeded_city, path):
    r = _get(client, auth, path, "gzip, br")
    assert len(r.get_data()) < 1024
    assert "Content-Encoding" not in r.headers
    assert "accept-encoding" in _vary(r)


def test_vector_tiles_are_compressed(client, auth, seeded_city):
    parcel = _get(client, auth, "/api/v1/parcels?limit=1", None).get_json()["features"][0]
    lon, lat = parcel["geometry"]["coordinates"][0][0][0]
    x, y = tile_for(lon, lat, 15)
    plain = _get(client, auth, f"/tiles/parcels/15/{x}/{y}.mvt", None)
    r = _get(client, auth, f"/tiles/parcels/15/{x}/{y}.mvt", "gzip")
    assert len(plain.get_data()) > 1024
    assert r.headers["Content-Encoding"] == "gzip"
    assert gzip.decompress(r.get_data()) == plain.get_data()


@pytest.mark.parametrize("encoding", ["gzip", "br"])
def test_an_etag_with_its_encoding_still_matches_for_if_match(client, auth, seeded_city, encoding):
    """A compressed response's ETag carries the encoding (``"1:gzip"``): the version still counts."""
    etag = _get(client, auth, "/api/v1/parcels/1", None).headers["ETag"]
    compressed = etag[:-1] + f':{encoding}"'
    patch = client.patch("/api/v1/parcels/1", json={"type": "Feature", "properties": {"owner_name": "Ann Kulig"}},
                         headers={**auth["superintendent"], "If-Match": compressed})
    assert patch.status_code == 200, patch.get_json()
    stale = client.patch("/api/v1/parcels/1", json={"type": "Feature", "properties": {"owner_name": "Ben"}},
                         headers={**auth["superintendent"], "If-Match": compressed})
    assert stale.status_code == 412


def test_downloads_stay_byte_exact(client, auth, seeded_city):
    """Exports are streamed files: sent as they are, whatever the client offers."""
    r = _get(client, auth, "/api/v1/exports/parcels.geojson", "gzip, br")
    assert r.status_code == 200
    assert "Content-Encoding" not in r.headers
    assert r.get_data().startswith(b"{")
