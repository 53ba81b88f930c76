"""Listing: FeatureCollections, bbox through the spatial index, filters and paging."""

from __future__ import annotations

import pytest

from tests.support.features import X, Y, feature, point


@pytest.fixture
def grid(client, auth):
    """A 5 × 4 grid of manholes, 0.001° apart, alternating kind; returns their ids."""
    ids = []
    for i in range(5):
        for j in range(4):
            body = feature("manholes", facility_id=f"MH-{i}{j}", kind="manhole" if (i + j) % 2 else "flushing")
            body["geometry"] = point(dx=i * 0.001, dy=j * 0.001)
            r = client.post("/api/v1/manholes", json=body, headers=auth["superintendent"])
            ids.append(r.get_json()["id"])
    return ids


def get(client, auth, query):
    r = client.get(f"/api/v1/manholes?{query}", headers=auth["inspector"])
    assert r.status_code == 200, r.get_json()
    return r.get_json()


def test_list_is_a_feature_collection(client, auth, grid):
    body = get(client, auth, "limit=100")
    assert body["type"] == "FeatureCollection"
    assert [f["id"] for f in body["features"]] == grid
    assert body["numberReturned"] == 20


def test_bbox_selects_only_features_inside(client, auth, grid):
    # columns 1-2, rows 0-1 → 4 manholes
    bbox = f"{X + 0.0005},{Y - 0.0005},{X + 0.0025},{Y + 0.0015}"
    body = get(client, auth, f"bbox={bbox}")
    assert sorted(f["properties"]["facility_id"] for f in body["features"]) == ["MH-10", "MH-11", "MH-20", "MH-21"]


def test_bbox_far_away_is_empty(client, auth, grid):
    assert get(client, auth, "bbox=10,10,11,11")["features"] == []


def test_attribute_filter(client, auth, grid):
    body = get(client, auth, "kind=flushing")
    assert {f["properties"]["kind"] for f in body["features"]} == {"flushing"}
    assert len(body["features"]) == 10


def test_paging_follows_next_links_without_gaps_or_repeats(client, auth, grid):
    seen, url, pages = [], "/api/v1/manholes?limit=6&kind=manhole", 0
    while url:
        r = client.get(url, headers=auth["inspector"])
        body = r.get_json()
        seen += [f["id"] for f in body["features"]]
        nxt = [link["href"] for link in body["links"] if link["rel"] == "next"]
        url = nxt[0].replace("http://localhost", "") if nxt else None
        pages += 1
    assert pages == 2
    kinds = [(i + j) % 2 for i in range(5) for j in range(4)]  # 1 = "manhole", as in the fixture
    assert seen == [fid for fid, kind in zip(grid, kinds, strict=True) if kind]


def test_last_page_has_no_next_link(client, auth, grid):
    body = get(client, auth, "limit=20")
    assert [link["rel"] for link in body["links"]] == ["self"]


def test_next_link_also_in_link_header(client, auth, grid):
    r = client.get("/api/v1/manholes?limit=5", headers=auth["inspector"])
    assert 'rel="next"' in r.headers["Link"]


def test_limit_over_the_maximum_is_422(client, auth, app):
    r = client.get(f"/api/v1/manholes?limit={app.config['LATERAL_PAGE_MAX'] + 1}", headers=auth["inspector"])
    assert r.status_code == 422


@pytest.mark.parametrize("layer_name", ["parcels", "mains", "manholes", "laterals", "taps", "tracer-wires",
                                        "service-areas", "findings"])
def test_a_page_written_at_once_says_what_a_feature_at_a_time_says(app, client, auth, layer_name):
    """The feature API's pages are one orjson call over driver rows where the driver's values
    need no converting; the sync's pages are a text per feature. Same features, same values."""
    import json

    from server.network import features as service
    from server.network.layers import LAYERS
    from tests.support.features import SAMPLES

    if layer_name not in SAMPLES:
        pytest.skip(f"no sample feature for {layer_name}")
    for i in range(3):
        body = feature(layer_name)
        for key in ("parcel_number", "facility_id", "name"):
            if key in body["properties"]:
                body["properties"][key] = f"{body['properties'][key]}-{i}"
        r = client.post(f"/api/v1/{layer_name}", json=body, headers=auth["admin"])
        assert r.status_code == 201, r.get_json()
    layer = LAYERS[layer_name]
    one_by_one = service.list_features(layer, limit=100)
    at_once = service.list_features(layer, limit=100, as_array=True)
    assert len(at_once.features) == len(one_by_one.features) >= 3
    assert json.loads(at_once.features.text) == [json.loads(text) for text in one_by_one.features]


# Offsets of manholes from a window's edge, in degrees: inside and outside by less than
# float32's rounding of index boxes (1.5e-5 at longitude 180), by about it, and by more
# than the margin the "wholly inside" shortcut keeps (1e-4).
EDGE_OFFSETS = (1e-9, 3e-6, 2e-5, 9e-5, 1.1e-4)


def test_bbox_is_exact_at_its_edges(client, auth):
    """Points a hair inside each edge are found, points a hair outside are not."""
    minx, miny, maxx, maxy = X, Y, X + 0.01, Y + 0.01
    expected = set()
    for n, d in enumerate(EDGE_OFFSETS):
        for side, (dx, dy) in {"w": (minx + d, Y + 0.005), "e": (maxx - d, Y + 0.005),
                               "s": (X + 0.005, miny + d), "n": (X + 0.005, maxy - d),
                               "W": (minx - d, Y + 0.005), "E": (maxx + d, Y + 0.005),
                               "S": (X + 0.005, miny - d), "N": (X + 0.005, maxy + d)}.items():
            body = feature("manholes", facility_id=f"MH-{side}{n}", kind="manhole")
            body["geometry"] = {"type": "Point", "coordinates": [dx, dy]}
            assert client.post("/api/v1/manholes", json=body, headers=auth["superintendent"]).status_code == 201
            if side.islower():
                expected.add(f"MH-{side}{n}")
    found = get(client, auth, f"bbox={minx!r},{miny!r},{maxx!r},{maxy!r}&limit=100")["features"]
    assert {f["properties"]["facility_id"] for f in found} == expected
