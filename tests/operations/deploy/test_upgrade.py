"""Upgrades keep the data: a database made by an earlier commit of this repository, with
real data, migrated to head one migration at a time, loses no row, no value and no
letter hash on either engine.

The earlier commit is the last one whose newest migration was ``0004_notices`` (notices
and mailed letters had arrived; violation resolutions, tile geometry and the election
calendar had not). Its code is taken from git (``git archive``) at test time and run in
its own process: its own migrations build the database, its own demo city, rules,
tus uploads, sync push and notice commands fill it. Then this checkout's migrations
upgrade it step by step, and after each step every row of every table that existed
before must still be there with the same values in every column that still exists
(on SQLite, batch migrations rebuild whole tables: this is where they would drop data).
"""

from __future__ import annotations

import hashlib
import io
import os
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
import sqlalchemy as sa

from tests.support.databases import ENGINES, postgis_database
from tests.support.env import REPO_ROOT, need_shared, unavailable

OLD_HEAD = "0004_notices"
FIRST_AFTER = "migrations/versions/0005_violation_resolutions.py"
PHOTOS = ("es__jpg_gps_DSCN0010.jpg", "ep__nikon_D3100_TypeError.jpg")
# SpatiaLite's and PostGIS's own bookkeeping, not Lateral's data.
NOT_OURS = ("alembic_version", "spatial_ref_sys", "geometry_columns", "spatialite_history", "sqlite_sequence",
            "views_geometry_columns", "virts_geometry_columns", "geom_cols_ref_sys", "spatial_ref_sys_aux",
            "sql_statements_log", "data_licenses", "ElementaryGeometries", "KNN", "KNN2", "SpatialIndex")

FILL = r'''
"""Run inside the old checkout: build and fill a database the way that release would."""
import sys, uuid
from datetime import date, timedelta
from pathlib import Path

from flask_migrate import upgrade
from sqlalchemy import select
from tusclient import client as tus_client

from server import create_app
from server.extensions import db
from server.models import Notice, Parcel, User
from server.services import checklists, demo, rules
from server.services.auth import issue_token
from tests.uploads.helpers import LiveServer

url, work, *photos = sys.argv[1:]
work = Path(work)
app = create_app({"SQLALCHEMY_DATABASE_URI": url, "SECRET_KEY": "x" * 40,
                  "BLOB_STORE": {"backend": "local", "root": str(work / "blobs")},
                  "TUS_STAGING_DIR": str(work / "tus")})
with app.app_context():
    upgrade()
    demo.seed(parcels=200, with_users=True)
    checklists.load_templates()
    rules.run_network()
    inspector = db.session.scalar(select(User).filter_by(username="inspector"))
    token = issue_token(inspector, "before the upgrade")[0]
    parcels = db.session.scalars(select(Parcel.id).where(Parcel.site_address.is_not(None))
                                 .order_by(Parcel.id).limit(len(photos))).all()
    db.session.commit()

headers = {"Authorization": f"Bearer {token}"}
with LiveServer(app) as server:
    for parcel_id, photo in zip(parcels, photos):
        client = tus_client.TusClient(f"{server.url}/api/v1/uploads", headers=headers)
        client.uploader(photo, chunk_size=64 * 1024, metadata={"filename": Path(photo).name}).upload()
        import hashlib
        digest = hashlib.sha256(Path(photo).read_bytes()).hexdigest()
        source = {"source": "sump_pump", "discharges_to": "sanitary_sewer", "connected_to_sanitary": "yes",
                  "test": "dye", "test_result": "positive", "photo": [digest]}
        data = {"template_id": "clear-water-survey", "template_version": 1, "parcel_id": parcel_id,
                "location": {"type": "Point", "coordinates": [-91.501, 44.253]},
                "started_at": "2026-11-30T09:00:00-06:00", "finished_at": "2026-11-30T09:40:00-06:00",
                "answers": {"access": "granted", "sources": [source]},
                "photos": [{"sha256": digest, "item_id": "sources.photo", "filename": "sump.jpg"}]}
        with app.test_client() as c:
            r = c.post("/api/v1/sync/push", headers=headers,
                       json={"records": [{"uuid": str(uuid.uuid4()), "kind": "inspection", "data": data}]})
            assert r.status_code == 200, r.get_json()
            result = r.get_json()["results"][0]
            assert (result["status"], result["missing_photos"]) == (201, []), result

runner = app.test_cli_runner()
def run(*args):
    with app.app_context():
        result = runner.invoke(args=["notices", *args])
    if result.exit_code != 0:
        import traceback
        raise SystemExit(f"notices {args}: {result.output}" + "".join(traceback.format_exception(*result.exc_info)))
    return result.output

run("draft", "--as", "superintendent")
with app.app_context():
    drafts = db.session.scalars(select(Notice.id).where(Notice.state == "draft").order_by(Notice.id)).all()
assert drafts, "the old release drafted no notice"
to_mail = [str(i) for i in drafts[:6]]
run("approve", *to_mail, "--as", "superintendent")
run("mail", *to_mail[:3], "--as", "clerk", "--date", (date.today() - timedelta(days=5)).isoformat())
run("mail", *to_mail[3:], "--as", "clerk")
print("filled")
'''


