"""Compressed responses: gzip, or brotli where the client offers it (Flask-Compress).

GDAL and QGIS send ``Accept-Encoding: gzip``; browsers offer ``br`` too. JSON, GeoJSON,
the OpenAPI documents, HTML and vector tiles above ``COMPRESS_MIN_SIZE`` bytes are
compressed as the request's ``Accept-Encoding`` asks (``identity``, or no header: as
they are), and every response says ``Vary: Accept-Encoding`` so a cache keeps the
encodings apart. Left as they are: small bodies (an error, a 204), photos and PDFs
(already compressed), and streamed bodies (exports, photo downloads: ``send_file`` and
ranges stay byte-exact). A compressed response's strong ETag gets the encoding as a
suffix (``"7:gzip"``), as RFC 9110 asks of a different representation; the feature
API's ``If-Match`` takes either form.
"""

from __future__ import annotations

from flask import Flask, request
from flask_compress import Compress

MEDIA_TYPES = [
    "application/json",
    "application/geo+json",
    "application/vnd.oai.openapi+json",
    "application/vnd.mapbox-vector-tile",
    "text/html",
    "text/css",
    "text/javascript",
    "application/javascript",
    "application/manifest+json",
    "image/svg+xml",
]
# What Flask-Compress appends to a strong ETag when it compresses.
ENCODINGS = ("br", "gzip")


def init_app(app: Flask) -> None:
    """Register before every other ``after_request``: Flask runs them last-first, so the
    body is compressed after every other handler has set its headers."""
    app.config.setdefault("COMPRESS_MIMETYPES", MEDIA_TYPES)
    app.config.setdefault("COMPRESS_ALGORITHM", list(ENCODINGS))
    app.config.setdefault("COMPRESS_STREAMS", False)
    _Compress(app)


class _Compress(Compress):
    """Flask-Compress, but an encoding the client refuses (``gzip;q=0``) is never chosen.

    Flask-Compress 1.25 ranks a ``q=0`` encoding like any other and, when it is the only
    one offered, compresses with it; RFC 9110 § 12.5.3 makes ``q=0`` mean "not
    acceptable". The refused encodings are left out of the header while it decides.
    """

    def after_request(self, response):
        offered = request.environ.get("HTTP_ACCEPT_ENCODING")
        if not offered or "q=0" not in offered.replace(" ", ""):
            return super().after_request(response)
        request.environ["HTTP_ACCEPT_ENCODING"] = without_refused(offered)
        try:
            return super().after_request(response)
        finally:
            request.environ["HTTP_ACCEPT_ENCODING"] = offered


def without_refused(accept_encoding: str) -> str:
    """``Accept-Encoding`` without the codings it gives a quality of 0."""
    kept = []
    for part in accept_encoding.split(","):
        _, _, params = part.partition(";")
        quality = 1.0
        for param in params.split(";"):
            name, _, value = param.strip().partition("=")
            if name.strip().lower() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 1.0
        if quality > 0:
            kept.append(part.strip())
    return ", ".join(kept)


def strip_encoding(etag: str) -> str:
    """The ETag a handler set, from the one a compressed response carried (``7:gzip`` → ``7``)."""
    head, sep, tail = etag.rpartition(":")
    return head if sep and tail in ENCODINGS else etag
