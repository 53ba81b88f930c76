"""OGC API – Features through the test client: documents, bbox, paging, items, HTML."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest
import shapely
from geoalchemy2.shape import from_shape, to_shape
from sqlalchemy import select

from server.core.extensions import db
from server.network.layers import LAYERS
from server.network.models import Parcel

BBOX = (-91.502, 44.2525, -91.499, 44.254)


def _get(client, auth, path, **headers):
    return client.get(path, headers={**auth["clerk"], **headers})


def _rels(doc) -> dict:
    return {link["rel"]: link for link in doc["links"]}


def test_every_endpoint_needs_a_user(client):
    for path in ("/ogc/", "/ogc/conformance", "/ogc/collections", "/ogc/collections/parcels/items"):
        r = client.get(path)
        assert r.status_code == 401, path
        assert "Basic" in r.headers["WWW-Authenticate"]


def test_a_browser_without_a_session_is_sent_to_log_in(client):
    r = client.get("/ogc/collections?f=html")
    assert r.status_code == 302
    assert "/login" in r.headers["Location"]


def test_basic_auth_with_a_password_is_accepted(client):
    import base64

    good = base64.b64encode(b"clerk1:correct horse battery").decode()
    bad = base64.b64encode(b"clerk1:wrong").decode()
    assert client.get("/ogc/", headers={"Authorization": f"Basic {good}"}).status_code == 200
    assert client.get("/ogc/", headers={"Authorization": f"Basic {bad}"}).status_code == 401


def test_landing_page_links_conformance_and_data(client, auth):
    doc = _get(client, auth, "/ogc/").get_json()
    rels = _rels(doc)
    assert rels["conformance"]["href"].endswith("/ogc/conformance")
    assert rels["data"]["href"].endswith("/ogc/collections")
    assert rels["alternate"]["type"] == "text/html"


def test_conformance_declares_core_geojson_html_openapi_and_crs(client, auth):
    classes = _get(client, auth, "/ogc/conformance").get_json()["conformsTo"]
    assert {c.rsplit("/", 1)[1] for c in classes} == {"core", "geojson", "html", "oas30", "crs"}
    assert "http://www.opengis.net/spec/ogcapi-features-2/1.0/conf/crs" in classes


def test_collections_list_every_layer(client, auth, seeded_city):
    doc = _get(client, auth, "/ogc/collections").get_json()
    # The layers, then the collections other domains serve (server/network/sources.py).
    assert [c["id"] for c in doc["collections"]] == [*LAYERS, "permits"]


@pytest.mark.parametrize("layer", list(LAYERS))
def test_items_link_has_no_query_string(client, auth, layer):
    """GDAL appends /{id} to the items href; a query string there breaks single-feature reads."""
    doc = _get(client, auth, f"/ogc/collections/{layer}").get_json()
    items = _rels(doc)["items"]
    assert items["type"] == "application/geo+json"
    assert urlsplit(items["href"]).query == ""
    assert items["href"].endswith(f"/ogc/collections/{layer}/items")


def test_collection_extent_covers_every_feature(client, auth, seeded_city):
    doc = _get(client, auth, "/ogc/collections/parcels").get_json()
    minx, miny, maxx, maxy = doc["extent"]["spatial"]["bbox"][0]
    bounds = shapely.total_bounds([to_shape(g) for g in db.session.scalars(select(Parcel.geom))])
    # SpatiaLite's R*Tree keeps 32-bit floats rounded outwards: within a metre or so.
    assert (minx, miny) <= tuple(bounds[:2]) and (maxx, maxy) >= tuple(bounds[2:])
    assert max(abs(a - b) for a, b in zip((minx, miny, maxx, maxy), bounds, strict=True)) < 1e-4


def _extent(client, auth, layer="parcels"):
    return tuple(_get(client, auth, f"/ogc/collections/{layer}").get_json()["extent"]["spatial"]["bbox"][0])


def test_collection_extent_follows_a_feature_added_and_deleted(app, client, auth, seeded_city):
    """The extent reaches a feature added beyond the city and shrinks back once it is gone.

    PostGIS finds each side with an index probe rather than ``ST_Extent``: the numbers are the
    geometries' own; SpatiaLite's R*Tree rounds them outwards to 32-bit floats.
    """
    exact = db.engine.dialect.name == "postgresql"
    tolerance = 0.0 if exact else 1e-4

    def matches(extent, bounds):
        return max(abs(a - b) for a, b in zip(extent, bounds, strict=True)) <= tolerance

    before = _extent(client, auth)
    bounds = tuple(shapely.total_bounds([to_shape(g) for g in db.session.scalars(select(Parcel.geom))]))
    assert matches(before, bounds)
    template = db.session.scalars(select(Parcel).order_by(Parcel.id)).first()
    far = shapely.MultiPolygon([shapely.Polygon([(-91.30001, 44.40002), (-91.29987, 44.40002),
                                                 (-91.29987, 44.40013)])])
    added = Parcel(**{c.key: getattr(template, c.key) for c in Parcel.__table__.columns
                      if c.key not in ("id", "geom", "version", "created_at", "updated_at", "parcel_number")},
                   parcel_number="FAR-1", geom=from_shape(far, srid=4326))
    db.session.add(added)
    db.session.commit()
    grown = _extent(client, auth)
    assert matches(grown, (bounds[0], bounds[1], -91.29987, 44.40013))
    db.session.delete(added)
    db.session.commit()
    assert matches(_extent(client, auth), bounds)


def test_an_empty_collection_has_no_extent(client, auth):
    assert "extent" not in _get(client, auth, "/ogc/collections/parcels").get_json()


def test_unknown_collection_is_404(client, auth):
    assert _get(client, auth, "/ogc/collections/sidewalks").status_code == 404


def test_items_page_counts_and_content_type(client, auth, seeded_city):
    r = _get(client, auth, "/ogc/collections/parcels/items?limit=25")
    body = r.get_json()
    assert r.mimetype == "application/geo+json"
    assert body["type"] == "FeatureCollection"
    assert body["numberMatched"] == 200
    assert body["numberReturned"] == len(body["features"]) == 25
    assert "timeStamp" in body


def test_bbox_returns_exactly_the_intersecting_features(client, auth, seeded_city):
    bbox = ",".join(map(str, BBOX))
    body = _get(client, auth, f"/ogc/collections/parcels/items?bbox={bbox}&limit=500").get_json()
    expected = {pid for pid, geom in db.session.execute(select(Parcel.id, Parcel.geom))
                if to_shape(geom).intersects(shapely.box(*BBOX))}
    assert expected and len(expected) < 200
    assert {f["id"] for f in body["features"]} == expected
    assert body["numberMatched"] == len(expected)


def test_paging_with_next_visits_every_feature_once(client, auth, seeded_city):
    seen, url, pages = [], "/ogc/collections/parcels/items?limit=50", 0
    while url:
        body = _get(client, auth, url).get_json()
        seen += [f["id"] for f in body["features"]]
        rels = _rels(body)
        assert "prev" not in rels  # a cursor page has no way back; an offset page does
        url = rels.get("next", {}).get("href")
        pages += 1
    assert pages == 4
    assert sorted(seen) == seen and len(set(seen)) == 200


def test_prev_link_steps_back_one_page(client, auth, seeded_city):
    body = _get(client, auth, "/ogc/collections/parcels/items?limit=30&offset=60").get_json()
    prev = parse_qs(urlsplit(_rels(body)["prev"]["href"]).query)
    assert prev["offset"] == ["30"] and prev["limit"] == ["30"]


@pytest.mark.parametrize("offset, returned, matched", [(190, 10, 200), (500, 0, None)])
def test_number_matched_past_the_last_full_page(client, auth, seeded_city, offset, returned, matched):
    """A last page knows numberMatched (offset + returned); an empty one past the end does not."""
    body = _get(client, auth, f"/ogc/collections/parcels/items?limit=50&offset={offset}").get_json()
    assert (body.get("numberMatched"), body["numberReturned"]) == (matched, returned)
    assert "next" not in _rels(body)


def test_attribute_filter_is_a_query_parameter(client, auth, seeded_city):
    body = _get(client, auth, "/ogc/collections/findings/items?source=sump_pump&limit=500").get_json()
    assert body["features"]
    assert {f["properties"]["source"] for f in body["features"]} == {"sump_pump"}


def test_next_link_keeps_the_filters(client, auth, seeded_city):
    bbox = ",".join(map(str, BBOX))
    body = _get(client, auth, f"/ogc/collections/parcels/items?bbox={bbox}&limit=5").get_json()
    query = parse_qs(urlsplit(_rels(body)["next"]["href"]).query)
    assert query["bbox"] == [bbox] and "offset" not in query and query["cursor"]


CRS84 = "http://www.opengis.net/def/crs/OGC/1.3/CRS84"


@pytest.mark.parametrize("crs", [CRS84, "[OGC:CRS84]"])
def test_the_listed_crs_is_accepted_and_named_in_content_crs(client, auth, seeded_city, crs):
    """Part 2: GDAL 3.9+ sends ``crs=`` (and ``bbox-crs=`` with a bbox) on every page."""
    bbox = ",".join(map(str, BBOX))
    r = _get(client, auth, f"/ogc/collections/parcels/items?limit=5&crs={crs}&bbox={bbox}&bbox-crs={crs}")
    assert r.status_code == 200
    assert r.headers["Content-Crs"] == f"<{CRS84}>"
    plain = _get(client, auth, f"/ogc/collections/parcels/items?limit=5&bbox={bbox}").get_json()
    assert [f["id"] for f in r.get_json()["features"]] == [f["id"] for f in plain["features"]]
    assert parse_qs(urlsplit(_rels(r.get_json())["next"]["href"]).query)["crs"] == [crs]
    one = _get(client, auth, f"/ogc/collections/parcels/items/7?crs={crs}")
    assert one.status_code == 200 and one.headers["Content-Crs"] == f"<{CRS84}>"


@pytest.mark.parametrize("path", [
    "/ogc/collections/parcels/items?crs=http://www.opengis.net/def/crs/EPSG/0/3857",
    "/ogc/collections/parcels/items?bbox-crs=EPSG:4326&bbox=-91.6,44.1,-91.5,44.2",
    "/ogc/collections/parcels/items/7?crs=http://www.opengis.net/def/crs/EPSG/0/4326",
])
def test_a_crs_not_listed_is_400_naming_the_one_that_is(client, auth, seeded_city, path):
    r = _get(client, auth, path)
    assert r.status_code == 400
    error = r.get_json()["error"]
    assert error["code"] == "invalid_parameter" and CRS84 in error["message"]


@pytest.mark.parametrize("query", ["colour=red", "limit=0", "offset=-1", "bbox=1,2,3", "f=xml"])
def test_bad_query_parameters_are_400(client, auth, query):
    r = _get(client, auth, f"/ogc/collections/parcels/items?{query}")
    assert r.status_code == 400
    assert r.get_json()["error"]["code"] == "invalid_parameter"


def test_single_item_with_links_and_etag(client, auth, seeded_city):
    r = _get(client, auth, "/ogc/collections/parcels/items/7")
    body = r.get_json()
    assert r.mimetype == "application/geo+json"
    assert body["id"] == 7 and body["geometry"]["type"] == "MultiPolygon"
    assert _rels(body)["collection"]["href"].endswith("/ogc/collections/parcels")
    assert r.headers["ETag"] == '"1"'


def test_missing_item_is_404(client, auth, seeded_city):
    assert _get(client, auth, "/ogc/collections/parcels/items/99999").status_code == 404


@pytest.mark.parametrize("path, text", [
    ("/ogc/", "OGC API"),
    ("/ogc/collections", "Tracer wires"),
    ("/ogc/collections/parcels", "Browse the features"),
    ("/ogc/collections/parcels/items?limit=10", "parcel_number"),
    ("/ogc/collections/parcels/items/3", "Parcel 3"),
])
def test_html_pages_render(client, auth, seeded_city, path, text):
    r = _get(client, auth, path, Accept="text/html,application/xhtml+xml,*/*;q=0.8")
    assert r.status_code == 200 and r.mimetype == "text/html"
    assert text in r.get_data(as_text=True)


def test_f_parameter_overrides_accept(client, auth, seeded_city):
    r = _get(client, auth, "/ogc/collections?f=json", Accept="text/html")
    assert r.mimetype == "application/json"
