"""The parcel search pages by keyset: a ``next`` link with a cursor on (site address, id).

Parcels without a site address and parcels sharing one are in every walk; parcels are
added and deleted between the requests of a walk.
"""

from __future__ import annotations

import base64
import json
from urllib.parse import parse_qs, urlsplit

import pytest
from geoalchemy2.shape import from_shape
from shapely.geometry import MultiPolygon, box
from sqlalchemy import select

from server.core.extensions import db
from server.core.web import paging
from server.network.models import Parcel
from server.office import survey

Q = "pg-"  # the start of the parcel numbers below; no demo parcel or address holds it
# No address (twice), an empty one, addresses shared by several parcels, and one whose
# case sorts differently from its neighbours'.
ADDRESSES = [None, "12 Elm St", "", "12 Elm St", "3 Oak Ave", None, "12 Elm St", "9 birch Ln",
             "3 Oak Ave", "100 Pine Rd", "12 Elm St", "7 Ash Ct"]


def _add(addresses: list[str | None], tag: str = "a") -> list[int]:
    parcels = []
    for i, address in enumerate(addresses):
        x = -91.60 - 0.001 * len(parcels)
        parcels.append(Parcel(parcel_number=f"PG-{tag}{i:03d}", site_address=address, owner_name=f"Owner {tag}{i}",
                              geom=from_shape(MultiPolygon([box(x, 44.2, x + 0.0005, 44.2005)]), srid=4326)))
    db.session.add_all(parcels)
    db.session.flush()
    return [p.id for p in parcels]


def _delete(pid: int) -> None:
    db.session.delete(db.session.get(Parcel, pid))
    db.session.flush()


@pytest.fixture
def parcels(app, seeded_city) -> list[int]:
    return _add(ADDRESSES)


def _page(client, auth, url: str) -> tuple[list[int], str | None]:
    r = client.get(url, headers=auth["inspector"])
    assert r.status_code == 200, r.get_json()
    body = r.get_json()
    assert set(body) == {"results", "streets", "next"}
    if "cursor=" in url:
        assert body["streets"] == []  # streets come with the first page only
    link = r.headers.get("Link")
    if body["next"] is None:
        assert link is None
    else:
        assert link == f'<{body["next"]}>; rel="next"'
    return [hit["id"] for hit in body["results"]], body["next"] and body["next"].replace("http://localhost", "")


def _walk(client, auth, url: str, between=lambda pages, seen: None) -> tuple[list[int], list[int]]:
    """The ids of every page followed from ``url``, and each page's size."""
    seen: list[int] = []
    sizes: list[int] = []
    while url:
        ids, url = _page(client, auth, url)
        seen += ids
        sizes.append(len(ids))
        if url:
            between(len(sizes), seen)
    return seen, sizes


def _one_query(q: str = Q) -> list[int]:
    results, more = survey.search(q, limit=10_000)
    assert more is None
    return [hit["id"] for hit in results]


