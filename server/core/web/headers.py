"""Security headers on every response: the browser's second line behind escaping.

Text from the database is never markup (``textContent`` in the scripts, autoescaped
templates, escaped ReportLab paragraphs). The Content-Security-Policy backs that up: no
script runs unless it is a file served by this site, so a stored ``<img onerror=...>``
that slipped past an escape still runs nothing, and a script that did run could send
the field app's token nowhere but this site and a configured basemap's tile server.

Styles keep ``'unsafe-inline'``: Leaflet and Swagger UI position and colour elements with
inline styles, and a style cannot run code. Images may come from ``data:`` and ``blob:``
URLs (Leaflet's icons, the field app's photos before upload) and from the basemap's
origin when the city configures one (``LATERAL_BASEMAP_URL``), which the field app's
service worker may also fetch from (it keeps the tiles seen for use offline); a script
could already reach that origin through an image, so this opens nothing new.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from flask import Flask


def content_security_policy(basemap_url: str | None = None) -> str:
    """The policy text; the basemap's origin, if any, may serve images and be fetched from."""
    tiles = []
    if basemap_url:
        # Leaflet's {s} subdomains (a., b., c.) all belong to the one tile service.
        parts = urlsplit(basemap_url.replace("{s}", "*"))
        if parts.scheme in ("http", "https") and parts.netloc:
            tiles.append(f"{parts.scheme}://{parts.netloc}")
    directives = {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'", "'unsafe-inline'"],
        "img-src": ["'self'", "data:", "blob:", *tiles],
        "font-src": ["'self'", "data:"],
        # The field app's service worker fetches the basemap's tiles to keep them offline.
        "connect-src": ["'self'", *tiles],
        "worker-src": ["'self'"],
        "manifest-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    }
    return "; ".join(f"{name} {' '.join(values)}" for name, values in directives.items())


def init_app(app: Flask) -> None:
    """Set the headers on every response the app sends (pages, JSON, files, errors)."""
    headers = {
        "Content-Security-Policy": content_security_policy(app.config.get("LATERAL_BASEMAP_URL")),
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "strict-origin-when-cross-origin",
        "X-Frame-Options": "DENY",
    }

    @app.after_request
    def _security_headers(response):
        for name, value in headers.items():
            response.headers.setdefault(name, value)
        return response
