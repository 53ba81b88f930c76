"""Every response carries the security headers; no page needs an inline script (issue 15, item 3)."""

from __future__ import annotations

import re

import pytest

from server.core.web.headers import content_security_policy
from tests.support.env import REPO_ROOT

PATHS = ["/", "/login", "/api/v1/openapi.json", "/api/v1/parcels", "/ogc", "/ogc/collections?f=html",
         "/field/", "/field/sw.js", "/static/web/lateral.css", "/no/such/page", "/desk/", "/map"]


def _directives(policy: str) -> dict[str, list[str]]:
    return {d.split()[0]: d.split()[1:] for d in policy.split("; ")}


@pytest.mark.parametrize("path", PATHS)
def test_every_response_carries_the_security_headers(client, path):
    r = client.get(path)

    csp = _directives(r.headers["Content-Security-Policy"])
    assert csp["script-src"] == ["'self'"]
    assert csp["frame-ancestors"] == ["'none'"] and csp["object-src"] == ["'none'"]
    assert csp["connect-src"] == ["'self'"]
    assert r.headers["X-Content-Type-Options"] == "nosniff"
    assert r.headers["Referrer-Policy"] == "strict-origin-when-cross-origin"
    assert r.headers["X-Frame-Options"] == "DENY"


TEXT_PATHS = [*PATHS, "/field/js/main.js", "/field/app.css", "/static/web/vendor/leaflet/leaflet.js"]


@pytest.mark.parametrize("path", TEXT_PATHS)
def test_a_text_response_names_its_charset_once(client, path):
    """Issue 31: the field app's files said ``text/html; charset=utf-8; charset=utf-8``."""
    content_type = client.get(path).headers["Content-Type"]

    assert content_type.count("charset") <= 1, content_type
    if content_type.startswith("text/"):
        assert content_type.endswith("; charset=utf-8"), content_type


def test_a_logged_in_page_and_an_api_error_carry_them_too(client, auth):
    client.post("/login", data={"username": "superintendent1", "password": "correct horse battery"})
    page = client.get("/desk/")
    error = client.get("/api/v1/parcels/999999999", headers=auth["clerk"])

    assert page.status_code == 200 and error.status_code == 404
    assert all("script-src 'self'" in r.headers["Content-Security-Policy"] for r in (page, error))


@pytest.mark.parametrize(("url", "allowed"), [
    (None, None),
    ("https://{s}.tile.openstreetmap.org/{z}/{x}/{y}.png", "https://*.tile.openstreetmap.org"),
    ("https://tiles.example.gov/wmts/{z}/{x}/{y}.png", "https://tiles.example.gov"),
    ("javascript:alert(1)", None),
])
def test_the_basemap_origin_may_serve_tiles_and_nothing_else(url, allowed):
    csp = _directives(content_security_policy(url))

    assert csp["img-src"] == ["'self'", "data:", "blob:", *([allowed] if allowed else [])]
    assert csp["connect-src"] == ["'self'", *([allowed] if allowed else [])]  # the service worker keeps tiles
    assert csp["script-src"] == ["'self'"]


PAGES = [*sorted((REPO_ROOT / "server").rglob("templates/**/*.html")), REPO_ROOT / "offline_client/web/index.html"]
INLINE_SCRIPT = re.compile(r"<script(?![^>]*\bsrc=)(?![^>]*type=\"application/json\")[^>]*>", re.I)
HANDLER = re.compile(r"<[^>]*\son[a-z]+\s*=", re.I)


@pytest.mark.parametrize("path", PAGES, ids=lambda p: str(p.relative_to(REPO_ROOT)))
def test_no_page_has_an_inline_script_or_handler(path):
    """The CSP would refuse them; a page that had one would silently lose its behaviour."""
    html = path.read_text()

    assert not INLINE_SCRIPT.search(html)
    assert not HANDLER.search(html)
