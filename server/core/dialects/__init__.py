"""The one seam where SpatiaLite and PostGIS differ.

Laid out as GeoAlchemy2's ``admin/dialects/``: one module per engine, ``sqlite``
(SpatiaLite) and ``postgresql`` (PostGIS), each defining every function of the interface
``common.Dialect``, and a selector, :func:`dialect_for`, that returns the module for a
session, an engine or connection, a database URL or an engine's name. ``common`` holds
the interface and what is the same SQL on both; ``writers`` the SQLite writers' queue.

The functions below are what the rest of the server calls (``from server.core.dialects
import bbox_filter``): each asks the selector and hands over. The choice of engine is
made here and only here; neither the callers nor the engine modules ask "which database?".
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from pathlib import Path
from typing import Any

from sqlalchemy.engine import URL, Connection, Engine, make_url
from sqlalchemy.orm import Session, scoped_session
from sqlalchemy.sql.dml import Insert
from sqlalchemy.sql.elements import ColumnElement

from server.core.dialects import postgresql, sqlite
from server.core.dialects.common import (
    GEOJSON_DECIMALS,
    SPATIALITE_BOOKKEEPING,
    WEB_MERCATOR_COLUMN,
    WEB_MERCATOR_TABLES,
    AnySession,
    BBox,
    Describe,
    Dialect,
    advance_audit_chain,
    allocate_serials,
    audit_chain_head,
    in_model_comparison,
    layer_count,
    layer_version_read,
)
from server.core.dialects.postgresql import libpq_url
from server.core.dialects.sqlite import SQLITE_BUSY_TIMEOUT_MS, SpatiaLiteUnavailable, sqlite_dbapi
from server.core.dialects.writers import WriterQueue as _WriterQueue  # tests/sync drive the queue itself

__all__ = [
    "GEOJSON_DECIMALS", "SPATIALITE_BOOKKEEPING", "SQLITE_BUSY_TIMEOUT_MS", "WEB_MERCATOR_COLUMN",
    "WEB_MERCATOR_TABLES", "Dialect", "SpatiaLiteUnavailable", "_WriterQueue",
    # the selector
    "dialect_for", "engine_name", "is_sqlite",
    # engine options and hooks
    "engine_options", "install_engine_hooks", "is_disk_full", "is_transient", "sqlite_dbapi",
    # write and read transactions
    "begin_write", "reads_without_transaction", "writer_turn",
    # spatial SQL
    "add_web_mercator_copy", "as_geojson", "bbox_filter", "postgis_bbox_shape", "drop_web_mercator_copy", "extent",
    # DDL for migrations
    "append_only_trigger", "drop_append_only_trigger", "drop_write_once_trigger", "enable_spatial_sql",
    "in_model_comparison", "insert_skipping_taken", "write_once_trigger",
    "drop_layer_count_triggers", "layer_count_triggers", "drop_group_total_triggers", "group_total_triggers",
    # layer counts and write versions
    "count_within", "fold_layer_count", "layer_count", "layer_version_read",
    # the audit trail, ids and statistics
    "advance_audit_chain", "allocate_serials", "audit_chain_head", "audit_high_water", "database_clock",
    "database_folder", "refresh_planner_statistics", "reset_id_sequences", "server_version",
    # backup and restore
    "database_is_empty", "libpq_url", "restore_database", "snapshot_database",
]

#: The engines Lateral runs on, by SQLAlchemy's backend name.
ENGINES: dict[str, Dialect] = {"sqlite": sqlite, "postgresql": postgresql}

#: What the selector accepts: a session, an Engine or Connection, a URL (object or string) or a name.
BindOrName = AnySession | Engine | Connection | URL | str


# ------------------------------------------------------------------ the selector


def engine_name(bind_or_name: BindOrName) -> str:
    """SQLAlchemy's backend name (``sqlite``, ``postgresql``) of a session, bind, URL or name."""
    if isinstance(bind_or_name, URL):
        return bind_or_name.get_backend_name()
    if isinstance(bind_or_name, str):
        return make_url(bind_or_name).get_backend_name() if "://" in bind_or_name else bind_or_name
    if isinstance(bind_or_name, Session | scoped_session):
        return bind_or_name.get_bind().dialect.name
    return bind_or_name.dialect.name


