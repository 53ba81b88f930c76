"""The whole-network run cell by cell (server/rules/run.py, issue #35): the same findings as
the network checked at once, with one cell's network in memory at a time."""

from __future__ import annotations

import pytest
import shapely
from geoalchemy2.shape import from_shape, to_shape
from sqlalchemy import insert, select, update

from gis.rules import run_rules
from server.core import city
from server.core.extensions import db
from server.core.models import utcnow
from server.network.loader import BY_SUBJECT, load_network
from server.network.models import Tap
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


def _violations() -> list[tuple]:
    """Every violation as a run leaves it, without ids and times (inserts may come in another order)."""
    V = rules.V
    rows = db.session.execute(select(V.c.key, V.c.status, V.c.rule_id, V.c.section, V.c.subject_type,
                                     V.c.subject_id, V.c.measured, V.c.limit, V.c.message, V.c.waiver_reason,
                                     V.c.version)).all()
    return sorted(tuple(r) for r in rows)


def _unsettle(opened: int) -> None:
    """Every kind of reconciliation for the next run: a violation to open again, one to
    re-measure, one waived, one to resolve in its cell, and one whose feature is gone."""
    V = rules.V
    keys = list(db.session.scalars(select(V.c.key).where(V.c.status == "open").order_by(V.c.key)))
    assert len(keys) == opened >= 3
    db.session.execute(update(V).where(V.c.key == keys[0]).values(status="resolved"))
    db.session.execute(update(V).where(V.c.key == keys[1]).values(measured=-1.0))
    db.session.execute(update(V).where(V.c.key == keys[2]).values(status="waived", waiver_reason="by hand"))
    tap = db.session.scalar(select(Tap.id).order_by(Tap.id))
    now = utcnow()
    for key, ident in ((f"TAP-QUADRANT||tap:{tap}", tap), ("TAP-QUADRANT||tap:999999", 999999)):
        db.session.execute(insert(V).values(
            rule_id="TAP-QUADRANT", section="315-13B(3)", key=key, status="open", source="rules",
            subject_type="tap", subject_id=ident, subjects=[["tap", ident]], message="stale", opened_at=now,
            created_at=now, updated_at=now, version=1))
    db.session.flush()


def test_reconciling_by_cells_leaves_what_reconciling_at_once_leaves(app, seeded_city_300):
    first = rules.run_network()
    _unsettle(first.opened)
    with db.session.begin_nested() as savepoint:
        by_cells = rules.run_network(partition_parcels=60)
        left_by_cells = _violations()
        savepoint.rollback()
    at_once = rules.run_network()
    counted = ("found", "opened", "kept", "resolved", "waived_skipped", "predating")
    assert [getattr(by_cells, c) for c in counted] == [getattr(at_once, c) for c in counted]
    assert (at_once.opened, at_once.resolved) == (1, 2) and at_once.waived_skipped == 1
    assert left_by_cells == _violations()


def test_each_cell_reads_only_the_open_violations_it_holds(app, seeded_city_300, monkeypatch):
    opened = rules.run_network().opened
    read = []
    for name in ("_open_rows", "_open_rows_held"):
        reading = getattr(rules, name)
        monkeypatch.setattr(rules, name, lambda *a, reading=reading, **k: read.append(len(rows := reading(*a, **k)))
                            or rows)
    again = rules.run_network(partition_parcels=60)
    assert again.kept == opened and sum(read) == opened
    assert len(read) >= 5 and max(read) < opened / 2


def _hooked_far_out(model, ident: int, reach: float) -> None:
    """Give a line feature a hook: from its end, ``reach`` degrees north, east, then south.
    The middle of its bounds then lies far inside the hook, more than 200 ft from the line."""
    feature = db.session.get(model, ident)
    line = to_shape(feature.geom)
    x, y = line.coords[-1]
    hooked = shapely.LineString([*line.coords, (x, y + reach), (x + reach, y + reach), (x + reach, y)])
    feature.geom = from_shape(hooked, srid=4326)
    db.session.flush()


def test_a_feature_far_from_the_middle_of_its_bounds_is_still_checked_by_cells(app, seeded_city_300):
    """A bent main or lateral whose bounds' middle is off the line, farther than a cell loads
    around itself: the cell that holds it must still have loaded it (it is held by a point on
    its own geometry), or its findings would be found by no cell at all."""
    here = city.current()
    findings = run_rules(load_network(), here.rulebook, measurer=here.measurer)
    subject, ident = next(tuple(v.subjects[0]) for v in findings if v.subjects[0][0] in ("main", "lateral"))
    _hooked_far_out(BY_SUBJECT[subject].model, ident, reach=0.2)  # ≈ 14 km a side: the city is ≈ 1 km
    after = run_rules(load_network(), here.rulebook, measurer=here.measurer)
    assert any(tuple(v.subjects[0]) == (subject, ident) for v in after)  # it is still some finding's subject
    whole = {v.key for v in after}
    cells = rules._cells(60)
    assert cells is not None and len(cells) >= 4
    found = rules._found_in_cells(cells, None, rules.Outcome("network", None), lambda *_: None)
    assert {v.key for v in found} == whole
