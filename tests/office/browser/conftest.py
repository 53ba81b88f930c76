"""The office pages in Debian's Chromium: the demo city served for the package's tests,
and a superintendent logged in to it.

Without the browser the tests skip, and in strict mode (CI) they fail (the ``chromium``
fixture, ``tests/support/fixtures.py``).
"""

from __future__ import annotations

import pytest

from tests.support.browser import superintendent_page
from tests.support.databases import ENGINES
from tests.support.live_city import serve_city


@pytest.fixture(scope="package", params=ENGINES)
def served_city(request, tmp_path_factory):
    """The 300-parcel demo city served on each engine, shared by the package's tests (a module
    whose tests change it has its own, ``own_served_city``)."""
    with serve_city(request.param, tmp_path_factory.mktemp(f"browser-{request.param}")) as city:
        yield city


@pytest.fixture
def staff_page(chromium, served_city):
    """A logged-in superintendent's page at 1280×800 that records console errors."""
    with superintendent_page(chromium, served_city.url) as page:
        yield page
