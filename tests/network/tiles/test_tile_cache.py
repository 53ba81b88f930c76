"""Tiles kept by their layer's write version (server/network/tiles/cache.py, issue #35).

A tile asked for twice is made once; any write of its layer, through Lateral or as SQL
typed outside it, means the next request makes it afresh, on both databases.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import time

import mapbox_vector_tile
import pytest
from sqlalchemy import text

from server.core.extensions import db
from server.network.tiles import cache
from server.network.tiles.grid import tile_for
from tests.support.features import X, Y, add_manholes, delete_manhole

Z = 16
TILE = "/tiles/manholes/{z}/{x}/{y}.mvt"


@pytest.fixture
def tile_store(app, tmp_path, monkeypatch):
    kept = cache.FolderStore(tmp_path / "tiles", 1024 * 1024)
    monkeypatch.setitem(app.extensions, cache.EXTENSION, kept)
    return kept


def _get(client, auth):
    x, y = tile_for(X, Y, Z)
    r = client.get(TILE.format(z=Z, x=x, y=y), headers=auth["inspector"])
    assert r.status_code == 200
    decoded = mapbox_vector_tile.decode(r.data)
    ids = {f["id"] for f in decoded.get("manholes", {"features": []})["features"]}
    return ids, r.headers["X-Tile-Cache"], r.data


def test_a_tile_asked_for_twice_is_made_once(client, auth, tile_store):
    ids = add_manholes(client, auth, 2)
    first, how, data = _get(client, auth)
    again, how_again, data_again = _get(client, auth)
    assert set(ids) <= first == again
    assert (how, how_again) == ("miss", "hit") and data == data_again


def test_a_lateral_write_makes_the_tile_again(client, auth, tile_store):
    ids = add_manholes(client, auth, 2)
    _get(client, auth)
    delete_manhole(client, auth, ids[0])
    after, how, _ = _get(client, auth)
    assert how == "miss" and ids[0] not in after and ids[1] in after


@pytest.mark.parametrize("sql", [
    "INSERT INTO manholes (kind, geom, version, created_at, updated_at) VALUES "
    "('manhole', ST_GeomFromText('POINT({x} {y})', 4326), 1, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)",
    "UPDATE manholes SET geom = ST_GeomFromText('POINT({far} {y})', 4326) WHERE id = {fid}",  # out of the tile
    "DELETE FROM manholes WHERE id = {fid}",
])
def test_sql_typed_outside_lateral_makes_the_tile_again(client, auth, tile_store, sql):
    ids = add_manholes(client, auth, 2)
    before, _, _ = _get(client, auth)
    newest = db.session.scalar(text("SELECT max(id) FROM manholes"))
    db.session.execute(text(sql.format(x=X + 0.0001, y=Y, far=X + 1, fid=ids[0])))
    db.session.commit()
    after, how, _ = _get(client, auth)
    assert how == "miss"
    if sql.startswith("INSERT"):
        added = db.session.scalar(text("SELECT max(id) FROM manholes"))
        assert added > newest and after == before | {added}
    else:
        assert after == before - {ids[0]}


def test_the_folder_stays_within_its_bound(tmp_path):
    kept = cache.FolderStore(tmp_path / "tiles", 64 * 1024)
    for i in range(100):
        kept.put(f"parcels-1-16-{i}-0", bytes(4096))
    assert kept.size() <= 64 * 1024
    assert kept.get("parcels-1-16-99-0") == bytes(4096)  # the newest stay
    assert kept.get("parcels-1-16-0-0") is None


def test_no_cache_when_turned_off(client, auth, app, monkeypatch):
    monkeypatch.setitem(app.extensions, cache.EXTENSION, None)
    add_manholes(client, auth, 1)
    assert _get(client, auth)[1] == _get(client, auth)[1] == "miss"


@pytest.fixture
def tile_redis_url(tmp_path):
    server = shutil.which("redis-server")
    if server is None:
        pytest.skip("no redis-server on this machine")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([server, "--port", str(port), "--save", "", "--appendonly", "no",
                             "--dir", str(tmp_path)], stdout=subprocess.DEVNULL)
    try:
        for _ in range(50):
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        proc.terminate()
        proc.wait(5)


def test_redis_keeps_tiles_for_every_host(client, auth, app, monkeypatch, tile_redis_url, db_kind):
    monkeypatch.setitem(app.extensions, cache.EXTENSION, cache.RedisStore(tile_redis_url))
    ids = add_manholes(client, auth, 1)
    assert _get(client, auth)[1:2] == ("miss",)
    assert _get(client, auth)[1] == "hit"
    db.session.execute(text("DELETE FROM manholes WHERE id = :id"), {"id": ids[0]})
    db.session.commit()
    after, how, _ = _get(client, auth)
    assert how == "miss" and ids[0] not in after
    cache.clear()
    assert cache.store().get("anything") is None


def test_a_session_login_sees_an_outside_write(client, auth, tile_store):
    """Under a browser's session the user's own lookup carries the layer's version
    (server/core/accounts/login_reads.py), as a token's does: a write typed outside Lateral
    still makes the tile again."""
    from tests.support.databases import PASSWORD

    ids = add_manholes(client, auth, 2)
    r = client.post("/login", data={"username": "inspector1", "password": PASSWORD})
    assert r.status_code == 302, r.get_data(as_text=True)
    x, y = tile_for(X, Y, Z)
    path = TILE.format(z=Z, x=x, y=y)
    assert [client.get(path).headers["X-Tile-Cache"] for _ in range(2)] == ["miss", "hit"]
    db.session.execute(text("DELETE FROM manholes WHERE id = :id"), {"id": ids[0]})
    db.session.commit()
    r = client.get(path)
    drawn = {f["id"] for f in mapbox_vector_tile.decode(r.data).get("manholes", {"features": []})["features"]}
    assert r.headers["X-Tile-Cache"] == "miss" and ids[0] not in drawn and ids[1] in drawn
