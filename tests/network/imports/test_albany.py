"""A real county file in another schema: Albany, NY parcels with a --map of its fields."""

from __future__ import annotations

from geoalchemy2.shape import to_shape
from sqlalchemy import func, select

from server.core.extensions import db
from server.network.models import Parcel
from tests.support.env import need_shared

ALBANY_MAP = ["print_key=parcel_number", "primary_ow=owner_name", "loc_st_nbr=site_address",
              "loc_st_nam=site_address", "street_add=mailing_street", "city_state=postal_city_line"]


def _args():
    path = need_shared("realdata", "gis", "albany_ny_parcels", "parcels.geojson")
    return ["parcels", path, *[a for pair in ALBANY_MAP for a in ("--map", pair)]]


def test_albany_parcels_import_with_a_map(run_import):
    result = run_import(*_args())

    assert result.exit_code == 0, result.output
    assert "20 new, 0 updated, 0 unchanged" in result.output
    assert "fields not imported: CENTROID" in result.output
    assert db.session.scalar(select(func.count(Parcel.id))) == 20
    p = db.session.scalar(select(Parcel).where(Parcel.parcel_number == "65.69-1-46"))
    assert (p.owner_name, p.site_address, p.mailing_street, p.mailing_city, p.mailing_state, p.mailing_zip) == \
        ("Cusato, Frank S", "446 Hudson", "244 Quail St", "ALBANY", "NY", "12203")
    centre = to_shape(p.geom).centroid
    assert -73.781 < centre.x < -73.777 and 42.659 < centre.y < 42.662


def test_albany_dry_run_then_again_unchanged(run_import):
    dry = run_import(*_args(), "--dry-run")
    assert "20 new" in dry.output and db.session.scalar(select(func.count(Parcel.id))) == 0
    run_import(*_args())
    assert "0 new, 0 updated, 20 unchanged" in run_import(*_args()).output


def test_albany_without_a_map_is_refused(run_import):
    path = need_shared("realdata", "gis", "albany_ny_parcels", "parcels.geojson")
    result = run_import("parcels", path)
    assert result.exit_code == 1 and "nothing in the file gives the parcels layer's parcel_number" in result.output
