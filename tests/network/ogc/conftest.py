"""The OGC API's independent clients run against a live server on each engine."""

from __future__ import annotations

import pytest

from tests.support.databases import ENGINES
from tests.support.live_city import serve_city


@pytest.fixture(scope="package", params=ENGINES)
def live_city(request, tmp_path_factory):
    with serve_city(request.param, tmp_path_factory.mktemp(f"live-{request.param}")) as city:
        yield city
