"""PostGIS: PostgreSQL with the PostGIS extension, a server of its own.

Implements ``common.Dialect``; ``server.core.dialects.dialect_for`` picks this module
for a ``postgresql`` engine. Row locks and READ COMMITTED, not one writer at a time:
writes need no queue and no lock up front.
"""

from __future__ import annotations

import select
import subprocess
import tempfile
import time
from collections.abc import Sequence
from contextlib import AbstractContextManager, nullcontext
from datetime import datetime
from pathlib import Path
from typing import Any, cast

from sqlalchemy import create_engine, event, func, text
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.engine import URL, Engine, make_url
from sqlalchemy.exc import DisconnectionError, InterfaceError, OperationalError
from sqlalchemy.orm import Session
from sqlalchemy.sql.dml import Insert
from sqlalchemy.sql.elements import BindParameter, ColumnElement

from server.core.dialects import common
from server.core.dialects.common import AnySession, BBox, Describe

# ------------------------------------------------------------------ engine options and hooks


def engine_options(connect_timeout: float | None = None) -> dict[str, Any]:
    """A server that does not accept a connection within ``connect_timeout`` seconds
    (libpq counts whole seconds, at least 2) is a transient failure, not a held worker.

    No ``pool_pre_ping``: its round trip on every checkout was a tenth of a cached tile's
    time. ``install_engine_hooks`` finds the dead connections a restart leaves without it.
    """
    options: dict[str, Any] = {}
    if connect_timeout is not None:
        options["connect_args"] = {"connect_timeout": max(2, round(connect_timeout))}
    return options


#: A pooled connection unused for this long is pinged before it is handed out: a firewall
#: or NAT between the app and the database may have dropped it without a word.
PING_AFTER_IDLE_S = 30.0


def install_engine_hooks(engine: Engine, spatialite_library: str) -> None:
    """Hand out no dead connection, without a round trip for a live one.

    A server that restarts, or ends a backend (``pg_terminate_backend``), says so on the
    connection and closes it, so that connection has something to read at once. A healthy
    connection waiting in the pool has nothing to say. Each checkout therefore looks at
    the socket (no round trip) and pings only a connection that has something to read or
    has lain idle longer than ``PING_AFTER_IDLE_S``. One that fails the ping is replaced
    (a ``DisconnectionError`` from a checkout hook makes the pool try a fresh connection),
    so the request never sees it.
    """
    event.listen(engine, "checkin", _returned)
    event.listen(engine, "checkout", lambda dbapi, record, _proxy: _check_alive(engine, dbapi, record))


def _returned(_dbapi_connection, record) -> None:
    record.info["returned_at"] = time.monotonic()


def _check_alive(engine: Engine, dbapi_connection, record) -> None:
    returned = record.info.get("returned_at")
    if returned is None:  # made for this checkout
        return
    if time.monotonic() - returned < PING_AFTER_IDLE_S and not _has_something_to_read(dbapi_connection):
        return
    try:
        engine.dialect.do_ping(dbapi_connection)  # what pool_pre_ping runs
    except Exception as exc:  # noqa: BLE001 - whatever failed, this connection is not to be used
        raise DisconnectionError(f"a pooled connection failed its ping: {exc}") from exc


def _has_something_to_read(dbapi_connection) -> bool:
    if dbapi_connection.closed:
        return True
    try:
        fd = dbapi_connection.fileno()
    except Exception:  # noqa: BLE001 - a connection without a socket is no good either
        return True
    poller = select.poll()
    poller.register(fd, select.POLLIN | select.POLLERR | select.POLLHUP)
    return bool(poller.poll(0))


def is_transient(exc: BaseException) -> bool:
    """A connection refused, reset or terminated by a restart (SQLAlchemy's OperationalError
    and InterfaceError, or a connection it has invalidated)."""
    if getattr(exc, "connection_invalidated", False):
        return True
    return isinstance(exc, OperationalError | InterfaceError)


def is_disk_full(exc: BaseException) -> bool:
    """SQLSTATE 53100, disk_full."""
    return getattr(getattr(exc, "orig", None), "sqlstate", None) == "53100"


# ------------------------------------------------------------------ write and read transactions


def writer_turn(session: Session) -> AbstractContextManager[None]:
    """Nothing to wait for: PostgreSQL locks rows, not the database."""
    return nullcontext()


def begin_write(session: Session) -> None:
    """Nothing: row locks and version checks need nothing up front."""


