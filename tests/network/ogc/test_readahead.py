"""Read-ahead of a walk's next page (server/network/ogc/readahead.py): served only while it is true.

Each test walks ``/ogc/collections/manholes/items`` with a small page. A response is
closed as a server closes it once sent, which is when the next page is written ahead;
the page is then served from the store (``Server-Timing: readahead``) only if nothing in
it changed in between, and always equals the page written on demand.
"""

from __future__ import annotations

import gzip
import os
import time
from pathlib import Path

import brotli
import orjson
import pytest
from sqlalchemy import text

from server.core.extensions import db
from server.network.ogc import readahead
from tests.support.features import add_manholes, delete_manhole, read_page

WALK = "/ogc/collections/manholes/items?limit=5"


def _get(client, auth, url: str):
    """The page as a server sends it: read, then closed (which runs the read-ahead)."""
    response = client.get(url, headers=auth["inspector"])
    assert response.status_code == 200, response.get_json()
    body = response.get_json()
    response.close()
    nxt = [link["href"] for link in body["links"] if link["rel"] == "next"]
    return body, (nxt[0].replace("http://localhost", "") if nxt else None), response


def _ahead(response) -> bool:
    return "readahead" in response.headers.get("Server-Timing", "")


def _store(app) -> Path:
    return Path(app.config["LATERAL_OGC_READAHEAD_DIR"])


@pytest.fixture
def readahead_manholes(client, auth, app):
    for leftover in _store(app).glob("*") if _store(app).exists() else ():
        leftover.unlink()
    return add_manholes(client, auth, 23)


def _walk(client, auth, url=WALK):
    """Every page of a walk: (features, served from the store?)."""
    pages = []
    while url:
        body, url, response = _get(client, auth, url)
        pages.append((body["features"], _ahead(response)))
    return pages


def test_a_walk_after_its_second_page_is_served_from_pages_written_ahead(client, auth, app, readahead_manholes):
    pages = _walk(client, auth)
    assert [ahead for _, ahead in pages] == [False, False, True, True, True]
    app.config["LATERAL_OGC_READAHEAD"] = False
    try:
        plain = _walk(client, auth)
    finally:
        app.config["LATERAL_OGC_READAHEAD"] = True
    assert [features for features, _ in pages] == [features for features, _ in plain]
    assert not any(ahead for _, ahead in plain)
    assert [f["id"] for features, _ in pages for f in features] == readahead_manholes
    assert not list(_store(app).glob("*.page")), "a page written ahead was left behind"


def _bodies(client, auth, headers=None):
    """Each page's whole body (timeStamp aside) and whether it came from the store."""
    url, out = WALK + "&kind=manhole", []
    while url:
        response = client.get(url, headers={**auth["inspector"], **(headers or {})})
        assert response.status_code == 200
        raw = response.data
        coding = response.headers.get("Content-Encoding")
        raw = gzip.decompress(raw) if coding == "gzip" else brotli.decompress(raw) if coding == "br" else raw
        assert response.headers["Content-Crs"] and response.mimetype == "application/geo+json"
        assert "Accept-Encoding" in response.headers.get("Vary", "")
        body = orjson.loads(raw)
        response.close()
        body.pop("timeStamp")
        out.append((body, _ahead(response), response.headers.get("Content-Encoding")))
        nxt = [link["href"] for link in body["links"] if link["rel"] == "next"]
        url = nxt[0].replace("http://localhost", "") if nxt else None
    return out


@pytest.mark.parametrize("encoding", [None, "gzip", "gzip;q=0, br", "br, gzip"])
def test_a_page_from_the_store_is_the_page_written_on_demand_links_and_all(client, auth, app, readahead_manholes,
                                                                           encoding):
    headers = {"Accept-Encoding": encoding} if encoding else {}
    ahead = _bodies(client, auth, headers)
    app.config["LATERAL_OGC_READAHEAD"] = False
    try:
        plain = _bodies(client, auth, headers)
    finally:
        app.config["LATERAL_OGC_READAHEAD"] = True
    assert [body for body, _, _ in ahead] == [body for body, _, _ in plain]
    assert [hit for _, hit, _ in ahead] == [False, False, True, True, True]
    for _, hit, coding in ahead:
        if hit:
            assert coding == ("gzip" if encoding in ("gzip", "br, gzip") else
                              "br" if encoding == "gzip;q=0, br" else None)


