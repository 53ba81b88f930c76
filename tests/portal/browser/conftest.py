"""Fixtures of the portal's browser walks."""

from __future__ import annotations

import pytest

from tests.support.plumber_browser import plumber_facts


@pytest.fixture(scope="module")
def facts(own_served_city) -> dict:
    """A parcel of the demo city to apply for, the demo inspector, and a year ahead."""
    return plumber_facts(own_served_city)
