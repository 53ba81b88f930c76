"""The whole-network run through the database finds the demo city's planted breaks, only."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from gis.rulebook import load_rulebook
from gis.rules import run_rules
from server.core.audit.models import AuditEvent
from server.core.extensions import db
from server.rules import run as rules
from server.rules.models import Violation
from tests.support.demo_city import as_network
from tests.support.rules import as_deliberate, planted, stored


def test_run_finds_exactly_the_planted_breaks(seeded_city_300):
    rules.run_network()
    found = set().union(*(as_deliberate(v.rule_id, v.subjects) for v in stored()))
    assert found == planted(seeded_city_300)


def test_database_run_equals_the_pure_engine_on_the_same_city(seeded_city_300):
    expected = run_rules(as_network(seeded_city_300), load_rulebook("arcadia"))
    rules.run_network()
    rows = {v.key: v for v in stored()}
    assert sorted(rows) == sorted(v.key for v in expected)
    for v in expected:
        row = rows[v.key]
        assert (row.section, row.measured, row.limit, row.message) == (v.section, v.measured, v.limit, v.message)


def test_rerun_keeps_open_violations_without_duplicating(seeded_city_300):
    first = rules.run_network()
    second = rules.run_network()
    assert first.opened == first.found > 0
    assert (second.opened, second.kept, second.resolved) == (0, first.found, 0)
    assert db.session.scalar(select(func.count()).select_from(Violation)) == first.found


def test_a_run_is_one_audit_row_with_its_counts(seeded_city_300):
    before = db.session.scalar(select(func.count()).select_from(AuditEvent))
    outcome = rules.run_network()
    rows = db.session.scalars(select(AuditEvent).order_by(AuditEvent.id.desc())).all()
    assert len(rows) == before + 1
    assert (rows[0].action, rows[0].after["opened"]) == ("rules_run", outcome.opened)


def test_a_rule_filter_opens_and_resolves_only_that_rule(seeded_city_300):
    rules.run_network()
    backflow = rules.run_network(only=["BACKFLOW-VALVE"])
    assert backflow.kept == len([d for d in planted(seeded_city_300) if d[0] == "BACKFLOW-VALVE"])
    assert {v.rule_id for v in stored()} == {d[0] for d in planted(seeded_city_300)}


def test_a_key_opened_meanwhile_by_another_writer_is_not_duplicated(seeded_city_300):
    from server.rules.run import Outcome, _reconcile

    found = run_rules(as_network(seeded_city_300), load_rulebook("arcadia"))
    rules.run_network()
    # As if a concurrent save had opened them after this run read the open rows.
    _reconcile(found, [], Outcome("network", None))
    assert len(stored()) == len(found)


@pytest.mark.parametrize("layer", ["parcels", "mains", "manholes", "laterals", "taps", "tracer_wires",
                                   "service_areas"])
def test_the_loaded_network_is_the_generated_one(seeded_city_300, layer):
    from server.network.loader import load_network

    assert getattr(load_network(), layer) == getattr(as_network(seeded_city_300), layer)
