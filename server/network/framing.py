"""What every map of the city frames, and the parcels that lie far from the rest.

The service area where one is stored; else the parcels' dense core
(:func:`gis.framing.dense_core`): one stray parcel cannot blank a view. A stray parcel
is named to the GIS staff (``flask doctor``, an import's warnings) rather than framed.
"""

from __future__ import annotations

import numpy as np
import shapely
from sqlalchemy import func, select

from gis import framing
from server.core.extensions import db
from server.network.models import Parcel, ServiceArea


def _centroids() -> tuple[list[str], np.ndarray, np.ndarray]:
    centre = func.ST_Centroid(Parcel.geom)
    rows = db.session.execute(select(Parcel.parcel_number, func.ST_X(centre), func.ST_Y(centre))).all()
    return [r[0] for r in rows], np.array([r[1] for r in rows], dtype=float), np.array([r[2] for r in rows],
                                                                                     dtype=float)


def city_frame() -> list[float] | None:
    """minLon, minLat, maxLon, maxLat a map of the city opens on; None with nothing stored."""
    areas = db.session.execute(select(func.ST_AsBinary(ServiceArea.geom))).scalars().all()
    if areas:
        return list(shapely.GeometryCollection([shapely.from_wkb(bytes(w)) for w in areas]).bounds)
    _, lon, lat = _centroids()
    core = framing.dense_core(lon, lat)
    return None if core is None else list(framing.padded(core))


def stray_parcels() -> list[str]:
    """Parcel numbers of the parcels far from the dense core of all of them."""
    numbers, lon, lat = _centroids()
    return [numbers[i] for i in framing.strays(lon, lat)]


def strays_among(numbers: list[str], lon: list[float], lat: list[float]) -> list[str]:
    """Which of these (an import's) parcels lie far from the stored parcels and themselves."""
    stored, slon, slat = _centroids()
    mine = set(numbers)
    keep = [i for i, n in enumerate(stored) if n not in mine]
    all_numbers = [stored[i] for i in keep] + list(numbers)
    all_lon = np.concatenate([slon[keep], np.asarray(lon, dtype=float)])
    all_lat = np.concatenate([slat[keep], np.asarray(lat, dtype=float)])
    return [all_numbers[i] for i in framing.strays(all_lon, all_lat) if all_numbers[i] in mine]