def reads_without_transaction(session: Session) -> None:
    """Run the rest of ``session``'s statements in autocommit (no BEGIN, no ROLLBACK).

    For requests that only read. Under PostgreSQL's READ COMMITTED (Lateral's) each
    statement already sees its own snapshot inside a transaction, so leaving the
    transaction out changes nothing a reader sees; it saves the two round trips that
    open and close it, a third of a small OGC page's time. A write made on the way
    (a token's hourly "last used") commits on its own, as it does now. Must be called
    before the session's first statement; later it does nothing.
    """
    if session.in_transaction() or not isinstance(session.get_bind(), Engine):
        return  # a session bound to a connection (a test's) is inside that connection's transaction
    # The pool puts the connection back to its own isolation level when it is returned.
    session.connection(execution_options={"isolation_level": "AUTOCOMMIT"})


# ------------------------------------------------------------------ spatial SQL

# Degrees a window is shrunk by before its "wholly inside" test: PostGIS keeps index
# boxes in float32, rounded outward, off by at most 1.5e-5 degrees at longitude 180.
_INSIDE_MARGIN = 1e-4


def bbox_filter(model: Any, bbox: BBox, column_name: str) -> ColumnElement[bool]:
    """``ST_Intersects`` through the GiST index, settled by the index's box alone for rows wholly inside."""
    minx, miny, maxx, maxy = bbox
    geom = getattr(model, column_name)
    envelope = func.ST_MakeEnvelope(minx, miny, maxx, maxy, 4326)
    exact = func.ST_Intersects(geom, envelope)
    # Numbers, or bound parameters holding the values the statement is shaped for (a
    # statement compiled once and run for many windows of that shape: map tiles).
    values = tuple(v.value if isinstance(v, BindParameter) else v for v in bbox)
    if not all(isinstance(v, (int, float)) for v in values) or not bbox_shape(cast(BBox, values)):
        return exact
    # Most rows of a map window lie wholly inside it, and for them the index's box
    # settles it: ``@`` (box within box) against the window shrunk by more than the
    # float32 rounding of those boxes is true only for geometries truly inside.
    # GEOS is asked about the rows near the edges alone (a zoom-14 parcel tile:
    # ~250 of 2,900).
    inside = func.ST_MakeEnvelope(minx + _INSIDE_MARGIN, miny + _INSIDE_MARGIN,
                                  maxx - _INSIDE_MARGIN, maxy - _INSIDE_MARGIN, 4326)
    return geom.op("&&")(envelope) & (geom.op("@")(inside) | exact)


def bbox_shape(bbox: BBox) -> bool:
    """What shapes ``bbox_filter``'s statement for this window (True: it has the inside test)."""
    minx, miny, maxx, maxy = bbox
    return maxx - minx > 2 * _INSIDE_MARGIN and maxy - miny > 2 * _INSIDE_MARGIN


def as_geojson(geometry: Any) -> ColumnElement[Any]:
    return func.ST_AsGeoJSON(geometry, common.GEOJSON_DECIMALS)


def extent(session: AnySession, model: Any, column_name: str) -> BBox | None:
    """Each side from one probe of the GiST index, not from every geometry.

    The geometry nearest (``<->``, the index's own ordering) to a line lying beyond one
    side of the world is the one reaching furthest towards it, since its distance from
    the line is its own min x (min y, ...) plus a constant. ``ST_Extent`` gave the same
    numbers reading every geometry: 110 ms for a 160,000-parcel city's layers, paid by
    each GIS client opening the collections (bench/README.md, "Session 11").
    """
    name = model.__tablename__
    srid = int(getattr(model, column_name).type.srid)
    if srid != 4326:  # the lines below lie beyond longitude and latitude only
        raise ValueError(f"{name}.{column_name}: extent expects EPSG:4326, not {srid}")
    sides = []
    for edge, line in (("ST_XMin", "-1000 -1000,-1000 1000"), ("ST_YMin", "-1000 -1000,1000 -1000"),
                       ("ST_XMax", "1000 -1000,1000 1000"), ("ST_YMax", "-1000 1000,1000 1000")):
        sides.append(f"(SELECT {edge}({column_name}) FROM {name} "
                     f"WHERE {column_name} IS NOT NULL AND NOT ST_IsEmpty({column_name}) "
                     f"ORDER BY {column_name} <-> 'SRID=4326;LINESTRING({line})'::geometry LIMIT 1)")
    return common.extent_of(session, "SELECT " + ", ".join(sides))


