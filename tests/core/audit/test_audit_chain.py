"""The audit trail is a hash chain; ``flask audit verify`` finds a row changed behind the
application's back (issue 15, item 9)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from threading import Barrier

import pytest
from flask_migrate import downgrade, upgrade
from sqlalchemy import func, select, text

from server.core.audit import trail as audit
from server.core.audit.models import AuditChain, AuditEvent
from server.core.dialects import append_only_trigger, drop_append_only_trigger
from server.core.extensions import db
from tests.support.databases import ENGINES, fresh_app


def _write_trail(n: int = 5) -> list[int]:
    """``n`` audit rows; their ids."""
    for i in range(n):
        audit.record("update", "parcel", i, {"owner": "Smith & <Sons", "n": i}, {"owner": "ANN KULIG", "at": [1.5, i]})
    db.session.flush()
    return list(db.session.scalars(select(AuditEvent.id).order_by(AuditEvent.id.desc()).limit(n)))[::-1]


def _behind_the_apps_back(*statements: str) -> None:
    """Run SQL with the append-only trigger dropped, as someone with the database's password could."""
    bind = db.session.connection()
    for sql in drop_append_only_trigger(bind, "audit_events"):
        db.session.execute(text(sql))
    for sql in statements:
        db.session.execute(text(sql))
    for sql in append_only_trigger(bind, "audit_events"):
        db.session.execute(text(sql))


def _verify(app):
    return app.test_cli_runner().invoke(args=["audit", "verify"])


def test_each_row_chains_onto_the_one_before(app):
    ids = _write_trail()

    rows = db.session.execute(select(AuditEvent).order_by(AuditEvent.id)).scalars().all()
    assert all(len(r.row_hash) == 64 for r in rows)
    assert rows[0].row_hash == audit.chain_hash(audit.GENESIS, {c: getattr(rows[0], c) for c in
                                                                ("at", "user_id", "action", "subject_type",
                                                                 "subject_id", "before", "after")})
    assert db.session.execute(select(AuditChain.last_id, AuditChain.last_hash)).one() == (ids[-1], rows[-1].row_hash)
    report = audit.verify(db.session)
    assert report.intact and report.rows == len(rows) and report.head == rows[-1].row_hash


def test_verify_passes_on_an_untouched_trail(app):
    _write_trail()

    result = _verify(app)

    assert result.exit_code == 0, result.output
    assert "audit chain intact" in result.output


@pytest.mark.parametrize("edit", [
    "UPDATE audit_events SET action = 'waive' WHERE id = {id}",
    "UPDATE audit_events SET subject_id = 99 WHERE id = {id}",
    "UPDATE audit_events SET user_id = NULL, subject_type = 'notice' WHERE id = {id}",
])
def test_verify_names_a_row_edited_behind_the_apps_back(app, edit):
    ids = _write_trail()
    _behind_the_apps_back(edit.format(id=ids[2]))

    result = _verify(app)

    assert result.exit_code == 1
    assert f"audit chain broken at row {ids[2]}" in result.output


def test_verify_names_a_row_whose_json_was_edited(app):
    ids = _write_trail()
    _behind_the_apps_back(f"UPDATE audit_events SET after = NULL WHERE id = {ids[1]}")

    result = _verify(app)

    assert result.exit_code == 1 and f"broken at row {ids[1]}" in result.output


def test_a_removed_row_breaks_the_next_one(app):
    ids = _write_trail()
    _behind_the_apps_back(f"DELETE FROM audit_events WHERE id = {ids[2]}")

    result = _verify(app)

    assert result.exit_code == 1 and f"broken at row {ids[3]}" in result.output


def test_rows_removed_from_the_end_leave_the_head_pointing_past_the_last_row(app):
    ids = _write_trail()
    _behind_the_apps_back(f"DELETE FROM audit_events WHERE id >= {ids[3]}")

    result = _verify(app)

    assert result.exit_code == 1
    assert f"broken at row {ids[-1]}: it is the chain's recorded head, but the last row is {ids[2]}" in result.output


def test_the_api_writes_chained_rows(client, auth):
    """Audit rows written by a real request (a parcel created over the API) chain too."""
    before = db.session.scalar(select(func.count(AuditEvent.id)))
    r = client.post("/api/v1/parcels", headers=auth["admin"], json={
        "type": "Feature", "properties": {"parcel_number": "206-99999-0000", "owner_name": "Smith & <Sons"},
        "geometry": {"type": "MultiPolygon", "coordinates": [[[[-91.5, 44.25], [-91.4999, 44.25],
                                                               [-91.4999, 44.2501], [-91.5, 44.25]]]]}})

    assert r.status_code == 201, r.get_json()
    assert db.session.scalar(select(func.count(AuditEvent.id))) > before
    assert audit.verify(db.session).intact


