"""Fixtures for the rules engine: one site per measurement CRS (see ``sites.py``)."""

from __future__ import annotations

import pytest

from tests.support.gis_sites import Site


@pytest.fixture(params=["EPSG:3071", "EPSG:7577", "EPSG:8114"])
def site(request) -> Site:
    """A site in WTM (m), WISCRS Trempealeau (m) and WISCRS Trempealeau (US ft)."""
    return Site(request.param)


@pytest.fixture
def wtm() -> Site:
    """A site in the default measurement CRS only, for rules where units are not the point."""
    return Site("EPSG:3071")