def test_only_a_page_reached_by_cursor_and_asked_for_as_json_is_read_ahead(client, auth, app, readahead_manholes):
    _, cursor_url, _ = _get(client, auth, WALK)  # a first page: a map showing one page costs nothing more
    _get(client, auth, WALK + "&offset=5")
    html = client.get(cursor_url + "&f=html", headers=auth["inspector"])
    assert html.status_code == 200 and html.mimetype == "text/html"
    html.close()
    assert not _store(app).exists() or not list(_store(app).glob("*.page"))


def _second_page(client, auth) -> str:
    _, url, _ = _get(client, auth, WALK)
    _, url, _ = _get(client, auth, url)  # its close writes the third page ahead
    return url


def _patch(client, auth, fid: int, **properties) -> None:
    etag = client.get(f"/api/v1/manholes/{fid}", headers=auth["superintendent"]).headers["ETag"]
    r = client.patch(f"/api/v1/manholes/{fid}", json={"type": "Feature", "properties": properties},
                     headers={**auth["superintendent"], "If-Match": etag})
    assert r.status_code == 200, r.get_json()


@pytest.mark.parametrize("change", ["edit", "delete", "delete-following"])
def test_a_page_changed_after_it_was_written_ahead_is_written_again(client, auth, app, readahead_manholes, change):
    url = _second_page(client, auth)
    third = readahead_manholes[10:15]
    if change == "edit":
        _patch(client, auth, third[2], facility_id="MH-EDITED")
    elif change == "delete":
        delete_manhole(client, auth, third[0])
    elif change == "delete-following":  # the row after the page decides its next link
        delete_manhole(client, auth, readahead_manholes[15])
    body, _, response = _get(client, auth, url)
    assert not _ahead(response)
    ids = [f["id"] for f in body["features"]]
    if change == "edit":
        assert ids == third
        assert body["features"][2]["properties"]["facility_id"] == "MH-EDITED"
    elif change == "delete":
        assert ids == third[1:] + [readahead_manholes[15]]
    else:
        assert ids == third


def test_an_edit_made_outside_lateral_is_not_served_stale_on_postgresql(client, auth, app, readahead_manholes):
    """On PostgreSQL a row is named by its ``xmin``, so an UPDATE typed into ``psql`` (one that
    raises neither ``version`` nor ``updated_at``) still means the page is written again.
    SQLite names a row by what Lateral's own writes change, and says so in docs/api.md."""
    url = _second_page(client, auth)
    third = readahead_manholes[10:15]
    db.session.execute(text("UPDATE manholes SET facility_id = 'MH-BY-HAND' WHERE id = :id"), {"id": third[1]})
    db.session.commit()
    body, _, response = _get(client, auth, url)
    served_stale = body["features"][1]["properties"]["facility_id"] != "MH-BY-HAND"
    if db.engine.dialect.name == "postgresql":
        assert not _ahead(response)
        assert not served_stale
    else:
        assert _ahead(response) and served_stale  # what docs/api.md says of SQLite


def test_a_feature_added_after_the_last_page_was_written_ahead_is_not_lost(client, auth, app, readahead_manholes):
    url = WALK.replace("limit=5", "limit=10")
    _, url, _ = _get(client, auth, url)
    _, url, _ = _get(client, auth, url)  # ids 11-20; the last page (21-23) is written ahead
    added = add_manholes(client, auth, 1)
    body, nxt, response = _get(client, auth, url)
    assert not _ahead(response)
    assert [f["id"] for f in body["features"]] == readahead_manholes[20:] + added
    assert nxt is None


def test_a_feature_moved_out_of_the_box_is_not_served_from_a_page_written_ahead(client, auth, app, readahead_manholes):
    from tests.support.features import X, Y

    box = f"&bbox={X - 0.001},{Y - 0.001},{X + 0.004},{Y + 0.004}"
    _, url, _ = _get(client, auth, WALK + box)
    _, url, _ = _get(client, auth, url)
    fid = readahead_manholes[11]
    etag = client.get(f"/api/v1/manholes/{fid}", headers=auth["superintendent"]).headers["ETag"]
    moved = {"type": "Feature", "geometry": {"type": "Point", "coordinates": [X + 1, Y]}}
    r = client.patch(f"/api/v1/manholes/{fid}", json=moved, headers={**auth["superintendent"], "If-Match": etag})
    assert r.status_code == 200, r.get_json()
    body, _, response = _get(client, auth, url)
    assert not _ahead(response)
    assert fid not in [f["id"] for f in body["features"]]


