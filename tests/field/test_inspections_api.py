"""Reading inspections, templates and assignments: who sees what."""

from __future__ import annotations

import base64
import json
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.support.sync import push, record, survey


@pytest.fixture
def assignment_body(user, parcel_id, templates):
    return {"inspector_id": user("inspector").id, "parcel_id": parcel_id, "template_id": "tap",
            "due_on": "2026-12-01", "reason": "new tap on Main St"}


def test_inspectors_do_not_create_assignments(client, auth, assignment_body):
    response = client.post("/api/v1/assignments", json=assignment_body, headers=auth["inspector"])
    assert response.status_code == 403


def test_assignment_to_an_unknown_checklist_is_422(client, auth, assignment_body):
    response = client.post("/api/v1/assignments", json={**assignment_body, "template_id": "roof"},
                           headers=auth["superintendent"])
    assert response.status_code == 422
    assert "template_id" in response.get_json()["error"]["details"]["fields"]


def test_inspectors_see_only_their_own_assignments(client, auth, user, assignment_body):
    client.post("/api/v1/assignments", json=assignment_body, headers=auth["superintendent"])
    client.post("/api/v1/assignments", json={**assignment_body, "inspector_id": user("superintendent").id},
                headers=auth["superintendent"])
    mine = client.get("/api/v1/assignments", headers=auth["inspector"]).get_json()
    everyone = client.get("/api/v1/assignments", headers=auth["superintendent"]).get_json()
    assert [a["inspector_id"] for a in mine] == [user("inspector").id]
    assert len(everyone) == 2


def test_inspection_list_filters_and_hides_other_inspectors_work(client, auth, parcel_id, templates):
    push(client, auth["inspector"], record(survey(parcel_id, [])))
    push(client, auth["superintendent"], record(survey(parcel_id, [], access="refused")))
    own = client.get(f"/api/v1/inspections?parcel_id={parcel_id}", headers=auth["inspector"]).get_json()
    assert [i["answers"]["access"] for i in own["inspections"]] == ["granted"]
    clerk = client.get("/api/v1/inspections?template=clear-water-survey", headers=auth["clerk"]).get_json()
    assert len(clerk["inspections"]) == 2


def test_another_inspectors_inspection_is_404_to_an_inspector(client, auth, parcel_id, templates):
    rec = record(survey(parcel_id, []))
    push(client, auth["superintendent"], rec)
    assert client.get(f"/api/v1/inspections/{rec['uuid']}", headers=auth["inspector"]).status_code == 404
    body = client.get(f"/api/v1/inspections/{rec['uuid']}", headers=auth["clerk"]).get_json()
    assert (body["template_id"], body["result"], body["photos_complete"]) == ("clear-water-survey", "pass", True)


def test_templates_list_and_one_version(client, auth, templates):
    listed = client.get("/api/v1/templates", headers=auth["inspector"]).get_json()["templates"]
    # v2 marked the permit number short; v3 records the distance from the downstream manhole
    # and the trench photos (issue 32).
    assert {t["id"]: t["version"] for t in listed}["tap"] == 3
    one = client.get("/api/v1/templates/tap/3", headers=auth["inspector"]).get_json()
    assert [i["id"] for i in one["items"]][:2] == ["permit_number", "method"]
    assert "downstream_manhole_ft" in [i["id"] for i in one["items"]]
    assert client.get("/api/v1/templates/tap/4", headers=auth["inspector"]).status_code == 404


def test_unknown_query_parameters_are_422(client, auth):
    response = client.get("/api/v1/inspections?colour=red", headers=auth["inspector"])
    assert response.status_code == 422


# Paging (docs/api.md#paging): a `next` URL with a signed cursor, exactly while rows follow.

def _push_surveys(client, headers, parcel: int, n: int) -> list[int]:
    """``n`` inspections pushed as ``headers``' user; their ids, in the order received."""
    results = push(client, headers, *[record(survey(parcel, [])) for _ in range(n)])
    assert all(r["status"] == 201 for r in results), results
    return [r["server_id"] for r in results]


def _walk(client, headers, url: str, between=None) -> list[list[int]]:
    """Follow ``next`` from ``url`` to the end; the ids of each page. ``between(n)`` runs
    after page ``n`` when another page follows."""
    pages = []
    while url:
        response = client.get(url, headers=headers)
        assert response.status_code == 200, response.get_json()
        body = response.get_json()
        pages.append([i["id"] for i in body["inspections"]])
        nxt = body["next"]
        # The Link header and the deprecated next_after say the same as `next`.
        assert response.headers.get("Link") == (None if nxt is None else f'<{nxt}>; rel="next"')
        assert body["next_after"] == (pages[-1][-1] if nxt else None)
        if nxt is not None:
            assert nxt.startswith("http://localhost/api/v1/inspections?") and "cursor=" in nxt
            if between:
                between(len(pages))
        url = nxt and nxt.removeprefix("http://localhost")
    return pages


