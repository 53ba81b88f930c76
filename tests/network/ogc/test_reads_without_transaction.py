"""The OGC API's and the tiles' GETs run in autocommit on PostgreSQL; everything else keeps its transaction.

Against the live server (its sessions are bound to the engine, as in production; the
other tests' sessions sit inside a test transaction, where the switch stands aside).
"""

from __future__ import annotations

from datetime import timedelta

import pytest
import requests
from sqlalchemy import event, select, update

from server.core.accounts.models import ApiToken
from server.core.extensions import db
from server.core.models import utcnow


@pytest.fixture
def statements(ogc_city):
    """Each statement the live server runs: (its SQL's first word, whether it ran in autocommit)."""
    seen: list[tuple[str, bool]] = []

    def record(conn, _cursor, statement, _params, _context, _many):
        dbapi = conn.connection.dbapi_connection
        autocommit = bool(getattr(dbapi, "autocommit", False)) if conn.dialect.name != "sqlite" else False
        seen.append((statement.split(None, 1)[0].upper(), autocommit))

    with ogc_city.app.app_context():
        engine = db.engine
    event.listen(engine, "before_cursor_execute", record)
    try:
        yield seen
    finally:
        event.remove(engine, "before_cursor_execute", record)


def _get(ogc_city, path: str) -> requests.Response:
    r = requests.get(ogc_city.url + path, headers={"Authorization": f"Bearer {ogc_city.token}"}, timeout=60)
    assert r.status_code == 200, r.text[:300]
    return r


@pytest.mark.parametrize("path", ["/ogc/collections", "/ogc/collections/parcels/items?limit=5",
                                  "/tiles/parcels/14/4011/5879.mvt"])
def test_gis_reads_run_without_a_transaction_on_postgis(ogc_city, statements, path):
    _get(ogc_city, path)  # a token's first use in an hour records it and commits: the rest is a transaction
    statements.clear()
    _get(ogc_city, path)
    assert statements, "the request ran no SQL"
    expected = ogc_city.kind != "spatialite"  # SQLite keeps the read transaction: its one snapshot
    assert {autocommit for _, autocommit in statements} == {expected}


def test_other_requests_keep_their_transaction(ogc_city, statements):
    """Pooled connections serve OGC pages, then API pages: each comes back in a transaction.

    Alternating more times than the pool holds connections, every one of them serves an
    API page after an OGC page.
    """
    for _ in range(8):
        _get(ogc_city, "/ogc/collections/parcels/items?limit=5")
        statements.clear()
        _get(ogc_city, "/api/v1/parcels?limit=5")
        assert statements and not any(autocommit for _, autocommit in statements)


def test_a_token_first_used_in_an_hour_on_an_ogc_page_records_it(ogc_city):
    """The token's "last used", written on the way, is committed (autocommit or not)."""
    with ogc_city.app.app_context():
        token = db.session.scalars(select(ApiToken.id).where(ApiToken.name == "gis client")).one()
        db.session.execute(update(ApiToken).where(ApiToken.id == token)
                           .values(last_used_at=utcnow() - timedelta(hours=2)))
        db.session.commit()
    before = utcnow()
    _get(ogc_city, "/ogc/collections/parcels/items?limit=5")
    with ogc_city.app.app_context():
        last = db.session.get(ApiToken, token).last_used_at
    assert last.replace(tzinfo=None) >= before.replace(tzinfo=None) - timedelta(seconds=1)


def _login(ogc_city, kind: str) -> requests.Session:
    """A client logged in the way ``kind`` names: a device's token, a browser's session
    cookie, or QGIS's HTTP Basic (its checked password remembered after the first page)."""
    from tests.support.databases import PASSWORD

    client = requests.Session()
    if kind == "token":
        client.headers["Authorization"] = f"Bearer {ogc_city.token}"
    elif kind == "basic":
        client.auth = ("gis-client", PASSWORD)
    else:
        r = client.post(ogc_city.url + "/login", data={"username": "gis-client", "password": PASSWORD},
                        allow_redirects=False, timeout=60)
        assert r.status_code == 302, r.text[:300]
    return client


@pytest.mark.parametrize("login", ["token", "session", "basic"])
def test_a_kept_tile_costs_one_statement(ogc_city, statements, tmp_path, monkeypatch, login):
    """A tile served from the cache needs the caller and the layer's write version: both come
    from one statement, the login's own lookup carrying the version (issue 35), whether the
    caller came with a token, a session cookie or a remembered Basic password."""
    from server.network.tiles import cache

    monkeypatch.setitem(ogc_city.app.extensions, cache.EXTENSION, cache.FolderStore(tmp_path / "tiles", 2**20))
    client = _login(ogc_city, login)
    url = ogc_city.url + "/tiles/parcels/14/4011/5879.mvt"
    assert [client.get(url, timeout=60).headers["X-Tile-Cache"] for _ in range(2)] == ["miss", "hit"]
    statements.clear()
    r = client.get(url, timeout=60)
    assert r.status_code == 200 and r.headers["X-Tile-Cache"] == "hit"
    assert [word for word, _ in statements if word not in ("BEGIN", "COMMIT", "ROLLBACK")] == ["SELECT"]
