"""What both engines share: the interface each engine module implements, and the SQL that is the same on both.

``Dialect`` lists every function that differs between SpatiaLite and PostGIS; ``sqlite``
and ``postgresql`` each define all of them at module level (a module is checked against a
Protocol by mypy, and ``tests/core/test_dialects.py`` checks the same at run time). The rest of
this module is written once because it is the same on both engines: the audit chain's
turn, article-number serials and the filter that compares the models with a database.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

from geoalchemy2 import alembic_helpers
from sqlalchemy import Integer, column, create_engine, inspect, text
from sqlalchemy.engine import URL, Connection, Engine
from sqlalchemy.orm import Session, scoped_session
from sqlalchemy.sql.dml import Insert
from sqlalchemy.sql.elements import ColumnElement

#: What the server passes around as "the session": the app's ``db.session`` (scoped) or a plain one.
AnySession = Session | scoped_session[Any]
#: (min lon, min lat, max lon, max lat) in EPSG:4326.
BBox = tuple[float, float, float, float]
#: Reads the instant a snapshot copied (row counts, hashes) through a Connection that sees it.
Describe = Callable[[Connection], dict[str, Any]]


class Dialect(Protocol):
    """The functions each engine module defines, grouped by job.

    Callers do not use this directly: ``server.core.dialects`` has one function per
    entry that picks the engine (``dialect_for``) and hands over.
    """

    # Engine options and per-connection setup.
    def engine_options(self, connect_timeout: float | None = None) -> dict[str, Any]: ...
    def install_engine_hooks(self, engine: Engine, spatialite_library: str) -> None: ...
    def is_transient(self, exc: BaseException) -> bool: ...
    def is_disk_full(self, exc: BaseException) -> bool: ...

    # Write and read transactions.
    def writer_turn(self, session: Session) -> AbstractContextManager[None]: ...
    def begin_write(self, session: Session) -> None: ...
    def reads_without_transaction(self, session: Session) -> None: ...

    # Spatial SQL.
    def bbox_filter(self, model: Any, bbox: BBox, column_name: str) -> ColumnElement[bool]: ...
    def as_geojson(self, geometry: Any) -> ColumnElement[Any]: ...
    def extent(self, session: AnySession, model: Any, column_name: str) -> BBox | None: ...
    def add_web_mercator_copy(self, table: str) -> list[str]: ...
    def drop_web_mercator_copy(self, table: str) -> list[str]: ...

    # DDL for migrations.
    def enable_spatial_sql(self) -> list[str]: ...
    def append_only_trigger(self, table: str) -> list[str]: ...
    def drop_append_only_trigger(self, table: str) -> list[str]: ...
    def write_once_trigger(self, table: str, guard: str, columns: tuple[str, ...],
                           clearable: tuple[str, ...] = ()) -> list[str]: ...
    def drop_write_once_trigger(self, table: str, guard: str) -> list[str]: ...
    def insert_skipping_taken(self, model: Any, index_elements: list[str], index_where: Any) -> Insert: ...
    def layer_count_triggers(self, table: str) -> list[str]: ...
    def drop_layer_count_triggers(self, table: str) -> list[str]: ...
    def group_total_triggers(self, table: str, totals: str, key: str, amount: str) -> list[str]: ...
    def drop_group_total_triggers(self, table: str, totals: str) -> list[str]: ...

    # Layer counts and write versions (issue #35).
    def fold_layer_count(self, session: AnySession, table: str) -> None: ...
    def count_within(self, session: AnySession, stmt: Any, seconds: float) -> int | None: ...

    # The audit trail, ids and statistics.
    def audit_high_water(self, session: AnySession) -> int: ...
    def reset_id_sequences(self, session: AnySession, tables: Sequence[str]) -> None: ...
    def refresh_planner_statistics(self, session: AnySession) -> None: ...
    def server_version(self, session: AnySession) -> str: ...
    def database_clock(self, session: AnySession) -> datetime | None: ...
    def database_folder(self, url: URL) -> Path | None: ...

    # Backup and restore.
    def snapshot_database(self, engine: Engine, dest_dir: Path, describe: Describe) -> tuple[str, dict[str, Any]]: ...
    def restore_database(self, url: URL, source: Path) -> None: ...
    def restore_preparation(self, url: URL) -> list[str]: ...
    def database_is_empty(self, url: URL) -> bool: ...


# ------------------------------------------------------------------ spatial SQL, shared

# Decimal places of coordinates written as GeoJSON: 15 is the most either engine
# writes, and enough that a double in lon/lat comes back as it went in.
GEOJSON_DECIMALS = 15

# PostGIS keeps a stored EPSG:3857 copy of these tables' geometry (a generated column,
# so it follows every write), and their map tiles skip reprojecting each row on each
# request: half a zoom-14 parcel tile's time. SpatiaLite encodes tiles in Python.
WEB_MERCATOR_COLUMN = "geom_3857"
WEB_MERCATOR_TABLES = ("parcels",)


def extent_of(session: AnySession, sql: str) -> BBox | None:
    """Run an engine's extent query (one row: min x, min y, max x, max y; NULLs when empty)."""
    row = session.execute(text(sql)).one()
    if row[0] is None:
        return None
    return float(row[0]), float(row[1]), float(row[2]), float(row[3])


