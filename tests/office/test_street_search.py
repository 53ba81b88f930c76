"""Search finds a street, or one block of it, as well as parcels (issue 34)."""

from __future__ import annotations

import shapely
from geoalchemy2.shape import to_shape
from sqlalchemy import select

from server.core.extensions import db
from server.network.models import Parcel, Street


def _search(client, auth, q: str) -> dict:
    r = client.get("/api/v1/search", query_string={"q": q}, headers=auth["inspector"])
    assert r.status_code == 200, r.get_json()
    return r.get_json()


def _box(bbox):
    return shapely.box(*bbox)


def test_a_street_name_frames_the_whole_street(client, auth, seeded_city_300):
    body = _search(client, auth, "W River St")
    (street,) = body["streets"]
    assert (street["name"], street["block"]) == ("W River St", None)
    pieces = [to_shape(s.geom) for s in db.session.scalars(select(Street).where(Street.name == "W River St"))]
    assert pieces and all(_box(street["bbox"]).buffer(1e-9).contains(p) for p in pieces)
    # Every parcel addressed on it lies within a lot's depth of the frame.
    on_it = db.session.scalars(select(Parcel).where(Parcel.site_address.like("% W River St"))).all()
    assert on_it and all(_box(street["bbox"]).distance(to_shape(p.geom).centroid) < 0.0005 for p in on_it)


def test_a_number_and_a_street_frame_that_block(client, auth, seeded_city_300):
    body = _search(client, auth, "150 block of E River St")
    (block,) = body["streets"]
    assert (block["name"], block["block"]) == ("E River St", 100)
    parcel = db.session.scalar(select(Parcel).where(Parcel.site_address == "111 E River St"))
    assert _box(block["bbox"]).distance(to_shape(parcel.geom).centroid) < 0.0005
    far = db.session.scalar(select(Parcel).where(Parcel.site_address == "211 E River St"))
    assert _box(block["bbox"]).distance(to_shape(far.geom).centroid) > 0.001


def test_a_block_no_piece_numbers_finds_no_street(client, auth, seeded_city_300):
    assert _search(client, auth, "9900 E River St")["streets"] == []


def test_a_parcel_number_finds_no_street_and_the_parcel_still(client, auth, seeded_city_300):
    body = _search(client, auth, "206-00001")
    assert body["streets"] == [] and body["results"][0]["parcel_number"] == "206-00001-0000"
