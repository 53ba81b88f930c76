"""The tablet field app at ``/field/``: static files from ``offline_client/web/``.

The app is plain ES modules with vendored libraries, so there is nothing to build:
this blueprint only serves the files with the right types and caching. The service
worker is served with ``no-cache`` and a build stamp (a digest of every file), so a
tablet picks up a new version of the app on its next visit with signal and keeps
working from its cache without one. The app talks to ``/api/v1`` with the bearer token
it keeps in IndexedDB, never with cookies.
"""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from pathlib import Path

from flask import Blueprint, Response, current_app, jsonify, redirect, send_from_directory, url_for

from server.core import settings
from server.core.access import PUBLIC, access, pages
from server.core.errors import LateralError

WEB_DIR = Path(__file__).resolve().parent.parent.parent / "offline_client" / "web"
SCOPE = "/field/"
# Werkzeug adds "; charset=utf-8" to every text/ type itself; naming it here doubled it.
MIME_TYPES = {
    ".html": "text/html",
    ".js": "text/javascript",
    ".css": "text/css",
    ".webmanifest": "application/manifest+json",
    ".json": "application/json",
    ".png": "image/png",
    ".svg": "image/svg+xml",
}
# Files the service worker must not precache (itself; notes for developers).
_NOT_SHELL = {"sw.js", "vendor/README.md", "vendor/tus-js-client.LICENSE"}
# Leaflet is the map engineer's vendored copy; the app shell needs it offline too.
LEAFLET_FILES = ("leaflet.js", "leaflet.css")

# The shell is static files, open to anyone: its data comes from the API with a token.
bp = Blueprint("field", __name__, url_prefix="/field")
pages(bp)


@lru_cache(maxsize=4)
def _shell(web_dir: Path, stamp: float) -> tuple[list[str], str]:
    """(shell file URLs, build digest) for the files under ``web_dir``."""
    digest = hashlib.sha256()
    urls = []
    for path in sorted(p for p in web_dir.rglob("*") if p.is_file()):
        rel = path.relative_to(web_dir).as_posix()
        digest.update(rel.encode() + b"\0" + path.read_bytes())
        if rel not in _NOT_SHELL and path.suffix in MIME_TYPES:
            urls.append(SCOPE + rel)
    return urls, digest.hexdigest()[:16]


def shell_files() -> tuple[list[str], str]:
    """The app shell's URLs and a digest that changes whenever any file does."""
    stamp = max(p.stat().st_mtime for p in WEB_DIR.rglob("*") if p.is_file())
    urls, build = _shell(WEB_DIR, stamp)
    leaflet = [f"/static/web/vendor/leaflet/{name}" for name in LEAFLET_FILES]
    leaflet.append("/static/web/vendor/pmtiles/pmtiles.js")  # the city's basemap file, read offline
    return [SCOPE, SCOPE + "config.json", *urls, *leaflet], build


def _file(rel: str) -> Response:
    suffix = Path(rel).suffix
    if suffix not in MIME_TYPES:
        raise LateralError("not_found", f"no field app file {rel!r}")
    response = send_from_directory(WEB_DIR, rel, mimetype=MIME_TYPES[suffix], max_age=0)
    response.headers["Cache-Control"] = "no-cache"  # revalidate; the service worker serves offline
    return response


@bp.route("", strict_slashes=False)
@access(PUBLIC)
def root_redirect():
    return redirect(SCOPE)


@bp.route("/")
@access(PUBLIC)
def index():
    return _file("index.html")


@bp.route("/sw.js")
@access(PUBLIC)
def service_worker():
    urls, build = shell_files()
    text = (WEB_DIR / "sw.js").read_text(encoding="utf-8")
    text = text.replace('"__BUILD__"', json.dumps(build)).replace('["__SHELL__"]', json.dumps(urls))
    response = Response(text, mimetype=MIME_TYPES[".js"])
    response.headers["Service-Worker-Allowed"] = SCOPE
    response.headers["Cache-Control"] = "no-cache, no-store, must-revalidate"
    return response


@bp.route("/config.json")
@access(PUBLIC)
def config():
    """Runtime settings the app reads at start (and keeps for offline starts)."""
    cfg = current_app.config
    response = jsonify({
        "api_base": "/api/v1",
        "basemap_url": cfg.get("LATERAL_BASEMAP_URL") or None,
        "basemap_attribution": cfg.get("LATERAL_BASEMAP_ATTRIBUTION") or "",
        # The city's own basemap file: the app keeps it whole in IndexedDB, for maps offline.
        "basemap_pmtiles": url_for("tiles.basemap") if settings.current().basemap_pmtiles else None,
        "tus_chunk_bytes": int(cfg.get("FIELD_TUS_CHUNK_BYTES", 1024 * 1024)),
        "build": shell_files()[1],
    })
    response.headers["Cache-Control"] = "no-cache"
    return response


@bp.route("/<path:rel>")
@access(PUBLIC)
def static_file(rel: str):
    if rel == "sw.js":
        return service_worker()
    return _file(rel)


def init_app(app) -> None:
    app.register_blueprint(bp)
