"""The rules engine, run over the demo city, reports exactly the planted breaks."""

from __future__ import annotations

import pytest

from gis.rulebook import load_rulebook
from gis.rules import (
    run_rules,
)
from tests.support.demo_city import as_network

ARCADIA = load_rulebook("arcadia")  # the test apps' rulebook; pure code is always told which
# Findings are inspection records, not network features; the engine does not read them.
NOT_IN_ENGINE = {"CLEAR-WATER"}


@pytest.fixture
def reported(demo_city_plan) -> set[tuple[str, str, int]]:
    return {
        (v.rule_id, layer, ident)
        for v in run_rules(as_network(demo_city_plan), ARCADIA)
        for layer, ident in v.subjects
        if layer != "main" or v.rule_id == "PRESSURE-SEWER"
    }


def test_engine_reports_exactly_the_planted_breaks(demo_city_plan, reported):
    planted = {d for d in demo_city_plan.deliberate if d[0] not in NOT_IN_ENGINE}
    assert reported == planted