def add_web_mercator_copy(table: str) -> list[str]:
    """A generated column, so it follows every write (``common.WEB_MERCATOR_TABLES`` says why)."""
    return [f"ALTER TABLE {table} ADD COLUMN {common.WEB_MERCATOR_COLUMN} geometry "
            f"GENERATED ALWAYS AS (ST_Transform(geom, 3857)) STORED"]


def drop_web_mercator_copy(table: str) -> list[str]:
    return [f"ALTER TABLE {table} DROP COLUMN IF EXISTS {common.WEB_MERCATOR_COLUMN}"]


# ------------------------------------------------------------------ DDL for migrations


def enable_spatial_sql() -> list[str]:
    return ["CREATE EXTENSION IF NOT EXISTS postgis"]


def append_only_trigger(table: str) -> list[str]:
    return [
        f"CREATE FUNCTION {table}_append_only() RETURNS trigger LANGUAGE plpgsql AS "
        f"$$ BEGIN RAISE EXCEPTION '{table} is append-only'; END $$",
        f"CREATE TRIGGER {table}_no_change BEFORE UPDATE OR DELETE ON {table} "
        f"FOR EACH ROW EXECUTE FUNCTION {table}_append_only()",
    ]


def drop_append_only_trigger(table: str) -> list[str]:
    return [
        f"DROP TRIGGER IF EXISTS {table}_no_change ON {table}",
        f"DROP FUNCTION IF EXISTS {table}_append_only()",
    ]


def write_once_trigger(table: str, guard: str, columns: tuple[str, ...], clearable: tuple[str, ...] = ()) -> list[str]:
    name = f"{table}_{guard}_write_once"
    changed = " OR ".join([*(f"NEW.{c} IS DISTINCT FROM OLD.{c}" for c in columns),
                           *(f"(NEW.{c} IS NOT NULL AND NEW.{c} IS DISTINCT FROM OLD.{c})" for c in clearable)])
    columns = (*columns, *clearable)
    return [
        f"CREATE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
        f"IF OLD.{guard} IS NOT NULL AND ({changed}) THEN "
        f"RAISE EXCEPTION '{table}: {', '.join(columns)} are written once'; END IF; "
        f"RETURN NEW; END $$",
        f"CREATE TRIGGER {name} BEFORE UPDATE ON {table} FOR EACH ROW EXECUTE FUNCTION {name}()",
    ]


def drop_write_once_trigger(table: str, guard: str) -> list[str]:
    name = f"{table}_{guard}_write_once"
    return [f"DROP TRIGGER IF EXISTS {name} ON {table}", f"DROP FUNCTION IF EXISTS {name}()"]


def insert_skipping_taken(model: Any, index_elements: list[str], index_where: Any) -> Insert:
    return postgresql_insert(model).on_conflict_do_nothing(index_elements=index_elements, index_where=index_where)


def layer_count_triggers(table: str) -> list[str]:
    """One delta row per statement (``common.LAYER_COUNT_SQL`` says why not the count's own row).

    Statement-level, with the statement's rows as transition tables: a ``COPY`` of
    160,000 parcels appends one row, not 160,000. ``TRUNCATE`` takes the table's every
    lock, so the count it cancels is the one committed.
    """
    fn = f"{table}_counted"
    body = (
        f"CREATE FUNCTION {fn}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
        f"IF TG_OP = 'INSERT' THEN "
        f"INSERT INTO layer_count_deltas (table_name, features) SELECT '{table}', count(*) FROM new_rows; "
        f"ELSIF TG_OP = 'DELETE' THEN "
        f"INSERT INTO layer_count_deltas (table_name, features) SELECT '{table}', -count(*) FROM old_rows; "
        f"ELSIF TG_OP = 'UPDATE' THEN "
        f"INSERT INTO layer_count_deltas (table_name, features) VALUES ('{table}', 0); "
        f"ELSE "
        f"INSERT INTO layer_count_deltas (table_name, features) SELECT '{table}', -(c.features + "
        f"COALESCE((SELECT sum(d.features) FROM layer_count_deltas d WHERE d.table_name = '{table}'), 0)) "
        f"FROM layer_counts c WHERE c.table_name = '{table}'; "
        f"END IF; RETURN NULL; END $$"
    )
    return [
        body,
        f"CREATE TRIGGER {table}_count_inserts AFTER INSERT ON {table} REFERENCING NEW TABLE AS new_rows "
        f"FOR EACH STATEMENT EXECUTE FUNCTION {fn}()",
        f"CREATE TRIGGER {table}_count_deletes AFTER DELETE ON {table} REFERENCING OLD TABLE AS old_rows "
        f"FOR EACH STATEMENT EXECUTE FUNCTION {fn}()",
        f"CREATE TRIGGER {table}_count_updates AFTER UPDATE ON {table} FOR EACH STATEMENT EXECUTE FUNCTION {fn}()",
        f"CREATE TRIGGER {table}_count_truncates AFTER TRUNCATE ON {table} FOR EACH STATEMENT EXECUTE FUNCTION {fn}()",
    ]


