"""A parcel keyed in far from the city, for the tests of what maps frame (issue 34)."""

from __future__ import annotations

from geoalchemy2.shape import from_shape
from shapely.geometry import MultiPolygon, box

from server.core.extensions import db
from server.network.models import Parcel

#: About 100 km east of Arcadia: a coordinate keyed wrong.
STRAY_LONLAT = (-90.25, 44.25)
STRAY_NUMBER = "206-99999-0001"


def add_stray_parcel() -> Parcel:
    x, y = STRAY_LONLAT
    parcel = Parcel(parcel_number=STRAY_NUMBER, site_address="1 Nowhere Rd",
                    geom=from_shape(MultiPolygon([box(x, y, x + 0.0003, y + 0.0002)]), srid=4326))
    db.session.add(parcel)
    db.session.flush()
    return parcel