def dialect_for(bind_or_name: BindOrName) -> Dialect:
    """The engine module for a session, an Engine or Connection, a URL or an engine's name.

    Raises:
        ValueError: The database is neither SpatiaLite nor PostGIS.
    """
    name = engine_name(bind_or_name)
    try:
        return ENGINES[name]
    except KeyError:
        raise ValueError(f"Lateral runs on SpatiaLite (sqlite) or PostGIS (postgresql), not {name!r}") from None


def _dialect_raising(exc: BaseException) -> Dialect:
    """The engine whose driver raised ``exc``: a DBAPI error carries its driver's exception, not its engine.

    An error with no driver exception behind it (the pool's, SQLAlchemy's own) is judged
    as PostgreSQL's, whose rules for it are SQLAlchemy's exception classes.
    """
    driver = type(getattr(exc, "orig", None)).__module__  # sqlite3, pysqlite3.dbapi2, psycopg.errors
    return sqlite if "sqlite" in driver else postgresql


def is_sqlite(bind: BindOrName) -> bool:
    """For the two hot paths that pick their engine's way themselves (docs/architecture.md)."""
    return engine_name(bind) == "sqlite"


def _real(session: AnySession) -> Session:
    return session() if isinstance(session, scoped_session) else session


# ------------------------------------------------------------------ engine options and hooks


def engine_options(database_url: str | URL, connect_timeout: float | None = None) -> dict[str, Any]:
    """Extra ``create_engine`` keyword arguments for the database at ``database_url``; a
    database server that does not accept a connection within ``connect_timeout`` seconds
    is a transient failure (503), not a held worker."""
    return dialect_for(database_url).engine_options(connect_timeout)


def install_engine_hooks(engine: Engine, spatialite_library: str = "mod_spatialite") -> None:
    """Per-connection setup (SpatiaLite: load ``spatialite_library``, and make SQLite transactions honest)."""
    dialect_for(engine).install_engine_hooks(engine, spatialite_library)


def is_transient(exc: BaseException) -> bool:
    """Whether a DBAPI error means "the database is away or busy; the same request may succeed later"."""
    return _dialect_raising(exc).is_transient(exc)


def is_disk_full(exc: BaseException) -> bool:
    """Whether a DBAPI error is the database's disk being full."""
    return _dialect_raising(exc).is_disk_full(exc)


# ------------------------------------------------------------------ write and read transactions


def writer_turn(session: AnySession) -> AbstractContextManager[None]:
    """A context in which this thread is the only writer to the database (SQLite files).

    Wraps a write transaction from before its ``BEGIN IMMEDIATE`` to after its commit
    or rollback. PostgreSQL locks rows, not the database: nothing to wait for.
    """
    real = _real(session)
    return dialect_for(real).writer_turn(real)


def begin_write(session: AnySession) -> None:
    """Start ``session``'s transaction as a write transaction (SQLite: BEGIN IMMEDIATE).

    Called before the request's service runs, when only reads (the login check) have
    happened. PostgreSQL's row locks and version checks need nothing up front.
    """
    real = _real(session)
    dialect_for(real).begin_write(real)


def reads_without_transaction(session: AnySession) -> None:
    """PostgreSQL: run the rest of ``session``'s statements in autocommit (``postgresql`` says why).

    SQLite keeps its read transaction: there it is what holds one snapshot across statements.
    """
    real = _real(session)
    dialect_for(real).reads_without_transaction(real)


# ------------------------------------------------------------------ spatial SQL