def test_walks_with_other_filters_or_boxes_do_not_share_pages(client, auth, app, readahead_manholes):
    _, url, _ = _get(client, auth, WALK + "&kind=manhole")
    _get(client, auth, url)
    _, plain, _ = _get(client, auth, WALK)
    _, plain, _ = _get(client, auth, plain)  # the same ids, without the filter: its own entry
    assert len(list(_store(app).glob("*.page"))) == 2


@pytest.mark.parametrize("spoil", ["garbage", "other-key", "expired", "truncated"])
def test_a_spoilt_or_stale_entry_is_ignored(client, auth, app, readahead_manholes, spoil):
    url = _second_page(client, auth)
    [entry] = _store(app).glob("*.page")
    data = entry.read_bytes()
    if spoil == "garbage":
        entry.write_bytes(b"\x00not json\n[]")
    elif spoil == "other-key":
        entry.write_bytes(data.replace(b'limit=5', b'limit=6', 1))
    elif spoil == "expired":
        old = time.time() - readahead.TTL_SECONDS - 1
        head, _, rest = data.partition(b"\n")
        meta = orjson.loads(head)
        meta["made"] = old
        entry.write_bytes(orjson.dumps(meta) + b"\n" + rest)
    else:
        entry.write_bytes(data[: len(data) - 40])
    body, _, response = _get(client, auth, url)
    assert not _ahead(response)
    assert [f["id"] for f in body["features"]] == readahead_manholes[10:15]


def test_old_entries_are_swept_and_the_store_is_bounded(client, auth, app, readahead_manholes, monkeypatch):
    store = _store(app)
    store.mkdir(parents=True, exist_ok=True)
    stale = store / ("0" * 64 + readahead.SUFFIX)
    stale.write_bytes(b"{}\n[]")
    old = time.time() - readahead.TTL_SECONDS - 5
    os.utime(stale, (old, old))
    monkeypatch.setattr(readahead, "MAX_ENTRIES", 1)
    _second_page(client, auth)
    assert not stale.exists()
    assert len(list(store.glob("*.page"))) == 1
    _, url, _ = _get(client, auth, WALK + "&kind=manhole")
    _get(client, auth, url)  # a second walk finds the store full: nothing more is kept
    assert len(list(store.glob("*.page"))) == 1


def test_pages_smaller_than_the_threshold_are_not_read_ahead(client, auth, app, readahead_manholes):
    """Below ``LATERAL_OGC_READAHEAD_MIN_LIMIT`` (100 unless set) the client would wait for it."""
    app.config["LATERAL_OGC_READAHEAD_MIN_LIMIT"] = 6
    try:
        small = _walk(client, auth)  # pages of 5
        big = _walk(client, auth, WALK.replace("limit=5", "limit=6"))
    finally:
        app.config["LATERAL_OGC_READAHEAD_MIN_LIMIT"] = 1
    assert not any(ahead for _, ahead in small)
    assert [ahead for _, ahead in big] == [False, False, True, True]


@pytest.mark.parametrize("headers", [{}, {"Authorization": "Bearer lat_not-a-token"}])
def test_a_page_written_ahead_is_not_given_to_a_caller_without_a_login(client, auth, app, readahead_manholes, headers):
    """The login is checked before the folder is looked at, and a refused caller takes nothing from it."""
    url = _second_page(client, auth)
    response = client.get(url, headers=headers)
    assert response.status_code == 401
    assert b"MH-" not in response.data
    assert len(list(_store(app).glob("*.page"))) == 1
    _, _, response = _get(client, auth, url)
    assert _ahead(response)


def test_read_ahead_can_be_turned_off(client, auth, app, readahead_manholes):
    app.config["LATERAL_OGC_READAHEAD"] = False
    try:
        pages = _walk(client, auth)
    finally:
        app.config["LATERAL_OGC_READAHEAD"] = True
    assert not any(ahead for _, ahead in pages)
    assert not _store(app).exists() or not list(_store(app).glob("*.page"))


def test_a_failed_read_ahead_costs_the_client_nothing(client, auth, app, readahead_manholes, monkeypatch, caplog):
    def broken(key):
        raise RuntimeError("disk full")

    monkeypatch.setattr(readahead, "prepare", broken)
    url = _second_page(client, auth)
    assert "read-ahead" in caplog.text
    body, _, response = _get(client, auth, url)
    assert [f["id"] for f in body["features"]] == readahead_manholes[10:15] and not _ahead(response)


def test_paging_helpers_agree(client, auth, readahead_manholes):
    """The read-ahead tests' walk and the paging tests' walk see the same first page."""
    ids, _, _ = read_page(client, auth, WALK)
    body, _, _ = _get(client, auth, WALK)
    assert ids == [f["id"] for f in body["features"]]
