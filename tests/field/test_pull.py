"""Pull: a snapshot of the assigned area, then changes and tombstones from the cursor."""

from __future__ import annotations

import pytest

from server.core.extensions import db
from server.network import features as feature_service
from server.network.layers import LAYERS
from tests.support.features import point
from tests.support.sync import make_feature, pull

FAR = 0.05  # degrees east: about 4 km, well outside any margin


@pytest.fixture
def assign(client, auth, user, templates):
    def make(parcel_id: int, template="clear-water-survey"):
        body = {"inspector_id": user("inspector").id, "parcel_id": parcel_id, "template_id": template,
                "due_on": "2026-12-15", "reason": "survey block 12"}
        response = client.post("/api/v1/assignments", json=body, headers=auth["superintendent"])
        assert response.status_code == 201, response.get_json()
        return response.get_json()["id"]
    return make


def ids(page: dict, layer: str) -> list[int]:
    return [f["id"] for f in page["features"][layer]]


@pytest.fixture
def area(app, parcel_id, assign):
    """An assigned parcel with a tap beside it and another tap far away."""
    near = make_feature("taps")
    far = make_feature("taps", geometry=point(dx=FAR))
    assign(parcel_id)
    return {"parcel": parcel_id, "near": near, "far": far}


def test_without_assignments_the_pull_is_empty(client, auth, templates, parcel_id):
    page = pull(client, auth["inspector"])
    assert page["assignments"] == [] and all(v == [] for v in page["features"].values())
    assert {t["id"] for t in page["templates"]} == {"new-lateral", "tap", "clear-water-survey",
                                                     "backflow-valve", "reinspection", "pressure-sewer"}


def test_first_pull_is_a_snapshot_of_the_assigned_area_only(client, auth, area):
    page = pull(client, auth["inspector"])
    assert (page["reset"], page["more"]) == (True, False)
    assert ids(page, "taps") == [area["near"]]
    assert ids(page, "parcels") == [area["parcel"]]
    assert [a["parcel_id"] for a in page["assignments"]] == [area["parcel"]]
    assert page["features"]["taps"][0]["properties"]["version"] == 1


def test_next_pull_sends_only_what_changed_in_the_area(client, auth, area):
    cursor = pull(client, auth["inspector"])["cursor"]
    assert ids(pull(client, auth["inspector"], cursor), "taps") == []
    for fid in (area["near"], area["far"]):
        feature_service.update_feature(LAYERS["taps"], fid, 1, None, {"clock_position": 11.0}, None)
    db.session.commit()
    page = pull(client, auth["inspector"], cursor)
    assert page["reset"] is False
    assert ids(page, "taps") == [area["near"]]
    assert page["features"]["taps"][0]["properties"]["version"] == 2
    assert page["tombstones"] == []


def test_deleted_feature_in_the_area_comes_as_a_tombstone(client, auth, area):
    cursor = pull(client, auth["inspector"])["cursor"]
    for fid in (area["near"], area["far"]):
        feature_service.delete_feature(LAYERS["taps"], fid, 1, None)
    db.session.commit()
    page = pull(client, auth["inspector"], cursor)
    assert page["tombstones"] == [{"layer": "taps", "id": area["near"]}]
    assert ids(page, "taps") == []


def test_feature_moved_out_of_the_area_comes_as_a_tombstone(client, auth, area):
    cursor = pull(client, auth["inspector"])["cursor"]
    feature_service.update_feature(LAYERS["taps"], area["near"], 1, point(dx=FAR), None, None)
    db.session.commit()
    page = pull(client, auth["inspector"], cursor)
    assert page["tombstones"] == [{"layer": "taps", "id": area["near"]}]


def test_snapshot_pages_follow_the_cursor_to_the_end(client, auth, area):
    extra = make_feature("manholes")
    seen, cursor, pages = [], None, 0
    while True:
        page = pull(client, auth["inspector"], cursor, limit=1)
        seen += [(layer, f["id"]) for layer, feats in page["features"].items() for f in feats]
        cursor, pages = page["cursor"], pages + 1
        if not page["more"]:
            break
    assert sorted(seen) == sorted([("parcels", area["parcel"]), ("taps", area["near"]), ("manholes", extra)])
    assert pages >= 3


def test_a_new_assignment_resets_the_area(client, auth, area, assign):
    cursor = pull(client, auth["inspector"])["cursor"]
    other = make_feature("parcels", geometry=None, parcel_number="206-00043-0000")
    assign(other, template="tap")
    assert pull(client, auth["inspector"], cursor)["reset"] is True


def test_a_cursor_not_issued_here_is_400(client, auth, area):
    response = client.get("/api/v1/sync/pull?cursor=bm9wZQ", headers=auth["inspector"])
    assert (response.status_code, response.get_json()["error"]["code"]) == (400, "bad_cursor")


def test_completed_assignment_drops_out_of_the_next_pull(client, auth, area):
    from tests.support.sync import push, record, survey

    push(client, auth["inspector"], record(survey(area["parcel"], [])))
    page = pull(client, auth["inspector"])
    assert page["assignments"] == []


def test_the_superintendent_s_tablet_holds_the_whole_city_assigned_or_not(client, auth, area):
    """Issue 34: the superintendent reaches (and corrects) any parcel offline."""
    page = pull(client, auth["superintendent"])
    assert page["assignments"] == []  # the assignment is the inspector's
    assert sorted(ids(page, "taps")) == sorted([area["near"], area["far"]])
    assert area["parcel"] in ids(page, "parcels")
    # The inspector's holds their blocks and a margin, not the far tap.
    assert ids(pull(client, auth["inspector"]), "taps") == [area["near"]]


def test_the_whole_city_pull_goes_on_from_its_cursor(client, auth, area):
    first = pull(client, auth["superintendent"])
    again = pull(client, auth["superintendent"], first["cursor"])
    assert again["reset"] is False and ids(again, "taps") == []