# ------------------------------------------------------------------ layer counts, shared

# Each layer's table keeps its row count and a write version in ``layer_counts``, moved
# by triggers on the table (``layer_count_triggers``), so every write counts, Lateral's
# and one typed into ``psql`` or ``sqlite3`` alike. On SQLite (one writer) the triggers
# move the row itself. On PostgreSQL a statement-level trigger appends one row to
# ``layer_count_deltas`` instead (writers never wait on one another's counter row, so
# two transactions writing two layers in opposite orders cannot deadlock on it), and
# ``fold_layer_count`` folds those rows into ``layer_counts`` when it can take the row
# without waiting. The count is the row's plus its deltas'; the write version is the
# row's plus how many deltas there are, so a fold changes neither, and each committed
# write statement raises the version by at least one.
_LAYER_VERSION = ("c.write_version + (SELECT COUNT(*) FROM layer_count_deltas d "
                  "WHERE d.table_name = c.table_name)")
LAYER_COUNT_SQL = (
    "SELECT c.features + COALESCE((SELECT SUM(d.features) FROM layer_count_deltas d "
    "WHERE d.table_name = c.table_name), 0), " + _LAYER_VERSION +
    " FROM layer_counts c WHERE c.table_name = :table"
)
LAYER_VERSION_SQL = "SELECT " + _LAYER_VERSION + " FROM layer_counts c WHERE c.table_name = :layer_table"


@functools.cache  # one per table: the statement carrying it is then built, keyed and compiled once
def layer_version_read(table: str) -> ColumnElement[Any]:
    """``table``'s write version (as ``layer_count`` gives it) as a scalar subquery, for
    another statement to carry: a cached tile reads it with the caller's login."""
    return (text(LAYER_VERSION_SQL).bindparams(layer_table=table)
            .columns(column("write_version", Integer)).scalar_subquery())


def layer_count(session: AnySession, table: str) -> tuple[int, int] | None:
    """(features, write version) of a counted table, read in one statement; None if it is not counted."""
    row = session.execute(text(LAYER_COUNT_SQL), {"table": table}).one_or_none()
    return None if row is None else (int(row[0]), int(row[1]))


# ------------------------------------------------------------------ comparing models with a database

# SpatiaLite's own tables that GeoAlchemy2's filter (``geometry_columns*``,
# ``spatial_ref_sys*``, ``idx_*`` R*Trees, ...) does not already know.
SPATIALITE_BOOKKEEPING = frozenset({"ElementaryGeometries", "KNN", "KNN2", "SpatialIndex", "data_licenses",
                                    "sql_statements_log"})