def drop_layer_count_triggers(table: str) -> list[str]:
    return [*(f"DROP TRIGGER IF EXISTS {table}_count_{op} ON {table}"
              for op in ("inserts", "deletes", "updates", "truncates")),
            f"DROP FUNCTION IF EXISTS {table}_counted()"]


def group_total_triggers(table: str, totals: str, key: str, amount: str) -> list[str]:
    """Statement-level, with the statement's rows as transition tables: each statement moves
    the totals of the keys it touched in one UPDATE (its rows locked in one order, so two
    writers cannot each hold a row the other waits for); a bulk load is one statement."""
    fn, plain = f"{table}_{totals}_kept", amount.format(row="")
    def moved(source: str) -> str:
        return (f"UPDATE {totals} t SET row_count = t.row_count + d.n, amount = t.amount + d.a FROM "
                f"(SELECT {key}, sum(n) AS n, sum(a) AS a FROM ({source}) x GROUP BY {key}) d "
                f"WHERE t.{key} = d.{key}; ")
    added = f"SELECT {key}, 1 AS n, ({plain}) AS a FROM new_rows"
    removed = f"SELECT {key}, -1 AS n, -({plain}) AS a FROM old_rows"
    body = (f"CREATE FUNCTION {fn}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
            f"IF TG_OP = 'INSERT' THEN {moved(added)}"
            f"ELSIF TG_OP = 'DELETE' THEN {moved(removed)}"
            f"ELSIF TG_OP = 'UPDATE' THEN {moved(added + ' UNION ALL ' + removed)}"
            f"ELSE UPDATE {totals} SET row_count = 0, amount = 0; "
            f"END IF; RETURN NULL; END $$")
    name = f"{table}_{totals}"
    return [
        body,
        f"CREATE TRIGGER {name}_inserts AFTER INSERT ON {table} REFERENCING NEW TABLE AS new_rows "
        f"FOR EACH STATEMENT EXECUTE FUNCTION {fn}()",
        f"CREATE TRIGGER {name}_deletes AFTER DELETE ON {table} REFERENCING OLD TABLE AS old_rows "
        f"FOR EACH STATEMENT EXECUTE FUNCTION {fn}()",
        f"CREATE TRIGGER {name}_updates AFTER UPDATE ON {table} REFERENCING OLD TABLE AS old_rows "
        f"NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION {fn}()",
        f"CREATE TRIGGER {name}_truncates AFTER TRUNCATE ON {table} FOR EACH STATEMENT EXECUTE FUNCTION {fn}()",
    ]


def drop_group_total_triggers(table: str, totals: str) -> list[str]:
    name = f"{table}_{totals}"
    return [*(f"DROP TRIGGER IF EXISTS {name}_{event} ON {table}" for event in
              ("inserts", "deletes", "updates", "truncates")), f"DROP FUNCTION IF EXISTS {name}_kept()"]


# ------------------------------------------------------------------ layer counts and write versions

# Folds the deltas into the count's row, only if the row can be had without waiting: a
# writer never waits for another's fold, and whichever fold takes the row sees every
# delta committed before it (the DELETE runs after the lock, in its own snapshot).
_FOLD = text(
    "WITH turn AS (SELECT table_name FROM layer_counts WHERE table_name = :table FOR UPDATE SKIP LOCKED), "
    "gone AS (DELETE FROM layer_count_deltas d USING turn WHERE d.table_name = turn.table_name "
    "RETURNING d.features) "
    "UPDATE layer_counts c SET features = c.features + COALESCE((SELECT sum(features) FROM gone), 0), "
    "write_version = c.write_version + (SELECT count(*) FROM gone) "
    "FROM turn WHERE c.table_name = turn.table_name"
)