def _old_commit() -> str:
    """The last commit whose newest migration was 0004 (the parent of the one adding 0005)."""
    try:
        added = subprocess.run(["git", "-C", str(REPO_ROOT), "log", "--format=%H", "--diff-filter=A", "--",
                                FIRST_AFTER], capture_output=True, text=True, check=True).stdout.split()
    except (OSError, subprocess.CalledProcessError) as exc:
        unavailable(f"git history is not available here: {exc}")
    if not added:
        unavailable("this clone's git history does not reach the commit that added migration 0005 (shallow?)")
    return f"{added[-1]}^"


def _checkout(commit: str, folder: Path) -> Path:
    archive = subprocess.run(["git", "-C", str(REPO_ROOT), "archive", "--format=tar", commit],
                             capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(folder, filter="data")
    return folder


def _snapshot(engine) -> dict[str, dict[tuple, dict]]:
    """Every row of every table of ours, by primary key: {table: {pk: {column: value}}}."""
    inspector = sa.inspect(engine)
    snapshot = {}
    with engine.connect() as conn:
        for table in inspector.get_table_names():
            if table in NOT_OURS or table.startswith(("idx_", "sqlite_")):
                continue
            key = inspector.get_pk_constraint(table)["constrained_columns"]
            rows = conn.execute(sa.text(f'SELECT * FROM "{table}"')).mappings().all()
            snapshot[table] = {tuple(row[c] for c in key) if key else tuple(row.values()): dict(row) for row in rows}
    return snapshot


def _spatial(engine) -> set[tuple]:
    """Registered geometry columns with their SRID and whether a spatial index serves them.

    Rebuilding a SpatiaLite table (Alembic's batch mode) can keep every row and still
    drop its geometry registration and spatial index: that is data loss for a map.
    """
    with engine.connect() as conn:
        if engine.dialect.name == "sqlite":
            rows = conn.exec_driver_sql("SELECT f_table_name, f_geometry_column, srid, spatial_index_enabled "
                                        "FROM geometry_columns").all()
            return {(t.lower(), c.lower(), srid, enabled == 1) for t, c, srid, enabled in rows}
        rows = conn.exec_driver_sql("SELECT f_table_name, f_geometry_column, srid FROM geometry_columns").all()
        gist = {r[0] for r in conn.exec_driver_sql(
            "SELECT tablename FROM pg_indexes WHERE indexdef ILIKE '%%USING gist%%'").all()}
        return {(t, c, srid, t in gist) for t, c, srid in rows}


def _lost(before: dict, after: dict) -> list[str]:
    """Rows, or values in columns that still exist, that were in ``before`` and are not in ``after``."""
    lost = []
    for table, rows in before.items():
        if table not in after:
            lost.append(f"table {table} ({len(rows)} rows) is gone")
            continue
        for key, row in rows.items():
            new = after[table].get(key)
            if new is None:
                lost.append(f"{table} {key}: row gone")
                continue
            changed = [c for c, v in row.items() if c in new and new[c] != v]
            if changed:
                lost.append(f"{table} {key}: {', '.join(changed)} changed")
    return lost


@pytest.mark.parametrize("kind", ENGINES)
def test_a_database_from_an_earlier_release_upgrades_to_head_keeping_every_row_and_letter(kind, tmp_path):
    from alembic.script import ScriptDirectory
    from flask_migrate import upgrade

    from server import MIGRATIONS_DIR, create_app
    from server.core.extensions import db
    from server.field.models import Photo
    from server.notices.models import MailingBatch, Notice
    from server.operations import doctor
    from server.operations.integrity import verify_instance

    photos = [str(need_shared("realdata", "photos", name)) for name in PHOTOS]
    old = _checkout(_old_commit(), tmp_path / "old")
    assert (old / "migrations" / "versions" / f"{OLD_HEAD}.py").exists()
    assert not (old / FIRST_AFTER).exists()
    drop = None
    if kind == "spatialite":
        url = f"sqlite:///{tmp_path / 'city.sqlite'}"
    else:
        url, drop = postgis_database()
    try:
        env = {**os.environ, "PYTHONPATH": str(old)}
        (tmp_path / "fill.py").write_text(FILL)
        filled = subprocess.run([sys.executable, str(tmp_path / "fill.py"), url, str(tmp_path), *photos],
                                cwd=old, env=env, capture_output=True, text=True, timeout=600)
        assert filled.returncode == 0, filled.stdout[-3000:] + filled.stderr[-5000:]

        app = create_app({"SQLALCHEMY_DATABASE_URI": url, "SECRET_KEY": "x" * 40, "TESTING": True,
                          "BLOB_STORE": {"backend": "local", "root": str(tmp_path / "blobs")},
                          "TUS_STAGING_DIR": str(tmp_path / "tus")})
        script = ScriptDirectory(MIGRATIONS_DIR)
        steps = [r.revision for r in reversed(list(script.walk_revisions("base", "heads")))]
        later = steps[steps.index(OLD_HEAD) + 1:]
        assert later, "no migration after 0004?"
        with app.app_context():
            engine = db.engine
            with engine.connect() as conn:
                assert conn.execute(sa.text("SELECT version_num FROM alembic_version")).scalar() == OLD_HEAD
            first = before = _snapshot(engine)
            spatial = _spatial(engine)
            assert spatial and all(indexed for *_, indexed in spatial)
            # Real data, as the old release made it.
            assert len(first["photos"]) == len(PHOTOS) and len(first["inspection_photos"]) == len(PHOTOS)
            assert len(first["inspections"]) == len(PHOTOS)
            mailed = [r for r in first["notices"].values() if r["letter_sha256"]]
            assert len(mailed) >= 2 and len(first["mailing_batches"]) == 2
            assert len(first["audit_events"]) > 0 and len(first["parcels"]) >= 200
            for revision in later:
                upgrade(revision=revision)
                after = _snapshot(engine)
                assert _lost(before, after) == [], f"migration {revision} lost data"
                assert spatial <= _spatial(engine), f"migration {revision} lost a geometry column or its index"
                before = after
            assert _lost(first, before) == []

            # The upgraded database is whole by this release's own checks.
            db.session.remove()
            assert all(f.ok for f in doctor.check_database(app)), doctor.check_database(app)
            for notice in db.session.scalars(sa.select(Notice).where(Notice.letter_sha256.is_not(None))):
                assert hashlib.sha256(notice.letter_pdf).hexdigest() == notice.letter_sha256
            for batch in db.session.scalars(sa.select(MailingBatch)):
                assert hashlib.sha256(batch.letters_pdf).hexdigest() == batch.letters_sha256
                assert hashlib.sha256(batch.mailing_book_pdf).hexdigest() == batch.mailing_book_sha256
            stored = {p.sha256 for p in db.session.scalars(sa.select(Photo))}
            assert stored == {hashlib.sha256(Path(p).read_bytes()).hexdigest() for p in photos}
            from server.field.api.photos import BLOBS

            assert verify_instance(app.extensions[BLOBS]) == []
            db.session.remove()
            db.engine.dispose()
    finally:
        if drop:
            drop()


def test_the_comparison_names_a_lost_row_a_changed_value_and_a_dropped_table():
    before = {"notices": {(1,): {"id": 1, "letter_sha256": "ab"}, (2,): {"id": 2, "letter_sha256": "cd"}},
              "photos": {(1,): {"id": 1}}}
    after = {"notices": {(1,): {"id": 1, "letter_sha256": "ef", "new_column": None}}}
    assert _lost(before, after) == ["notices (1,): letter_sha256 changed", "notices (2,): row gone",
                                    "table photos (1 rows) is gone"]
    assert _lost(before, before) == []
