"""Reading the violations a rules run stored, and the demo city's planted breaks to compare."""

from __future__ import annotations

from sqlalchemy import select

from server.core.extensions import db
from server.demo.city import DemoCity
from server.rules.models import Violation

# Findings are inspection records, not network features: the engine does not read them.
NOT_IN_ENGINE = {"CLEAR-WATER"}


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