def fold_layer_count(session: AnySession, table: str) -> None:
    session.execute(_FOLD, {"table": table})


def count_within(session: AnySession, stmt: Any, seconds: float) -> int | None:
    """``stmt``'s count if PostgreSQL finishes it within ``seconds``, else None.

    ``statement_timeout`` for this statement alone, set back afterwards. On a connection
    in autocommit (a GIS read: ``reads_without_transaction``) the statement stands
    alone; inside a transaction it runs in a savepoint, which a cancelled statement
    would otherwise spoil and whose rollback also undoes the ``SET``.
    """
    connection = session.connection()
    timeout = f"SET statement_timeout = {max(1, int(seconds * 1000))}"
    driver: Any = connection.connection.driver_connection
    if driver.autocommit:
        connection.exec_driver_sql(timeout)
        try:
            value = connection.execute(stmt).scalar()
        except OperationalError as exc:
            if getattr(exc.orig, "sqlstate", None) != "57014":  # query_canceled
                raise
            return None
        finally:
            connection.exec_driver_sql("SET statement_timeout = DEFAULT")
        return None if value is None else int(value)
    savepoint = connection.begin_nested()
    try:
        connection.exec_driver_sql(timeout)
        value = connection.execute(stmt).scalar()
    except OperationalError as exc:
        savepoint.rollback()
        if getattr(exc.orig, "sqlstate", None) != "57014":
            raise
        return None
    except BaseException:
        savepoint.rollback()
        raise
    savepoint.rollback()  # nothing was written; undoes the SET too
    return None if value is None else int(value)


# ------------------------------------------------------------------ the audit trail, ids and statistics


def audit_high_water(session: AnySession) -> int:
    """The maximum id once the writers in flight have committed.

    PostgreSQL hands out ids when a row is inserted, not when its transaction commits,
    so a reader could see id 11 before id 10 commits and a cursor at 11 would skip 10.
    A SHARE lock waits for the writers in flight (and holds new ones until this
    transaction ends); the maximum id then visible is safe.
    """
    session.execute(text("LOCK TABLE audit_events IN SHARE MODE"))
    return int(session.execute(text("SELECT COALESCE(MAX(id), 0) FROM audit_events")).scalar_one())


def reset_id_sequences(session: AnySession, tables: Sequence[str]) -> None:
    """Move each table's id sequence past the ids inserted explicitly."""
    for name in tables:
        session.execute(text(
            f"SELECT setval(pg_get_serial_sequence('{name}', 'id'), "
            f"COALESCE((SELECT MAX(id) FROM {name}), 0) + 1, false)"
        ))


def refresh_planner_statistics(session: AnySession) -> None:
    """ANALYZE: PostgreSQL plans from statistics that only ANALYZE (or autovacuum, which a
    city may have switched off, and which runs only later) gathers; without them a freshly
    seeded city's bbox and cursor pages may be planned as if the tables were empty.
    Run in the load's own transaction, ANALYZE counts the rows it inserted."""
    session.execute(text("ANALYZE"))


def server_version(session: AnySession) -> str:
    return "PostGIS " + session.execute(text("SELECT postgis_lib_version()")).scalar_one()


def database_clock(session: AnySession) -> datetime | None:
    """The database server's clock, which may be another host's."""
    return session.execute(text("SELECT now()")).scalar_one()


def database_folder(url: URL) -> Path | None:
    """None: the database's disk is the database server's, watched there."""
    return None


# ------------------------------------------------------------------ backup and restore


def snapshot_database(engine: Engine, dest_dir: Path, describe: Describe) -> tuple[str, dict[str, Any]]:
    """A repeatable-read transaction exports its snapshot, ``pg_dump`` (custom format)
    dumps exactly that snapshot and ``describe`` reads it too, so the manifest and the
    dump are the same instant."""
    target = dest_dir / "database.pgdump"
    with engine.connect().execution_options(isolation_level="REPEATABLE READ") as conn, conn.begin():
        snapshot = conn.execute(text("SELECT pg_export_snapshot()")).scalar()
        subprocess.run(["pg_dump", "--format=custom", "--no-owner", f"--snapshot={snapshot}",
                        "--file", str(target), libpq_url(engine.url)],
                       check=True, capture_output=True, text=True)
        return target.name, describe(conn)


