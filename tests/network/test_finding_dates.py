"""A clear-water finding cannot be observed after today on the city's calendar (issue 30)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import func, select

from server.core import city
from server.core.extensions import db
from server.network.models import ClearWaterFinding
from tests.support.features import feature

URL = "/api/v1/findings"


@pytest.mark.parametrize("days_ahead, status", [(0, 201), (-30, 201), (1, 422), (3650, 422)])
def test_observed_on_may_not_be_in_the_future(client, auth, days_ahead, status):
    day = city.current().today() + timedelta(days=days_ahead)
    before = db.session.scalar(select(func.count()).select_from(ClearWaterFinding))
    r = client.post(URL, json=feature("findings", observed_on=day.isoformat()), headers=auth["superintendent"])
    assert r.status_code == status, r.get_json()
    if status == 422:
        assert "observed_on" in str(r.get_json()["error"]["details"])
        assert db.session.scalar(select(func.count()).select_from(ClearWaterFinding)) == before