def bbox_filter(model: Any, bbox: BBox, dialect_name: str, column_name: str = "geom") -> ColumnElement[bool]:
    """A WHERE clause selecting rows of ``model`` whose geometry intersects ``bbox``.

    PostGIS uses its GiST index through ``ST_Intersects``; SpatiaLite needs its R*Tree
    (``idx_<table>_<column>``) asked explicitly, then an exact ``Intersects`` test.
    """
    return dialect_for(dialect_name).bbox_filter(model, bbox, column_name)


def postgis_bbox_shape(bbox: BBox) -> bool:
    """Whether PostGIS's ``bbox_filter`` gives this window its inside test: the one thing
    besides the values that shapes its statement (a statement compiled once per shape
    serves every window of that shape, as map tiles do)."""
    return postgresql.bbox_shape(bbox)


def as_geojson(geometry: Any, dialect_name: str) -> ColumnElement[Any]:
    """SQL giving a geometry column as RFC 7946 GeoJSON geometry text (NULL stays NULL).

    Both engines write the same text for the same geometry (no ``crs`` member for
    EPSG:4326), so feature pages are made in the database, not by GEOS in Python.
    """
    return dialect_for(dialect_name).as_geojson(geometry)


def extent(session: AnySession, model: Any, column_name: str = "geom") -> BBox | None:
    """(minx, miny, maxx, maxy) of a table's geometries, or None when it is empty.

    Read off the spatial index on both engines, not from every geometry.
    """
    return dialect_for(session).extent(session, model, column_name)


def add_web_mercator_copy(bind: BindOrName, table: str) -> list[str]:
    """DDL adding ``table``'s stored web-mercator geometry (none on SpatiaLite)."""
    return dialect_for(bind).add_web_mercator_copy(table)


def drop_web_mercator_copy(bind: BindOrName, table: str) -> list[str]:
    return dialect_for(bind).drop_web_mercator_copy(table)


# ------------------------------------------------------------------ DDL for migrations


def enable_spatial_sql(bind: BindOrName) -> list[str]:
    """DDL that makes the database spatial (SpatiaLite does it on connect)."""
    return dialect_for(bind).enable_spatial_sql()


def append_only_trigger(bind: BindOrName, table: str) -> list[str]:
    """DDL that makes ``table`` append-only on the current database."""
    return dialect_for(bind).append_only_trigger(table)


def drop_append_only_trigger(bind: BindOrName, table: str) -> list[str]:
    return dialect_for(bind).drop_append_only_trigger(table)


def write_once_trigger(bind: BindOrName, table: str, guard: str, columns: tuple[str, ...],
                       clearable: tuple[str, ...] = ()) -> list[str]:
    """DDL that refuses to change ``columns`` of a row once ``guard`` is set.

    For evidence written once (a mailed letter, its SHA-256 and article number): the
    application refuses too, but the database holds even against a stray UPDATE. A
    ``clearable`` column may be emptied but not changed to another value (a mailing
    voided the day it was recorded).
    """
    return dialect_for(bind).write_once_trigger(table, guard, columns, clearable)


def drop_write_once_trigger(bind: BindOrName, table: str, guard: str) -> list[str]:
    return dialect_for(bind).drop_write_once_trigger(table, guard)


def insert_skipping_taken(bind: BindOrName, model: Any, index_elements: list[str], index_where: Any) -> Insert:
    """INSERT that skips rows a partial unique index already holds (another writer got
    there first) instead of failing: ``ON CONFLICT … DO NOTHING`` on both databases."""
    return dialect_for(bind).insert_skipping_taken(model, index_elements, index_where)


def layer_count_triggers(bind: BindOrName, table: str) -> list[str]:
    """DDL: triggers keeping ``table``'s row in ``layer_counts`` true under every write (issue #35)."""
    return dialect_for(bind).layer_count_triggers(table)


def drop_layer_count_triggers(bind: BindOrName, table: str) -> list[str]:
    return dialect_for(bind).drop_layer_count_triggers(table)


