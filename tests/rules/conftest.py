"""A small demo city seeded inside the test's transaction, and helpers to read violations."""

from __future__ import annotations

from functools import lru_cache

import pytest
from sqlalchemy import select

from server.core.extensions import db
from server.demo.city import DemoCity, generate_city
from server.rules.models import Violation

PARCELS = 300
# Findings are inspection records, not network features: the engine does not read them.
NOT_IN_ENGINE = {"CLEAR-WATER"}


@lru_cache(maxsize=1)
def demo_city() -> DemoCity:
    return generate_city(PARCELS)


@pytest.fixture
def city(app) -> DemoCity:
    """The demo city at 300 parcels, loaded into the test's database (rolled back after)."""
    from server.demo import seed as demo

    demo.seed(parcels=PARCELS, with_users=False)
    return demo_city()


def planted(city: DemoCity) -> set[tuple[str, str, int]]:
    return {d for d in city.deliberate if d[0] not in NOT_IN_ENGINE}


def as_deliberate(rule_id: str, subjects) -> set[tuple[str, str, int]]:
    """(rule, layer, id) as the demo city lists its breaks: mains only for pressure sewers."""
    return {(rule_id, layer, ident) for layer, ident in subjects
            if layer != "main" or rule_id == "PRESSURE-SEWER"}


def stored(status: str = "open") -> list[Violation]:
    return db.session.scalars(
        select(Violation).where(Violation.status == status).order_by(Violation.key)
        .execution_options(populate_existing=True)
    ).all()