_TARGET = text("""
    SELECT r.rolsuper, pg_catalog.pg_get_userbyid(d.datdba),
           EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'postgis'),
           has_schema_privilege('public', 'CREATE')
    FROM pg_roles r, pg_database d WHERE r.rolname = current_user AND d.datname = current_database()""")
_EXTENSION_TABLES = text("""
    SELECT n.nspname || ' ' || c.relname FROM pg_depend dep
    JOIN pg_class c ON dep.classid = 'pg_class'::regclass AND c.oid = dep.objid
    JOIN pg_namespace n ON n.oid = c.relnamespace WHERE dep.deptype = 'e'""")


def restore_preparation(url: URL) -> list[str]:
    """What an administrator must run before the role in ``url`` can restore into its database.

    Only a superuser may ``CREATE EXTENSION postgis``, so the app's own role restores into
    a database an administrator made for it with the extension in it; the tables the dump
    creates then belong to that role, as the app needs.
    """
    database, role = url.database, url.username or "the app's role"
    engine = create_engine(url, **engine_options())
    try:
        with engine.connect() as conn:
            superuser, _owner, has_postgis, may_create = conn.execute(_TARGET).one()
    except OperationalError as exc:
        reason = str(exc.orig).strip().splitlines()[0] if exc.orig else str(exc)
        return [f"the database {database} cannot be opened ({reason}); as the postgres user, on the database "
                f"server, create it for the app's role: sudo -u postgres createdb -O {role} {database}; "
                f"sudo -u postgres psql -d {database} -c 'CREATE EXTENSION postgis'"]
    finally:
        engine.dispose()
    missing = []
    if not has_postgis and not superuser:
        missing.append(f"the database {database} has no PostGIS extension, and only a superuser can create one: "
                       f"as the postgres user run sudo -u postgres psql -d {database} -c 'CREATE EXTENSION postgis'")
    if not may_create and not superuser:
        missing.append(f"the role {role} may not create tables in the database {database}: as the postgres user "
                       f"run sudo -u postgres psql -c 'ALTER DATABASE {database} OWNER TO {role}'")
    return missing


def restore_database(url: URL, source: Path) -> None:
    """``pg_restore`` as the database's owner, into the PostGIS an administrator prepared.

    The dump's own ``CREATE EXTENSION`` and its comment (which only the extension's owner
    may set) are left out, and so are rows of the extension's tables (``spatial_ref_sys``):
    the extension in the target is the administrator's. Connected as a superuser, the
    extension is created first and the objects are made as the database's owner
    (``--role``), so the app's role owns its tables either way.
    """
    engine = create_engine(url, **engine_options())
    try:
        with engine.connect() as conn:
            superuser, owner, has_postgis, _ = conn.execute(_TARGET).one()
            if superuser and not has_postgis:
                conn.execute(text("CREATE EXTENSION IF NOT EXISTS postgis"))
                conn.commit()
            extension_tables = set(conn.execute(_EXTENSION_TABLES).scalars())
            current = conn.execute(text("SELECT current_user")).scalar()
    finally:
        engine.dispose()
    listing = subprocess.run(["pg_restore", "--list", str(source)], check=True, capture_output=True, text=True)
    keep = [line for line in listing.stdout.splitlines() if not _belongs_to_extension(line, extension_tables)]
    with tempfile.NamedTemporaryFile("w", suffix=".list") as entries:
        entries.write("\n".join(keep) + "\n")
        entries.flush()
        args = ["pg_restore", "--no-owner", "--exit-on-error", "--use-list", entries.name]
        if superuser and owner != current:
            args.append(f"--role={owner}")
        subprocess.run([*args, "--dbname", libpq_url(url), str(source)], check=True, capture_output=True, text=True)


def _belongs_to_extension(entry: str, extension_tables: set[str]) -> bool:
    """Whether a ``pg_restore --list`` line is an extension, its comment or an extension table's rows."""
    if entry.startswith(";"):
        return False
    return (" EXTENSION - " in entry or " COMMENT - EXTENSION " in entry
            or any(f" TABLE DATA {table} " in entry + " " for table in extension_tables))


def database_is_empty(url: URL) -> bool:
    return not common.holds_lateral_tables(url, engine_options())


def libpq_url(url: URL | str) -> str:
    """The SQLAlchemy URL as libpq understands it (``postgresql://…``, no driver name)."""
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