def group_total_triggers(bind: BindOrName, table: str, totals: str, key: str, amount: str) -> list[str]:
    """DDL: triggers keeping ``totals`` (one row per value of ``table``'s ``key``: ``row_count``
    and ``amount``, the sum of an SQL expression over each row's columns written with
    ``{row}`` before each column name) true under every write: the permit register's totals
    by state. The rows of ``totals`` must exist (one per value the key may take)."""
    return dialect_for(bind).group_total_triggers(table, totals, key, amount)


def drop_group_total_triggers(bind: BindOrName, table: str, totals: str) -> list[str]:
    return dialect_for(bind).drop_group_total_triggers(table, totals)


# ------------------------------------------------------------------ layer counts and write versions


def fold_layer_count(session: AnySession, table: str) -> None:
    """Fold what the triggers appended into ``table``'s count row, if that needs no wait."""
    dialect_for(session).fold_layer_count(session, table)


def count_within(session: AnySession, stmt: Any, seconds: float) -> int | None:
    """Run a ``SELECT count(...)``; None if it takes longer than ``seconds``."""
    return dialect_for(session).count_within(session, stmt, seconds)


# ------------------------------------------------------------------ the audit trail, ids and statistics


def audit_high_water(session: AnySession) -> int:
    """The highest ``audit_events.id`` below which every change has committed."""
    return dialect_for(session).audit_high_water(session)


def reset_id_sequences(session: AnySession, tables: Sequence[str]) -> None:
    """After inserting rows with explicit ids, move PostgreSQL's id sequences past them.

    SQLite's INTEGER PRIMARY KEY needs nothing: it always continues from the maximum.
    """
    dialect_for(session).reset_id_sequences(session, tables)


def refresh_planner_statistics(session: AnySession) -> None:
    """After a bulk load, gather the statistics the planner needs (PostgreSQL's ANALYZE).

    Runs in the caller's transaction, like every function here: the caller commits.
    """
    dialect_for(session).refresh_planner_statistics(session)


def server_version(session: AnySession) -> str:
    """Spatial library version, shown by the health check."""
    return dialect_for(session).server_version(session)


def database_clock(session: AnySession) -> datetime | None:
    """The database server's clock, or None where the database is a file on this host."""
    return dialect_for(session).database_clock(session)


def database_folder(engine: Engine) -> Path | None:
    """The folder on this host the database grows in, or None where its disk is another server's."""
    return dialect_for(engine).database_folder(engine.url)


# ------------------------------------------------------------------ backup and restore


def snapshot_database(engine: Engine, dest_dir: str | Path, describe: Describe) -> tuple[str, dict[str, Any]]:
    """Write a consistent copy of the whole database into ``dest_dir``.

    Taken while the server runs: the copy is one instant of the database, and
    ``describe`` reads that same instant.

    Args:
        engine: The app's engine.
        dest_dir: The backup folder.
        describe: Called with a Connection that sees the copied instant; returns a dict.

    Returns:
        (file name, what ``describe`` returned).
    """
    return dialect_for(engine).snapshot_database(engine, Path(dest_dir), describe)


def restore_database(database_url: str | URL, source: str | Path) -> None:
    """Load a :func:`snapshot_database` file into the (empty) database at ``database_url``."""
    url = make_url(database_url)
    dialect_for(url).restore_database(url, Path(source))


def restore_preparation(database_url: str | URL) -> list[str]:
    """What an administrator must run before this role can restore into ``database_url``
    (each a sentence naming the command); empty when it is ready."""
    url = make_url(database_url)
    return dialect_for(url).restore_preparation(url)


def database_is_empty(database_url: str | URL) -> bool:
    """Whether the database at ``database_url`` holds none of Lateral's tables (or does not exist yet)."""
    url = make_url(database_url)
    return dialect_for(url).database_is_empty(url)
