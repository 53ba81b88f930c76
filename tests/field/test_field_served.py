"""How the server serves the field app: types, caching, the service worker, config."""

from __future__ import annotations

import json

import pytest

from server.field.pages import WEB_DIR


def test_index_is_html_and_revalidated(client):
    response = client.get("/field/")
    assert response.status_code == 200
    assert response.mimetype == "text/html"
    assert response.headers["Cache-Control"] == "no-cache"
    assert b'rel="manifest"' in response.data


def test_field_without_slash_redirects(client):
    response = client.get("/field")
    assert response.status_code in (301, 302, 308)
    assert response.headers["Location"].endswith("/field/")


@pytest.mark.parametrize("path, mimetype", [
    ("js/main.js", "text/javascript"),
    ("app.css", "text/css"),
    ("manifest.webmanifest", "application/manifest+json"),
    ("icons/icon-192.png", "image/png"),
    ("vendor/tus.min.js", "text/javascript"),
])
def test_files_have_their_types(client, path, mimetype):
    response = client.get(f"/field/{path}")
    assert response.status_code == 200
    assert response.mimetype == mimetype


def test_only_app_files_are_served(client):
    assert client.get("/field/vendor/README.md").status_code == 404
    assert client.get("/field/../server/core/settings.py").status_code == 404


def test_service_worker_is_scoped_uncached_and_stamped(client):
    response = client.get("/field/sw.js")
    assert response.headers["Service-Worker-Allowed"] == "/field/"
    assert "no-cache" in response.headers["Cache-Control"]
    text = response.get_data(as_text=True)
    assert "__BUILD__" not in text and "__SHELL__" not in text
    shell = json.loads(text.split("const SHELL = ", 1)[1].split(";\n", 1)[0])
    assert {"/field/", "/field/js/main.js", "/field/vendor/tus.min.js",
            "/static/web/vendor/leaflet/leaflet.js"} <= set(shell)
    assert "/field/sw.js" not in shell
    for url in shell:  # the worker's install fails if any of them is missing
        assert client.get(url).status_code == 200, url


def test_config_has_no_basemap_by_default(client):
    body = client.get("/field/config.json").get_json()
    assert body["basemap_url"] is None
    assert body["api_base"] == "/api/v1"
    assert body["tus_chunk_bytes"] > 0


def test_config_carries_the_basemap_url(app, client):
    app.config["LATERAL_BASEMAP_URL"] = "https://tiles.example/{z}/{x}/{y}.png"
    try:
        assert client.get("/field/config.json").get_json()["basemap_url"] == "https://tiles.example/{z}/{x}/{y}.png"
    finally:
        app.config["LATERAL_BASEMAP_URL"] = None


def test_manifest_names_both_icon_sizes():
    manifest = json.loads((WEB_DIR / "manifest.webmanifest").read_text())
    sizes = {icon["sizes"] for icon in manifest["icons"]}
    assert {"192x192", "512x512"} <= sizes
    for icon in manifest["icons"]:
        assert (WEB_DIR / icon["src"].removeprefix("/field/")).exists()
    assert manifest["start_url"] == manifest["scope"] == "/field/"
