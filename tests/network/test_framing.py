"""Maps frame the city's bulk, not its extent; a stray parcel is named (issue 34)."""

from __future__ import annotations

import numpy as np
import shapely
from geoalchemy2.shape import to_shape
from sqlalchemy import delete

from server.core.extensions import db
from server.network import framing
from server.network.models import ServiceArea
from tests.support.framing import STRAY_LONLAT, STRAY_NUMBER, add_stray_parcel


def test_the_city_frame_is_the_service_area_where_one_is_set(seeded_city_300):
    add_stray_parcel()
    area = db.session.get(ServiceArea, 1)
    assert framing.city_frame() == list(to_shape(area.geom).bounds)


def test_without_a_service_area_the_frame_is_the_parcels_core(seeded_city_300):
    db.session.execute(delete(ServiceArea))
    before = framing.city_frame()
    add_stray_parcel()
    after = framing.city_frame()
    assert not shapely.box(*after).contains(shapely.Point(STRAY_LONLAT))
    # One stray among 300 does not move the view.
    assert np.allclose(before, after, atol=0.0005)


def test_the_stray_is_named(seeded_city_300):
    assert framing.stray_parcels() == []
    add_stray_parcel()
    assert framing.stray_parcels() == [STRAY_NUMBER]
