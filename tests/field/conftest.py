"""Fixtures for field sync: users by role and a bare parcel (its id) to inspect."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from server.core.accounts.models import User
from server.core.extensions import db
from tests.support.sync import make_feature


@pytest.fixture
def user(app):
    """Users by role, as rows: ``user("inspector")``."""
    def get(role: str) -> User:
        return db.session.execute(select(User).filter_by(username=f"{role}1")).scalar_one()
    return get


@pytest.fixture
def parcel_id(app) -> int:
    """A bare parcel (no owner, no address) stored through the feature service; its id."""
    return make_feature("parcels", parcel_number="206-00042-0000")
