"""The demo city for the survey tests, and a logged-in session on the desk."""

from __future__ import annotations

import pytest

from tests.support.office import Desk


@pytest.fixture
def desk(client):
    """``desk("clerk1")``: a logged-in desk session."""
    return lambda username: Desk(client).login(username)
