"""A notice whose letter carries a lookup code; the failed-lookup counters start empty in each
test (the app lives for the session)."""

from __future__ import annotations

import pytest

from server.core.web import throttle
from tests.support.portal import code_on_letter


@pytest.fixture(autouse=True)
def fresh_lookup_counters(request):
    """Empty counters, for the tests over the shared app (the browser walks serve their own)."""
    if "app" not in request.fixturenames:
        yield
        return
    request.getfixturevalue("app")
    throttle.strategy().storage.reset()
    yield
    throttle.strategy().storage.reset()


@pytest.fixture
def lettered(notice_in) -> dict:
    """A notice mailed and delivered, with ``code``: the lookup code its letter prints."""
    notice = notice_in("delivered")
    return {**notice, "code": code_on_letter(notice["id"])}
