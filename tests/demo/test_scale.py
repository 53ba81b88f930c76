"""The demo city at a county-seat-of-a-big-city size: 160,000 parcels."""

from __future__ import annotations

import time

import pytest

from server.demo.city import generate_city

BIG = 160_000


@pytest.mark.slow
def test_160k_parcels_generate_within_a_minute():
    started = time.perf_counter()
    city = generate_city(BIG)
    elapsed = time.perf_counter() - started
    assert len(city.parcels) == BIG and elapsed < 60.0
