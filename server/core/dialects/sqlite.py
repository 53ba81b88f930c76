"""SpatiaLite: SQLite with the SpatiaLite extension, one database file on this host.

Implements ``common.Dialect``; ``server.core.dialects.dialect_for`` picks this module
for a ``sqlite`` engine. One writer at a time: writes queue in ``writers`` and take the
write lock up front (``BEGIN IMMEDIATE``).
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import time
from collections.abc import Sequence
from contextlib import AbstractContextManager, nullcontext
from datetime import datetime
from pathlib import Path
from types import ModuleType
from typing import Any

from sqlalchemy import create_engine, event, func, select, sql, text
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.engine import URL, Engine
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session
from sqlalchemy.sql.dml import Insert
from sqlalchemy.sql.elements import ColumnElement

from server.core.dialects import common, writers
from server.core.dialects.common import AnySession, BBox, Describe

SQLITE_BUSY_TIMEOUT_MS = 15000


class SpatiaLiteUnavailable(RuntimeError):
    """mod_spatialite cannot be loaded; the message says how to install it."""


# ------------------------------------------------------------------ engine options and hooks


def sqlite_dbapi() -> ModuleType:
    """The sqlite3 module to use: the stdlib one if it can load extensions, else pysqlite3.

    Many Python builds (pyenv among them) compile sqlite3 without
    ``enable_load_extension``; pysqlite3-binary ships one that has it.
    """
    probe = sqlite3.connect(":memory:")
    try:
        if hasattr(probe, "enable_load_extension"):
            return sqlite3
    finally:
        probe.close()
    try:
        from pysqlite3 import dbapi2  # an optional fallback, imported only where it is needed
    except ImportError as exc:  # pragma: no cover - requirements.txt pins it
        raise SpatiaLiteUnavailable(
            "this Python's sqlite3 cannot load extensions; pip install pysqlite3-binary"
        ) from exc
    return dbapi2


def engine_options(connect_timeout: float | None = None) -> dict[str, Any]:
    """The sqlite3 module that can load SpatiaLite, and the busy timeout in seconds (a file
    has no connection to time out: ``connect_timeout`` is for database servers)."""
    return {"module": sqlite_dbapi(), "connect_args": {"timeout": SQLITE_BUSY_TIMEOUT_MS / 1000}}


def _keep_private(database: str | None) -> None:
    """The database file holds password hashes and owners' details: 0600, whatever made it.

    SQLite gives its -wal and -shm files the database file's mode.
    """
    if database in (None, "", ":memory:") or database.startswith("file:"):
        return
    path = Path(database)
    try:
        if path.exists() and path.stat().st_mode & 0o077:
            path.chmod(0o600)
    except OSError:  # not ours to change: `flask doctor` reports the mode
        pass


def install_engine_hooks(engine: Engine, spatialite_library: str) -> None:
    """Per-connection setup: load SpatiaLite and make SQLite transactions honest.

    Args:
        spatialite_library: What SQLite loads (the app's ``SPATIALITE_LIBRARY_PATH``).
    """

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn, _record):
        # pysqlite's implicit BEGIN breaks SAVEPOINT and transactional DDL; we emit
        # BEGIN ourselves in the "begin" hook below (SQLAlchemy's documented recipe).
        dbapi_conn.isolation_level = None
        try:
            dbapi_conn.enable_load_extension(True)
            dbapi_conn.load_extension(spatialite_library)
            dbapi_conn.enable_load_extension(False)
        except Exception as exc:
            raise SpatiaLiteUnavailable(
                f"cannot load {spatialite_library}; install it with: "
                "sudo apt-get install libsqlite3-mod-spatialite"
            ) from exc
        _keep_private(engine.url.database)
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA foreign_keys = ON")
        cur.execute(f"PRAGMA busy_timeout = {SQLITE_BUSY_TIMEOUT_MS}")
        if cur.execute("SELECT CheckSpatialMetaData()").fetchone()[0] < 1:
            cur.execute("SELECT InitSpatialMetaData(1)")
        mode = cur.execute("PRAGMA journal_mode").fetchone()[0]
        if mode.lower() == "delete" and engine.url.database not in (None, "", ":memory:"):
            # WAL lets the field sync write while the map reads.
            cur.execute("PRAGMA journal_mode = WAL")
        cur.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn):
        # A write request takes SQLite's write lock up front: a deferred transaction that
        # read first could not upgrade once another writer committed (in WAL mode that is
        # an immediate "database is locked"), so writers queue here instead.
        immediate = conn.get_execution_options().get("lateral_write", False)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")


def is_transient(exc: BaseException) -> bool:
    """Only a lock that outlasted the busy timeout is a wait; SQLite's other
    OperationalErrors (no such table, disk I/O) are faults."""
    if getattr(exc, "connection_invalidated", False):
        return True
    message = str(getattr(exc, "orig", "")).lower()
    return isinstance(exc, OperationalError) and ("locked" in message or "busy" in message)


def is_disk_full(exc: BaseException) -> bool:
    """SQLITE_FULL, which the driver reports as "database or disk is full"."""
    return "disk is full" in str(getattr(exc, "orig", None)).lower()


# ------------------------------------------------------------------ write and read transactions


def writer_turn(session: Session) -> AbstractContextManager[None]:
    """This thread's turn in the file's writers' queue (``writers``)."""
    database = session.get_bind().engine.url.database
    if not database or database == ":memory:":
        return nullcontext()  # one connection of one process: no one to queue with
    return writers.turn(database, SQLITE_BUSY_TIMEOUT_MS / 1000)


def begin_write(session: Session) -> None:
    """BEGIN IMMEDIATE: take the write lock before the first statement (``_on_begin`` above)."""
    if session.in_transaction():
        # Only reads can have happened (the login check): end that read transaction so
        # the write one starts from a fresh snapshot.
        session.commit()
    session.connection(execution_options={"lateral_write": True})


def reads_without_transaction(session: Session) -> None:
    """Nothing: SQLite keeps its read transaction, which is what holds one snapshot across statements."""


# ------------------------------------------------------------------ spatial SQL


def bbox_filter(model: Any, bbox: BBox, column_name: str) -> ColumnElement[bool]:
    """Ask the R*Tree (``idx_<table>_<column>``) for candidates, then an exact ``Intersects`` test.

    SpatiaLite does not use its spatial index unless the query names it.
    """
    minx, miny, maxx, maxy = bbox
    geom = getattr(model, column_name)
    rtree = sql.table(f"idx_{model.__tablename__}_{column_name}", sql.column("pkid"), sql.column("xmin"),
                      sql.column("xmax"), sql.column("ymin"), sql.column("ymax"))
    candidates = select(rtree.c.pkid).where(
        rtree.c.xmin <= maxx, rtree.c.xmax >= minx, rtree.c.ymin <= maxy, rtree.c.ymax >= miny
    )
    exact = func.Intersects(geom, func.BuildMbr(minx, miny, maxx, maxy, 4326)) == 1
    return model.id.in_(candidates) & exact


def as_geojson(geometry: Any) -> ColumnElement[Any]:
    return func.AsGeoJSON(geometry, common.GEOJSON_DECIMALS)


def extent(session: AnySession, model: Any, column_name: str) -> BBox | None:
    """Read off the spatial index's R*Tree, not the geometries."""
    return common.extent_of(session, f"SELECT min(xmin), min(ymin), max(xmax), max(ymax) "
                                     f"FROM idx_{model.__tablename__}_{column_name}")


def add_web_mercator_copy(table: str) -> list[str]:
    """None: SpatiaLite's tiles are encoded in Python, from the EPSG:4326 geometry."""
    return []


def drop_web_mercator_copy(table: str) -> list[str]:
    return []


# ------------------------------------------------------------------ DDL for migrations


def enable_spatial_sql() -> list[str]:
    """None: SpatiaLite is loaded on connect (``install_engine_hooks``)."""
    return []


def append_only_trigger(table: str) -> list[str]:
    return [
        f"CREATE TRIGGER {table}_no_update BEFORE UPDATE ON {table} "
        f"BEGIN SELECT RAISE(ABORT, '{table} is append-only'); END",
        f"CREATE TRIGGER {table}_no_delete BEFORE DELETE ON {table} "
        f"BEGIN SELECT RAISE(ABORT, '{table} is append-only'); END",
    ]


def drop_append_only_trigger(table: str) -> list[str]:
    return [f"DROP TRIGGER IF EXISTS {table}_no_update", f"DROP TRIGGER IF EXISTS {table}_no_delete"]


def write_once_trigger(table: str, guard: str, columns: tuple[str, ...], clearable: tuple[str, ...] = ()) -> list[str]:
    changed = " OR ".join([*(f"NEW.{c} IS NOT OLD.{c}" for c in columns),
                           *(f"(NEW.{c} IS NOT NULL AND NEW.{c} IS NOT OLD.{c})" for c in clearable)])
    columns = (*columns, *clearable)
    return [
        f"CREATE TRIGGER {table}_{guard}_write_once BEFORE UPDATE ON {table} "
        f"WHEN OLD.{guard} IS NOT NULL AND ({changed}) "
        f"BEGIN SELECT RAISE(ABORT, '{table}: {', '.join(columns)} are written once'); END",
    ]


def drop_write_once_trigger(table: str, guard: str) -> list[str]:
    return [f"DROP TRIGGER IF EXISTS {table}_{guard}_write_once"]


def insert_skipping_taken(model: Any, index_elements: list[str], index_where: Any) -> Insert:
    return sqlite_insert(model).on_conflict_do_nothing(index_elements=index_elements, index_where=index_where)



def layer_count_triggers(table: str) -> list[str]:
    """The count's own row, moved by each row written: SQLite has one writer at a time."""
    def moved(event: str, delta: str) -> str:
        return (f"CREATE TRIGGER {table}_count_{event}s AFTER {event.upper()} ON {table} BEGIN "
                f"UPDATE layer_counts SET features = features + {delta}, write_version = write_version + 1 "
                f"WHERE table_name = '{table}'; END")
    return [moved("insert", "1"), moved("delete", "-1"), moved("update", "0")]


def drop_layer_count_triggers(table: str) -> list[str]:
    return [f"DROP TRIGGER IF EXISTS {table}_count_{event}s" for event in ("insert", "delete", "update")]

def group_total_triggers(table: str, totals: str, key: str, amount: str) -> list[str]:
    """Each row written moves its key's row of ``totals``: SQLite has one writer at a time."""
    def moved(row: str, sign: str) -> str:
        value = amount.format(row=row + ".")
        return (f"UPDATE {totals} SET row_count = row_count {sign} 1, amount = amount {sign} ({value}) "
                f"WHERE {key} = {row}.{key};")
    name = f"{table}_{totals}"
    return [f"CREATE TRIGGER {name}_inserts AFTER INSERT ON {table} BEGIN {moved('NEW', '+')} END",
            f"CREATE TRIGGER {name}_deletes AFTER DELETE ON {table} BEGIN {moved('OLD', '-')} END",
            f"CREATE TRIGGER {name}_updates AFTER UPDATE ON {table} BEGIN {moved('OLD', '-')} {moved('NEW', '+')} END"]


def drop_group_total_triggers(table: str, totals: str) -> list[str]:
    return [f"DROP TRIGGER IF EXISTS {table}_{totals}_{event}" for event in ("inserts", "deletes", "updates")]


# ------------------------------------------------------------------ layer counts and write versions


def fold_layer_count(session: AnySession, table: str) -> None:
    """Nothing to fold: the triggers move the count's row itself."""


def count_within(session: AnySession, stmt: Any, seconds: float) -> int | None:
    """``stmt``'s count if SQLite finishes it within ``seconds``, else None.

    A progress handler interrupts the statement once the time is up (SQLite's own
    ``sqlite3_interrupt``); it is removed again whatever happens.
    """
    raw: Any = session.connection().connection.driver_connection
    deadline = time.monotonic() + seconds
    raw.set_progress_handler(lambda: int(time.monotonic() > deadline), 1000)
    try:
        value = session.execute(stmt).scalar()
    except OperationalError as exc:
        if "interrupted" not in str(exc.orig):
            raise
        return None
    finally:
        raw.set_progress_handler(None, 0)
    return None if value is None else int(value)


# ------------------------------------------------------------------ the audit trail, ids and statistics


def audit_high_water(session: AnySession) -> int:
    """The maximum id: SQLite has a single writer, so ids commit in order."""
    return int(session.execute(text("SELECT COALESCE(MAX(id), 0) FROM audit_events")).scalar_one())


def reset_id_sequences(session: AnySession, tables: Sequence[str]) -> None:
    """Nothing: an INTEGER PRIMARY KEY always continues from the maximum."""


def refresh_planner_statistics(session: AnySession) -> None:
    """Nothing: SQLite plans well enough without ``sqlite_stat1``, and gathering it would
    change the plans every test has run against."""


def server_version(session: AnySession) -> str:
    return "SpatiaLite " + session.execute(text("SELECT spatialite_version()")).scalar_one()


def database_clock(session: AnySession) -> datetime | None:
    """None: the database is a file on this host, and its clock is this one."""
    return None


def database_folder(url: URL) -> Path | None:
    """The folder of the database file, which fills up as the database grows."""
    return Path(url.database).parent if url.database else None


# ------------------------------------------------------------------ backup and restore


def snapshot_database(engine: Engine, dest_dir: Path, describe: Describe) -> tuple[str, dict[str, Any]]:
    """SQLite's online backup API copies the pages of one read transaction, so writers
    carry on and the copy is one instant of the file; ``describe`` then reads the copy."""
    target = dest_dir / "database.sqlite"
    source = engine.raw_connection()
    try:
        driver = source.driver_connection
        if driver is None:  # the pool hands out live connections; a detached one cannot be copied
            raise RuntimeError("the database connection was closed during the backup")
        copy = sqlite_dbapi().connect(str(target))
        try:
            driver.backup(copy)
        finally:
            copy.close()
    finally:
        source.close()
    reader = create_engine(f"sqlite:///{target}", module=sqlite_dbapi())
    try:
        with reader.connect() as conn:
            return target.name, describe(conn)
    finally:
        reader.dispose()


def restore_database(url: URL, source: Path) -> None:
    """Copy the file beside the database, flush it to disk, then rename it into place:
    a crash leaves the old file or the whole new one, never half of it."""
    if not url.database:
        raise ValueError("a restore needs a database file, not an in-memory database")
    target = Path(url.database)
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".restoring")
    shutil.copyfile(source, partial)
    with open(partial, "rb") as f:
        os.fsync(f.fileno())
    os.replace(partial, target)


def restore_preparation(url: URL) -> list[str]:
    """Nothing: the restore writes the database file itself."""
    return []


def database_is_empty(url: URL) -> bool:
    """No file (or an empty one) is an empty database, and opening it would create it."""
    path = Path(url.database or "")
    if not path.exists() or path.stat().st_size == 0:
        return True
    return not common.holds_lateral_tables(url, engine_options())
