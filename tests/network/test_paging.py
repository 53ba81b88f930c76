"""Keyset paging: every ``next`` link carries a cursor, and a walk loses and repeats nothing.

The same walk runs over the feature API (``/api/v1/<layer>``) and the OGC API
(``/ogc/collections/<layer>/items``): features are added and deleted, before and after
the cursor, between the requests of a walk.
"""

from __future__ import annotations

import base64
import json
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.support.features import add_manholes, delete_manhole, read_page

WALKS = {
    "api": "/api/v1/manholes?limit={limit}",
    "ogc": "/ogc/collections/manholes/items?limit={limit}",
}


@pytest.fixture
def manholes(client, auth) -> list[int]:
    return add_manholes(client, auth, 23)


@pytest.mark.parametrize("api", list(WALKS))
def test_a_walk_with_writes_between_pages_loses_and_repeats_nothing(client, auth, manholes, api):
    """Between pages: delete a feature already read and one not yet read, add two."""
    url, seen, added, deleted_ahead, pages = WALKS[api].format(limit=5), [], [], [], 0
    while url:
        ids, url, _ = read_page(client, auth, url)
        seen += ids
        pages += 1
        if url and pages <= 3:
            delete_manhole(client, auth, seen[-2])  # behind the cursor: already read
            ahead = manholes[len(seen) + 2]
            delete_manhole(client, auth, ahead)  # after the cursor: must not be read
            deleted_ahead.append(ahead)
            added += add_manholes(client, auth, 2)  # new ids follow the cursor: read once, later
    assert len(seen) == len(set(seen)), "a feature was read twice"
    never_touched = [fid for fid in manholes if fid not in deleted_ahead]
    assert set(never_touched) <= set(seen), "a feature present for the whole walk was skipped"
    assert not set(deleted_ahead) & set(seen)
    assert set(added) <= set(seen)
    assert seen == sorted(seen)


@pytest.mark.parametrize("api", list(WALKS))
@pytest.mark.parametrize("limit", [1, 7, 23, 24])
def test_next_links_are_there_exactly_until_the_end(client, auth, manholes, api, limit):
    """A last page of exactly ``limit`` features has no ``next`` link: no empty page follows."""
    url, pages, seen = WALKS[api].format(limit=limit), [], []
    while url:
        ids, url, _ = read_page(client, auth, url)
        assert ids, "an empty page was linked"
        pages.append(len(ids))
        seen += ids
    assert seen == manholes
    assert len(pages) == -(-len(manholes) // limit)
    assert all(n == limit for n in pages[:-1])


@pytest.mark.parametrize("api", list(WALKS))
def test_the_next_link_carries_an_opaque_cursor_and_keeps_the_filters(client, auth, manholes, api):
    _, url, _ = read_page(client, auth, WALKS[api].format(limit=5) + "&kind=manhole")
    query = parse_qs(urlsplit(url).query)
    assert query["kind"] == ["manhole"] and query["limit"] == ["5"]
    assert "offset" not in query and "after" not in query
    payload = query["cursor"][0].split(".")[0]
    decoded = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    assert decoded == {"v": 1, "k": [manholes[4]]}


def _tampered(client, auth, manholes) -> list[str]:
    _, url, _ = read_page(client, auth, WALKS["api"].format(limit=5))
    good = parse_qs(urlsplit(url).query)["cursor"][0]
    payload, signature = good.split(".")
    other = base64.urlsafe_b64encode(json.dumps({"v": 1, "k": [1]}).encode()).decode().rstrip("=")
    return [
        f"{other}.{signature}",  # another key under the old signature
        f"{payload}.{signature[:-2]}xx",  # a changed signature
        payload,  # no signature
        "not-a-cursor",
        "eyJ2IjoxLCJrIjpbMV19",  # {"v":1,"k":[1]} unsigned
        "%00",
        "",
    ]


@pytest.mark.parametrize("api, status, code", [("api", 422, "invalid_fields"), ("ogc", 400, "invalid_parameter")])
def test_a_tampered_or_malformed_cursor_is_refused_naming_it(client, auth, manholes, api, status, code):
    for cursor in _tampered(client, auth, manholes):
        path = WALKS[api].format(limit=5).split("?")[0]
        r = client.get(path, query_string={"limit": 5, "cursor": cursor}, headers=auth["inspector"])
        assert r.status_code in (status, 422), (cursor, r.status_code)
        error = r.get_json()["error"]
        assert error["code"] in (code, "invalid_fields")
        assert "cursor" in json.dumps(error["details"]), (cursor, error)


def test_a_cursor_with_after_or_offset_is_refused(client, auth, manholes):
    _, url, _ = read_page(client, auth, WALKS["api"].format(limit=5))
    r = client.get(url + "&after=3", headers=auth["inspector"])
    assert r.status_code == 422 and "cursor" in r.get_json()["error"]["details"]["fields"]["query"]
    ogc = url.replace("/api/v1/manholes", "/ogc/collections/manholes/items")
    r = client.get(ogc + "&offset=3", headers=auth["inspector"])
    assert r.status_code == 400 and "cursor" in r.get_json()["error"]["details"]["fields"]["query"]


def test_after_still_pages_for_older_clients(client, auth, manholes):
    ids, url, _ = read_page(client, auth, f"/api/v1/manholes?limit=5&after={manholes[9]}")
    assert ids == manholes[10:15] and "cursor=" in url


def test_an_offset_page_links_to_the_next_by_cursor_and_back_by_offset(client, auth, manholes):
    ids, url, body = read_page(client, auth, "/ogc/collections/manholes/items?limit=5&offset=10")
    assert ids == manholes[10:15]
    assert "numberMatched" not in body  # a page in the middle of a walk is not counted
    prev = parse_qs(urlsplit(next(lk["href"] for lk in body["links"] if lk["rel"] == "prev")).query)
    assert prev["offset"] == ["5"]
    ids, _, body = read_page(client, auth, url)
    assert ids == manholes[15:20]


def test_number_matched_is_on_the_first_page_only_of_a_cursor_walk(client, auth, manholes):
    """Counted once per walk (docs/api.md): the pages a cursor reaches leave it out."""
    _, url, first = read_page(client, auth, "/ogc/collections/manholes/items?limit=5&kind=manhole")
    assert first["numberMatched"] == len(manholes)
    matched = []
    while url:
        _, url, page = read_page(client, auth, url)
        matched.append(page.get("numberMatched"))
    assert len(matched) == 4 and set(matched) == {None}


@pytest.mark.parametrize("offset", [0, 20])
def test_a_last_page_knows_number_matched_without_counting(client, auth, manholes, offset):
    ids, url, body = read_page(client, auth, f"/ogc/collections/manholes/items?limit=50&offset={offset}")
    assert url is None and body["numberMatched"] == len(manholes) == offset + len(ids)


def test_an_offset_past_the_end_is_an_empty_last_page(client, auth, manholes):
    ids, url, body = read_page(client, auth, "/ogc/collections/manholes/items?limit=5&offset=100")
    assert (ids, url, body.get("numberMatched")) == ([], None, None)


def test_the_link_header_carries_the_cursor_too(client, auth, manholes):
    r = client.get("/api/v1/manholes?limit=5", headers=auth["inspector"])
    link = r.headers["Link"]
    assert link.endswith('>; rel="next"') and "cursor=" in link
