"""Each layer's count and write version, kept by triggers (server/network/counts.py, issue #35).

``numberMatched`` of an unfiltered first page reads the count and must stay exact after
Lateral's writes and after SQL typed outside Lateral, on both databases; a filtered
count is exact within its time budget, or left out.
"""

from __future__ import annotations

import pytest
from sqlalchemy import text

from server.core.dialects import count_within
from server.core.extensions import db
from server.network import counts
from server.network.layers import LAYERS
from tests.support.features import X, Y, add_manholes, delete_manhole, read_page

FIRST_PAGE = "/ogc/collections/manholes/items?limit=2"


def _matched(client, auth, url=FIRST_PAGE):
    return read_page(client, auth, url)[2].get("numberMatched")


def _counted_by_hand() -> int:
    return db.session.scalar(text("SELECT count(*) FROM manholes"))


def _insert_by_hand(n: int) -> None:
    """Rows written as ``psql`` or ``sqlite3`` would: no Lateral code runs."""
    for i in range(n):
        db.session.execute(text(
            "INSERT INTO manholes (kind, geom, version, created_at, updated_at) VALUES "
            "('manhole', ST_GeomFromText(:wkt, 4326), 1, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)"),
            {"wkt": f"POINT({X + i * 0.0001} {Y})"})
    db.session.commit()


def test_every_layer_table_is_counted_by_triggers(app):
    for layer in LAYERS.values():
        assert counts.counted(layer) is not None, layer.name


def test_the_count_follows_lateral_writes(client, auth, app):
    before = _matched(client, auth)
    assert before == _counted_by_hand()
    ids = add_manholes(client, auth, 5)
    assert _matched(client, auth) == before + 5
    delete_manhole(client, auth, ids[0])
    assert _matched(client, auth) == before + 4 == _counted_by_hand()


def test_the_count_follows_sql_typed_outside_lateral(client, auth, app):
    before = _matched(client, auth)
    _insert_by_hand(3)
    assert _matched(client, auth) == before + 3
    db.session.execute(text("DELETE FROM manholes WHERE id = (SELECT max(id) FROM manholes)"))
    db.session.commit()
    assert _matched(client, auth) == before + 2 == _counted_by_hand()
    db.session.execute(text("DELETE FROM manholes"))
    db.session.commit()
    assert _matched(client, auth) == 0


def test_the_count_does_not_read_the_table(client, auth, app):
    """Proof the number comes from the counter: a counter set wrong by hand is what is sent."""
    add_manholes(client, auth, 3)
    db.session.execute(text("UPDATE layer_counts SET features = features + 1000 WHERE table_name = 'manholes'"))
    db.session.commit()
    assert _matched(client, auth) == _counted_by_hand() + 1000


def test_the_write_version_rises_with_every_write(client, auth, app):
    layer = LAYERS["manholes"]
    first = counts.write_version(layer)
    ids = add_manholes(client, auth, 1)
    second = counts.write_version(layer)
    db.session.execute(text("UPDATE manholes SET rim_elev_ft = 700 WHERE id = :id"), {"id": ids[0]})
    db.session.commit()
    third = counts.write_version(layer)
    assert first < second < third


def test_deltas_are_folded_by_the_next_lateral_write(client, auth, app, db_kind):
    _insert_by_hand(2)
    layer = LAYERS["manholes"]
    before = counts.counted(layer)
    add_manholes(client, auth, 1)
    left = db.session.scalar(text("SELECT count(*) FROM layer_count_deltas WHERE table_name = 'manholes'"))
    assert left == 0
    after = counts.counted(layer)
    assert after[0] == before[0] + 1 and after[1] > before[1]


def test_a_filtered_first_page_is_counted_within_its_budget(client, auth, app):
    add_manholes(client, auth, 4)
    box = f"&bbox={X - 0.0001},{Y - 0.0001},{X + 0.0007},{Y + 0.0001}"  # 3 of them
    assert _matched(client, auth, FIRST_PAGE + box) == 3


def test_a_filtered_count_over_its_budget_is_left_out(client, auth, app, monkeypatch):
    add_manholes(client, auth, 4)
    monkeypatch.setattr(counts, "count_within", lambda session, stmt, seconds: None)
    box = f"&bbox={X - 0.0001},{Y - 0.0001},{X + 0.0007},{Y + 0.0001}"  # 3 of them
    body = read_page(client, auth, FIRST_PAGE + box)[2]
    assert "numberMatched" not in body and len(body["features"]) == 2
    assert _matched(client, auth) is not None  # the whole layer's count costs no counting


SLOW = text("WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 100000000) "
            "SELECT count(*) FROM r")


@pytest.mark.parametrize("seconds", [0.05])
def test_a_count_past_its_budget_is_stopped_and_the_connection_still_works(app, seconds):
    assert count_within(db.session, SLOW, seconds) is None
    assert count_within(db.session, text("SELECT count(*) FROM manholes"), 5) == _counted_by_hand()
    assert db.session.scalar(text("SELECT 1")) == 1


def test_a_count_past_its_budget_outside_a_transaction_leaves_the_connection_as_it_was(app, db_kind):
    """A GIS read runs in autocommit on PostgreSQL (server/core/web/reads.py): no savepoint there."""
    from sqlalchemy.orm import Session

    with db.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
        session = Session(bind=connection)
        assert count_within(session, SLOW, 0.05) is None
        if db_kind == "postgis":
            assert session.scalar(text("SHOW statement_timeout")) == "0"
        assert session.scalar(text("SELECT 1")) == 1
        session.close()


def test_an_import_leaves_the_count_exact_and_folded(app, tmp_path, db_kind):
    """The import's bulk INSERT goes around the feature service; the triggers count it and the
    import folds what they appended."""
    import json

    from server.network.imports import import_layer

    layer = LAYERS["manholes"]
    before = counts.feature_count(layer)
    path = tmp_path / "manholes.geojson"
    path.write_text(json.dumps({"type": "FeatureCollection", "features": [
        {"type": "Feature", "geometry": {"type": "Point", "coordinates": [X + i * 0.0001, Y]},
         "properties": {"facility_id": f"MH-IMP-{i}", "kind": "manhole"}} for i in range(3)]}))
    import_layer(path, "manholes")
    assert counts.feature_count(layer) == before + 3 == _counted_by_hand()
    assert db.session.scalar(text("SELECT count(*) FROM layer_count_deltas WHERE table_name = 'manholes'")) == 0


def test_the_demo_city_leaves_its_counts_exact_and_folded(app):
    """The seed loads in batches around the feature service, as an import does, and folds
    the deltas its batches appended: no first page or tile sums them until the first edit."""
    from server.demo import seed as demo

    demo.seed(parcels=200, with_users=False)
    assert db.session.scalar(text("SELECT count(*) FROM layer_count_deltas")) == 0
    assert counts.feature_count(LAYERS["parcels"]) == 200
