"""The demo city through the API: what `make run` serves, valid to a GeoJSON validator."""

from __future__ import annotations

import geojson_validator
import pytest

from server.demo import seed as demo


@pytest.mark.parametrize("layer", ["parcels", "mains", "laterals", "taps", "service-areas", "findings"])
def test_bbox_page_passes_a_geojson_validator(client, auth, seeded_city_300, layer):
    r = client.get(f"/api/v1/{layer}?bbox=-91.52,44.24,-91.48,44.27&limit=500", headers=auth["inspector"])
    body = r.get_json()
    assert body["features"], "the demo city lies in this bbox"
    assert geojson_validator.validate_structure(body) == {}
    assert geojson_validator.validate_geometries(body)["invalid"] == {}


def test_seed_refuses_a_database_that_is_not_empty(seeded_city_300):
    with pytest.raises(demo.DemoError, match="already holds 300 parcels"):
        demo.seed(parcels=300, with_users=False)


def test_seed_if_empty_leaves_a_seeded_database_alone(seeded_city_300):
    assert "not loaded again" in demo.seed(parcels=300, if_empty=True, with_users=False)


def test_seeded_parcel_ids_continue_after_the_seed(client, auth, seeded_city_300):
    from tests.support.features import feature

    r = client.post("/api/v1/parcels", json=feature("parcels", parcel_number="206-99999-0000"),
                    headers=auth["superintendent"])
    assert r.status_code == 201
    assert r.get_json()["id"] == 301
