"""Read-ahead for GIS clients walking a layer: the next page is ready before it is asked for.

GDAL and QGIS copy a layer by following ``next`` links one page at a time, and between
two requests the client spends longer turning the page it got into its own format than
Lateral spends writing the next one. So once a page reached by a cursor has been sent,
the worker that sent it writes the page its ``next`` link names, after the response is on
the wire (``Response.call_on_close``: the client is not kept waiting), gzips it and
leaves it in a folder every worker of the server reads. When the client asks, the page
is sent from there instead of written again.

A page from the folder is served only if nothing in it has changed: before the page
was written, each of its rows (and the one row after them, which decides whether a
``next`` link follows) was named as last written (``server.core.dialects.row_written``:
``id:xmin`` on PostgreSQL, whatever wrote the row; id, version and times on SQLite) in
one text; the same text is read again when the page is asked for, and any difference (a
feature added, deleted, edited or moved out of the box) means the page is written
afresh. The text is read first, before the page itself, so a write that lands in
between can only make the page look stale, never fresh.

The folder is looked at only once the request has passed the gate's login check (the
items route is ``SIGNED_IN``), and what it holds is what any signed-in user would be
sent: a page of ``/ogc`` items does not depend on who asks. Should it ever, the user's
scope must join ``PageKey``.

Only walks are read ahead (a JSON page asked for by its cursor, of at least
``LATERAL_OGC_READAHEAD_MIN_LIMIT`` features), never a first page, an offset page or
HTML, so a map that shows one page costs no speculative work. An entry lives
``TTL_SECONDS`` at most, is served once, and the folder holds ``MAX_ENTRIES``.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path

import orjson
from flask import Flask, Response, current_app, request

from server.core.dialects import reads_without_transaction
from server.core.extensions import db
from server.core.web.paging import encode as encode_cursor
from server.network import features as service
from server.network.layers import LAYERS
from server.network.ogc import documents as docs

TTL_SECONDS = 60.0
MAX_ENTRIES = 256
SUFFIX = ".page"


@dataclass(frozen=True)
class PageKey:
    """What decides a walk's page, as its response states it: the API's URL (its links
    start with it), the layer, the page size, the cursor, and the other query
    parameters as the client sent them (the links carry them on)."""

    base: str
    layer: str
    limit: int
    after: int
    params: tuple[tuple[str, str], ...]

    @classmethod
    def of(cls, base: str, layer: str, limit: int, after: int, params: dict) -> PageKey:
        return cls(base, layer, limit, after, tuple(sorted(params.items())))

    def following(self, after: int) -> PageKey:
        return replace(self, after=after)

    @property
    def name(self) -> str:
        return hashlib.sha256(repr(self).encode()).hexdigest() + SUFFIX


@dataclass
class Ahead:
    """A page taken from the store: its body, gzipped, and where the walk goes next."""

    body: bytes
    next_after: int | None

    def response(self) -> Response:
        """As the client accepts it: gzip (GDAL and QGIS ask for it), else as it is."""
        if request.accept_encodings["gzip"] > 0:
            response = Response(self.body, mimetype=docs.GEOJSON)
            response.headers["Content-Encoding"] = "gzip"  # Flask-Compress leaves it so
            return response
        return Response(gzip.decompress(self.body), mimetype=docs.GEOJSON)


def worth_it(limit: int) -> bool:
    """Whether read-ahead is on and pages of ``limit`` features are worth reading ahead.

    A client spends on each page about what its features cost it (GDAL: 40 µs a parcel),
    so a small page comes back before the next one could be written ahead and the client
    would wait for it: GDAL 3.6's pages of 10 were slower with read-ahead, its pages of
    1,000 faster (bench/README.md, "Session 9: read-ahead of the next page").
    """
    config = current_app.config
    on = bool(config.get("LATERAL_OGC_READAHEAD", True))
    return on and limit >= config.get("LATERAL_OGC_READAHEAD_MIN_LIMIT", 100)


def _store(app: Flask) -> Path:
    configured = app.config.get("LATERAL_OGC_READAHEAD_DIR")
    return Path(configured) if configured else Path(app.instance_path) / "cache" / "ogc-pages"


def _fingerprint(key: PageKey, bbox, filters: dict) -> str | None:
    return service.page_fingerprint(LAYERS[key.layer], bbox=bbox, filters=filters, limit=key.limit,
                                    after=key.after)


def take(key: PageKey, bbox, filters: dict) -> Ahead | None:
    """The page ``key`` names if it was read ahead and is still what the database holds.

    ``bbox`` and ``filters`` are the request's parameters as parsed (``key`` holds them
    as sent).
    """
    path = _store(current_app) / key.name
    try:
        data = path.read_bytes()
        path.unlink(missing_ok=True)  # served once: a second walk writes its own
    except OSError:
        return None
    head, _, body = data.partition(b"\n")
    try:
        meta = orjson.loads(head)
    except orjson.JSONDecodeError:
        return None
    if (not isinstance(meta, dict) or meta.get("key") != repr(key) or meta.get("bytes") != len(body)
            or not time.time() - TTL_SECONDS <= meta.get("made", 0) <= time.time()):
        return None
    if _fingerprint(key, bbox, filters) != meta["fingerprint"]:
        return None
    return Ahead(body, meta["next_after"])


def follow(response: Response, key: PageKey, bbox, filters: dict) -> None:
    """Once ``response`` has been sent, write the page ``key`` names into the store."""
    app = current_app._get_current_object()  # type: ignore[attr-defined]
    filters = dict(filters)
    response.call_on_close(lambda: _read_ahead(app, key, bbox, filters))


def _read_ahead(app: Flask, key: PageKey, bbox, filters: dict) -> None:
    try:
        with app.app_context():
            reads_without_transaction(db.session)  # as the request that asked (server.core.web.reads)
            prepare(key, bbox, filters)
    except Exception:  # noqa: BLE001 - the client has its page; a failed read-ahead only costs time
        app.logger.warning("OGC read-ahead of %r failed", key, exc_info=True)


def prepare(key: PageKey, bbox, filters: dict) -> None:
    """Write the page ``key`` names into the store (inside an application context)."""
    store = _store(current_app)
    store.mkdir(mode=0o700, parents=True, exist_ok=True)
    if (store / key.name).exists() or not _room(store):
        return
    fingerprint = _fingerprint(key, bbox, filters)  # first: see the module's docstring
    page = service.list_features(LAYERS[key.layer], bbox=bbox, filters=filters, limit=key.limit,
                                 after=key.after, as_array=True)
    text = docs.walk_page_text(docs.url_below(key.base), key.layer, dict(key.params), key.limit,
                               encode_cursor(key.after), page.features,
                               None if page.next_after is None else encode_cursor(page.next_after))
    body = gzip.compress(text.encode(), compresslevel=current_app.config.get("COMPRESS_LEVEL", 6))
    head = orjson.dumps({"key": repr(key), "made": time.time(), "fingerprint": fingerprint,
                         "next_after": page.next_after, "bytes": len(body)})
    fd, tmp = tempfile.mkstemp(dir=store, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(head + b"\n" + body)
        os.replace(tmp, store / key.name)  # whole or absent: another worker may read it now
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _room(store: Path) -> bool:
    """Drop entries past their time; whether another one fits."""
    now, kept = time.time(), 0
    for entry in os.scandir(store):
        try:
            if now - entry.stat().st_mtime > TTL_SECONDS:
                os.unlink(entry.path)
            else:
                kept += 1
        except FileNotFoundError:  # another worker took or dropped it
            pass
    return kept < MAX_ENTRIES
