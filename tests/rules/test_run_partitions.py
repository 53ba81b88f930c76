"""The whole-network run cell by cell (server/rules/run.py, issue #35): the same findings as
the network checked at once, with one cell's network in memory at a time."""

from __future__ import annotations

import pytest

from gis.rules import run_rules
from server.core import city
from server.network.loader import load_network
from server.rules import run as rules
from tests.support.rules import stored


@pytest.mark.parametrize("per_cell", [60, 150])
def test_cells_find_what_the_whole_network_finds(app, seeded_city_300, per_cell):
    here = city.current()
    whole = {v.key for v in run_rules(load_network(), here.rulebook, measurer=here.measurer)}
    cells = rules._cells(per_cell)
    assert cells is not None and len(cells) >= 2
    outcome = rules.Outcome("network", None)
    found = rules._found_in_cells(cells, None, outcome, lambda *_: None)
    assert [v.key for v in found] and {v.key for v in found} == whole
    assert len(found) == len(whole)  # each once


def test_a_run_in_cells_stores_what_a_run_at_once_stores(app, seeded_city_300):
    told = []
    outcome = rules.run_network(partition_parcels=60, progress=lambda *step: told.append(step))
    assert outcome.opened == len(stored()) > 0
    cells = [step for step in told if step[0] == "check"]
    assert len(cells) >= 4 and all(rule is None for *_, rule in cells)
    again = rules.run_network()  # at once: nothing new, nothing resolved
    assert (again.opened, again.resolved, again.kept) == (0, 0, outcome.opened)


def test_a_small_city_is_checked_at_once(app, seeded_city_300):
    assert rules._cells(rules.PARTITION_PARCELS) is None