@pytest.fixture
def six(client, auth, parcel_id, templates) -> list[int]:
    return _push_surveys(client, auth["superintendent"], parcel_id, 6)


@pytest.mark.parametrize("limit", [1, 2, 3, 4, 6, 7])
def test_next_is_there_exactly_until_the_end(client, auth, six, limit):
    """A last page of exactly ``limit`` inspections has no next: no empty page follows it."""
    pages = _walk(client, auth["clerk"], f"/api/v1/inspections?limit={limit}")
    assert all(pages), "an empty page was linked"
    assert [i for page in pages for i in page] == six
    assert len(pages) == -(-len(six) // limit)
    assert all(len(page) == limit for page in pages[:-1])


def test_inspections_added_during_a_walk_are_read_once_and_none_is_lost(client, auth, parcel_id, six):
    added: list[int] = []

    def receive_one(pages_read: int) -> None:  # new ids follow the cursor: read once, later
        if pages_read <= 3:
            added.extend(_push_surveys(client, auth["inspector"], parcel_id, 1))

    pages = _walk(client, auth["clerk"], "/api/v1/inspections?limit=2", between=receive_one)
    seen = [i for page in pages for i in page]
    assert len(added) == 3
    assert seen == sorted(set(seen)) == six + added


def test_an_inspector_pages_through_their_own_only(client, auth, user, parcel_id, templates):
    mine = []
    for _ in range(3):
        mine += _push_surveys(client, auth["inspector"], parcel_id, 1)
        _push_surveys(client, auth["superintendent"], parcel_id, 2)
    pages = _walk(client, auth["inspector"], "/api/v1/inspections?limit=1")
    assert pages == [[i] for i in mine]
    # Naming another inspector does not widen the view.
    other = f"/api/v1/inspections?limit=1&inspector={user('superintendent').id}"
    assert _walk(client, auth["inspector"], other) == [[]]


def test_the_next_url_keeps_the_filters_and_drops_after(client, auth, parcel_id, six):
    body = client.get(f"/api/v1/inspections?limit=2&after={six[0]}&parcel_id={parcel_id}&template=clear-water-survey",
                      headers=auth["clerk"]).get_json()
    assert [i["id"] for i in body["inspections"]] == six[1:3]
    query = parse_qs(urlsplit(body["next"]).query)
    assert (query["parcel_id"], query["template"], query["limit"]) == ([str(parcel_id)], ["clear-water-survey"], ["2"])
    assert "after" not in query
    payload = query["cursor"][0].split(".")[0]
    assert json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))) == {"v": 1, "k": [six[2]]}


def test_older_clients_walk_with_next_after_and_stop_at_the_end(client, auth, six):
    """``after`` is still taken, and ``next_after`` is null on a last page of exactly ``limit``."""
    seen, after = [], None
    while True:
        url = "/api/v1/inspections?limit=3" + (f"&after={after}" if after is not None else "")
        body = client.get(url, headers=auth["clerk"]).get_json()
        assert body["inspections"], "an empty page was reached"
        seen += [i["id"] for i in body["inspections"]]
        after = body["next_after"]
        if after is None:
            break
    assert seen == six


def _cursor(client, auth) -> str:
    body = client.get("/api/v1/inspections?limit=2", headers=auth["clerk"]).get_json()
    return parse_qs(urlsplit(body["next"]).query)["cursor"][0]


def test_a_tampered_or_foreign_cursor_is_422_naming_it(client, auth, six):
    good = _cursor(client, auth)
    payload, signature = good.split(".")
    other = base64.urlsafe_b64encode(json.dumps({"v": 1, "k": [six[0]]}).encode()).decode().rstrip("=")
    for cursor in (f"{other}.{signature}", f"{payload}.{signature[:-2]}xx", payload, "not-a-cursor", ""):
        response = client.get("/api/v1/inspections", query_string={"limit": 2, "cursor": cursor},
                              headers=auth["clerk"])
        assert response.status_code == 422, (cursor, response.status_code)
        error = response.get_json()["error"]
        assert error["code"] == "invalid_fields" and "cursor" in error["details"]["fields"]["query"], error


def test_a_cursor_from_another_list_is_no_way_past_the_own_filter(client, auth, parcel_id, six):
    """A cursor only says where to start: the inspector's own filter still holds."""
    mine = _push_surveys(client, auth["inspector"], parcel_id, 1)
    cursor = _cursor(client, auth)
    body = client.get("/api/v1/inspections", query_string={"cursor": cursor}, headers=auth["inspector"]).get_json()
    assert [i["id"] for i in body["inspections"]] == mine


def test_cursor_and_after_together_are_422(client, auth, six):
    response = client.get("/api/v1/inspections", query_string={"cursor": _cursor(client, auth), "after": six[0]},
                          headers=auth["clerk"])
    assert response.status_code == 422
    assert "cursor" in response.get_json()["error"]["details"]["fields"]["query"]
