"""GIS reads run without a database transaction on PostgreSQL.

GDAL and QGIS copy a layer one page at a time; Debian 12's GDAL asks for 10 features a
page, 16,000 requests for the demo city. Each request's ``BEGIN`` and ``ROLLBACK`` were
a quarter of its time (bench/README.md, "Session 10"). The OGC API and the map tiles
only read, so their GET and HEAD requests run in autocommit
(:func:`server.core.dialects.reads_without_transaction`, which says why nothing a reader sees
changes). Every other request keeps its one transaction.
"""

from __future__ import annotations

from flask import Flask, request

from server.core import dialects
from server.core.extensions import db

READ_ONLY_BLUEPRINTS = frozenset({"ogc", "tiles"})


def init_app(app: Flask) -> None:
    """Register before every other before_request (the login check's query included)."""
    app.before_request_funcs.setdefault(None, []).insert(0, _reads_only)


def _reads_only() -> None:
    if request.method in ("GET", "HEAD") and request.blueprint in READ_ONLY_BLUEPRINTS:
        dialects.reads_without_transaction(db.session)
