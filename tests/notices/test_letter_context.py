"""The letter's map: the parcel's neighbours, mains and laterals from the database."""

from __future__ import annotations

from geoalchemy2.shape import from_shape
from shapely.geometry import LineString, MultiPolygon, box

from server.core.extensions import db
from server.network.models import Lateral, Parcel, SewerMain
from server.notices.letter_context import map_features

X, Y, W = -91.6, 44.3, 0.0003


def _parcel(number: str, x: float) -> Parcel:
    p = Parcel(parcel_number=number, geom=from_shape(MultiPolygon([box(x, Y, x + W, Y + W)]), srid=4326))
    db.session.add(p)
    return p


def test_map_shows_neighbours_mains_and_laterals_near_the_parcel_only(app):
    here = _parcel("M-1", X)
    _parcel("M-2", X + W), _parcel("M-3", X + 20 * W)  # next door, far away
    db.session.add(SewerMain(kind="gravity", geom=from_shape(LineString([(X - W, Y - W / 4), (X + 2 * W, Y - W / 4)]),
                                                             srid=4326)))
    db.session.add(SewerMain(kind="gravity", geom=from_shape(LineString([(X + 20 * W, Y), (X + 21 * W, Y)]),
                                                             srid=4326)))
    db.session.add(Lateral(parcel_id=None, status="active",
                           geom=from_shape(LineString([(X + W / 2, Y - W / 4), (X + W / 2, Y + W / 2)]), srid=4326)))
    db.session.flush()
    features = map_features(here)
    kinds = sorted(f.kind for f in features)
    assert kinds == ["lateral", "main", "parcel"]
    [neighbour] = [f for f in features if f.kind == "parcel"]
    assert neighbour.geometry.symmetric_difference(box(X + W, Y, X + 2 * W, Y + W)).area < 1e-14
    assert not any(f.geometry.intersects(box(X + 19 * W, Y, X + 22 * W, Y + W)) for f in features)