def in_model_comparison(obj: Any, name: str | None, type_: str, reflected: bool, compare_to: Any) -> bool:
    """Alembic's ``include_object``: what comparing the models with a database looks at.

    Autogenerate (``migrations/env.py``) and the drift test (``tests/test_schema_drift.py``)
    both use it. Left out, because they are the database's own and not the models':
    SpatiaLite's bookkeeping tables and the R*Tree tables behind its spatial indexes,
    PostGIS's ``spatial_ref_sys``, and PostGIS's stored web-mercator copy for tiles.
    GeoAlchemy2's helper also sees past how each database makes a geometry column's
    spatial index. Any other table in the database that no model describes is drift.
    One filter for both engines: Alembic hands it no connection, and a name that belongs
    to one engine never turns up in the other.
    """
    if type_ == "table" and reflected and compare_to is None and name in SPATIALITE_BOOKKEEPING:
        return False
    if type_ == "column" and name == WEB_MERCATOR_COLUMN and reflected and compare_to is None:
        return False
    return bool(alembic_helpers.include_object(obj, name, type_, reflected, compare_to))


# ------------------------------------------------------------------ the audit chain and serials, shared


def allocate_serials(session: AnySession, mailer_id: str, count: int, first: int, last: int) -> int | None:
    """Reserve ``count`` consecutive article-number serials; returns the first, or None.

    None means the range ``first..last`` has fewer than ``count`` left. One guarded
    ``UPDATE … RETURNING`` on the counter row does the reservation, and both databases
    serialise it: PostgreSQL row-locks the row until commit and a waiting UPDATE
    re-reads the committed value (READ COMMITTED); SQLite lets one writer hold the
    database until commit and a second writer waits on ``busy_timeout``. So two
    batches never get the same serial, and a rolled-back batch leaves no gap behind.
    """
    base = "CASE WHEN last_used < :floor THEN :floor ELSE last_used END"
    session.execute(
        text("INSERT INTO article_serials (mailer_id, last_used) VALUES (:m, :floor) "
             "ON CONFLICT (mailer_id) DO NOTHING"),
        {"m": mailer_id, "floor": first - 1},
    )
    row = session.execute(
        text(f"UPDATE article_serials SET last_used = {base} + :n "
             f"WHERE mailer_id = :m AND {base} + :n <= :last RETURNING last_used"),
        {"m": mailer_id, "n": count, "floor": first - 1, "last": last},
    ).first()
    return None if row is None else int(row[0]) - count + 1


def audit_chain_head(session: AnySession) -> tuple[int, str]:
    """Take the audit chain's turn and read its head: (last row's id, its hash).

    An UPDATE of the one ``audit_chain`` row, not a SELECT: on PostgreSQL it row-locks
    the head until commit, and a second writer's UPDATE waits, then re-reads the
    committed head (READ COMMITTED), so two transactions never chain onto the same row;
    on SQLite the UPDATE takes the write lock, so no other writer commits between the
    read and this transaction's own audit rows. Same SQL on both; the waits differ.
    """
    last_id, last_hash = session.execute(text(
        "UPDATE audit_chain SET last_id = last_id WHERE id = 1 RETURNING last_id, last_hash")).one()
    return last_id, last_hash


def advance_audit_chain(session: AnySession, last_id: int, last_hash: str) -> None:
    """Record the new head of the chain (the row lock is already this transaction's)."""
    session.execute(text("UPDATE audit_chain SET last_id = :i, last_hash = :h WHERE id = 1"),
                    {"i": last_id, "h": last_hash})


# ------------------------------------------------------------------ backup, shared


def holds_lateral_tables(url: URL, engine_options: dict[str, Any]) -> bool:
    """Whether the database at ``url`` holds any of Lateral's tables (the restore's guard)."""
    engine = create_engine(url, **engine_options)
    try:
        with engine.connect() as conn:
            names = set(inspect(conn).get_table_names())
    finally:
        engine.dispose()
    return bool(names & {"alembic_version", "parcels", "audit_events"})
