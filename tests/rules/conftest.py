"""A small demo city seeded inside the test's transaction."""

from __future__ import annotations

from functools import lru_cache

import pytest

from server.demo.city import DemoCity, generate_city

PARCELS = 300


@lru_cache(maxsize=1)
def demo_city() -> DemoCity:
    return generate_city(PARCELS)


@pytest.fixture
def city(app) -> DemoCity:
    """The demo city at 300 parcels, loaded into the test's database (rolled back after)."""
    from server.demo import seed as demo

    demo.seed(parcels=PARCELS, with_users=False)
    return demo_city()