@pytest.mark.parametrize("limit", [1, 2, 5, 7, 11, 12, 13, 50])
def test_a_walk_reads_what_one_query_finds_in_its_order(client, auth, parcels, limit):
    seen, sizes = _walk(client, auth, f"/api/v1/search?q={Q}&limit={limit}")
    assert seen == _one_query()
    assert sorted(seen) == sorted(parcels)
    assert len(sizes) == -(-len(parcels) // limit), "an empty page was linked, or a page came short"
    assert all(n == limit for n in sizes[:-1]) and 0 < sizes[-1] <= limit


def test_parcels_without_an_address_come_first_on_both_databases(client, auth, parcels):
    first = client.get(f"/api/v1/search?q={Q}&limit=3", headers=auth["inspector"]).get_json()["results"]
    no_address = [pid for pid, address in zip(parcels, ADDRESSES, strict=True) if not address]
    assert [hit["id"] for hit in first] == sorted(no_address)
    assert [hit["site_address"] for hit in first] == [None, "", None]


@pytest.mark.parametrize("limit", [4, 6, 12])
def test_the_last_page_of_an_exact_multiple_has_no_next(client, auth, parcels, limit):
    """12 matches in pages of 4, 6 or 12: the last full page ends the walk."""
    _, sizes = _walk(client, auth, f"/api/v1/search?q={Q}&limit={limit}")
    assert sizes == [limit] * (len(parcels) // limit)


def test_a_walk_with_parcels_added_and_deleted_between_pages(client, auth, parcels):
    """Between pages: delete the parcel the cursor names and one not yet read; add one that
    sorts after the cursor (read once) and one with no address (read while the walk is
    among the parcels with none, else not: then it sorts before the cursor)."""
    order = _one_query()
    deleted_ahead, added_behind, added_ahead = [], [], []

    def write(pages: int, seen: list[int]) -> None:
        if pages > 3:
            return
        past_no_address = bool(db.session.get(Parcel, seen[-1]).site_address)
        _delete(seen[-1])  # the cursor is a key, not a row: its row may go
        ahead = next(pid for pid in reversed(order) if pid not in seen and pid not in deleted_ahead)
        _delete(ahead)
        deleted_ahead.append(ahead)
        # While the cursor is ("", an id), a new parcel with no address has a larger id and
        # follows it; once the walk is past them, such a parcel sorts before the cursor.
        (added_behind if past_no_address else added_ahead).extend(_add([None], tag=f"n{pages}"))
        added_ahead.extend(_add(["99 Zed St"], tag=f"z{pages}"))

    seen, _ = _walk(client, auth, f"/api/v1/search?q={Q}&limit=2", write)
    assert len(seen) == len(set(seen)), "a parcel was read twice"
    present_throughout = [pid for pid in parcels if pid not in deleted_ahead]
    assert set(present_throughout) <= set(seen), "a parcel present for the whole walk was skipped"
    assert deleted_ahead and not set(deleted_ahead) & set(seen)
    assert added_behind and not set(added_behind) & set(seen)
    assert len(added_ahead) + len(added_behind) == 6 and set(added_ahead) <= set(seen)


def test_the_cursor_holds_the_last_address_and_id_and_keeps_q(client, auth, parcels):
    _, url = _page(client, auth, f"/api/v1/search?q={Q}&limit=5")
    query = parse_qs(urlsplit(url).query)
    assert query["q"] == [Q] and query["limit"] == ["5"]
    payload = query["cursor"][0].split(".")[0]
    decoded = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    fifth = db.session.get(Parcel, _one_query()[4])
    assert decoded == {"v": 1, "k": [fifth.site_address or "", fifth.id]}


def test_a_cursor_is_a_start_key_under_another_q(client, auth, parcels):
    """A cursor taken to another query starts that query's results after its key."""
    _, url = _page(client, auth, f"/api/v1/search?q={Q}&limit=5")
    cursor = parse_qs(urlsplit(url).query)["cursor"][0]
    r = client.get("/api/v1/search", query_string={"q": "elm", "cursor": cursor, "limit": 50},
                   headers=auth["inspector"])
    assert r.status_code == 200
    everything = _one_query("elm")
    fifth = db.session.get(Parcel, _one_query()[4])
    start = everything.index(fifth.id) + 1  # the fifth parcel is an Elm St one
    assert [hit["id"] for hit in r.get_json()["results"]] == everything[start:start + 50]


def _refused(client, auth, path: str, cursor: str) -> None:
    r = client.get(path, query_string={"q": Q, "limit": 5, "cursor": cursor}, headers=auth["inspector"])
    assert r.status_code == 422, (cursor, r.status_code)
    error = r.get_json()["error"]
    assert error["code"] == "invalid_fields"
    assert "cursor" in error["details"]["fields"]["query"], (cursor, error)


def _signed(payload: object) -> str:
    return paging._serializer().dumps(payload)


def test_a_tampered_or_malformed_cursor_is_422_naming_it(client, auth, parcels):
    _, url = _page(client, auth, f"/api/v1/search?q={Q}&limit=5")
    good = parse_qs(urlsplit(url).query)["cursor"][0]
    payload, signature = good.split(".")
    other = base64.urlsafe_b64encode(json.dumps({"v": 1, "k": ["", 1]}).encode()).decode().rstrip("=")
    for cursor in [f"{other}.{signature}", f"{payload}.{signature[:-2]}xx", payload, "not-a-cursor", "%00", "",
                   _signed({"v": 2, "k": ["", 1]}), _signed({"v": 1, "k": [None, 1]}),
                   _signed({"v": 1, "k": [1, "12 Elm St"]}), _signed({"v": 1, "k": ["", 1, 2]}),
                   _signed({"v": 1, "k": ["", True]}), _signed({"v": 1, "k": ["", 2**31]}),
                   _signed({"v": 1, "k": ["", -1]}), _signed({"v": 1, "k": ["", 1.0]}),
                   _signed({"v": 1, "k": ["", 1], "q": Q}), _signed(["", 1])]:
        _refused(client, auth, "/api/v1/search", cursor)


def test_another_lists_cursor_is_refused_and_search_cursors_elsewhere(client, auth, parcels):
    """An id cursor (what /notices, /inspections and the layers issue) does not start a
    search, and a search cursor starts no id list."""
    r = client.get("/api/v1/parcels?limit=1", headers=auth["inspector"])
    layer_cursor = parse_qs(urlsplit(r.headers["Link"][1:].split(">")[0]).query)["cursor"][0]
    _refused(client, auth, "/api/v1/search", layer_cursor)
    _refused(client, auth, "/api/v1/search", paging.encode(parcels[0]))  # as a /notices next link carries it
    _, url = _page(client, auth, f"/api/v1/search?q={Q}&limit=5")
    search_cursor = parse_qs(urlsplit(url).query)["cursor"][0]
    for path in ("/api/v1/notices", "/api/v1/inspections", "/api/v1/parcels"):
        r = client.get(path, query_string={"cursor": search_cursor}, headers=auth["superintendent"])
        assert r.status_code == 422, path
        assert "cursor" in r.get_json()["error"]["details"]["fields"]["query"], path


def test_id_cursors_are_as_they_were(app):
    """The id lists' cursors are byte for byte what they were before keys had shapes."""
    assert paging.encode(17) == paging._serializer().dumps({"v": 1, "k": [17]})
    assert paging.decode(paging.encode(17)) == 17
    assert paging.decode_key(paging.encode(("12 Elm St", 17)), survey.SEARCH_KEY) == ("12 Elm St", 17)
    with pytest.raises(ValueError):
        paging.decode(paging.encode(("12 Elm St", 17)))


def test_a_query_with_no_match_is_one_page_without_next(client, auth, parcels):
    assert _page(client, auth, "/api/v1/search?q=no-such-parcel") == ([], None)
    assert _page(client, auth, "/api/v1/search?q=%20") == ([], None)


def test_the_search_page_is_documented(client, auth):
    spec = client.get("/api/v1/openapi.json", headers=auth["inspector"]).get_json()
    get = spec["paths"]["/api/v1/search"]["get"]
    assert {p["name"] for p in get["parameters"]} == {"q", "limit", "cursor"}
    assert "Link" in get["responses"]["200"]["headers"]
    page = spec["components"]["schemas"]["SearchPageOut"]["properties"]
    assert set(page) == {"results", "streets", "next"} and "cursor" in page["next"]["description"]


def test_an_address_search_pages_alike(client, auth, parcels):
    """Address matches page as number matches do: "ELM" finds the four 12 Elm St parcels."""
    seen, sizes = _walk(client, auth, "/api/v1/search?q=ELM&limit=1")
    elm = set(db.session.scalars(select(Parcel.id).where(Parcel.site_address == "12 Elm St")))
    assert elm <= set(seen) and len(seen) == len(set(seen)) == len(_one_query("elm"))