@pytest.mark.parametrize("kind", ENGINES)
def test_the_migration_chains_the_rows_written_before_it(kind, tmp_path):
    with fresh_app(kind, tmp_path) as app, app.app_context():
        downgrade(revision="0007_election_calendar")
        for i in range(3):
            db.session.execute(text(
                "INSERT INTO audit_events (at, action, subject_type, subject_id, before, after) "
                "VALUES (:at, 'create', 'parcel', :i, NULL, :after)"),
                {"at": f"2026-11-0{i + 1} 10:00:00.12345{i}+00:00", "i": i, "after": '{"owner": "Smith & <Sons"}'})
        db.session.commit()
        upgrade()

        hashes = db.session.scalars(select(AuditEvent.row_hash).order_by(AuditEvent.id)).all()
        assert len(hashes) >= 3 and all(hashes)
        assert audit.verify(db.session).intact
        audit.record("update", "parcel", 1, None, {"owner": "x"})
        db.session.commit()
        assert audit.verify(db.session).rows == len(hashes) + 1
        db.session.remove()


@pytest.mark.parametrize("kind", ENGINES)
def test_concurrent_writers_keep_one_chain(kind, tmp_path):
    threads = 4
    with fresh_app(kind, tmp_path) as app:
        barrier = Barrier(threads)

        def write(n):
            with app.app_context():
                barrier.wait()
                for i in range(10):
                    audit.record("update", "parcel", n * 100 + i, None, {"i": i})
                    db.session.commit()
                db.session.remove()

        with ThreadPoolExecutor(threads) as pool:
            list(pool.map(write, range(threads)))
        with app.app_context():
            report = audit.verify(db.session)
            assert report.intact, report
            assert db.session.scalar(select(func.count(AuditEvent.id))) == report.rows >= threads * 10
            db.session.remove()


def test_the_instance_check_names_a_broken_chain_too(app):
    """``flask verify`` (after a restore, or nightly) includes the chain."""
    from server.operations.integrity import verify_instance

    ids = _write_trail()
    assert not [p for p in verify_instance(app.extensions["lateral_blobs"], hash_blobs=False) if "audit" in p]
    _behind_the_apps_back(f"UPDATE audit_events SET subject_id = 7 WHERE id = {ids[0]}")

    problems = verify_instance(app.extensions["lateral_blobs"], hash_blobs=False)

    assert f"audit trail: row {ids[0]} does not match its content and the previous row's hash" in problems


# ------------------------------------------------------------------ anchors outside the database (issue 30)


def _cut_the_tail(ids: list[int], n: int) -> None:
    """Delete the last ``n`` rows and rewind the chain's head row to the row before them."""
    keep = ids[-n - 1]
    head = db.session.scalar(select(AuditEvent.row_hash).where(AuditEvent.id == keep))
    _behind_the_apps_back(f"DELETE FROM audit_events WHERE id > {keep}",
                          f"UPDATE audit_chain SET last_id = {keep}, last_hash = '{head}'")


def test_a_cut_tail_with_a_rewound_head_passes_without_anchors(app):
    """What an anchor is for: the database alone cannot tell."""
    _cut_the_tail(_write_trail(6), 2)
    assert _verify(app).exit_code == 0


def test_verify_finds_a_cut_tail_against_the_anchor_a_backup_or_tick_wrote(app):
    from server.core.audit.anchors import anchor, read_anchors

    ids = _write_trail(6)
    written = anchor(db.session, "tick")
    assert read_anchors()[-1].rows == written.rows and written.head == db.session.scalar(
        select(AuditEvent.row_hash).where(AuditEvent.id == ids[-1]))
    assert _verify(app).exit_code == 0
    _cut_the_tail(ids, 2)
    result = _verify(app)
    assert result.exit_code == 1 and "cut off the end" in result.output


def test_the_daily_tick_appends_an_anchor(app):
    from server.core.audit.anchors import read_anchors

    _write_trail(2)
    assert app.test_cli_runner().invoke(args=["notices", "tick"]).exit_code == 0
    assert read_anchors()[-1].source == "tick"
