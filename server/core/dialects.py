"""The one seam where SpatiaLite and PostGIS differ.

Everything else in the server asks this module instead of asking "which database?":
engine options, loading SpatiaLite, bbox filters that use the spatial index, and the
append-only trigger on the audit table.
"""

from __future__ import annotations

import fcntl
import os
import sqlite3
import threading
from contextlib import contextmanager, nullcontext

from geoalchemy2 import alembic_helpers
from sqlalchemy import String, cast, column, event, func, literal_column, select, table, text
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.orm import scoped_session

SQLITE_BUSY_TIMEOUT_MS = 15000


class SpatiaLiteUnavailable(RuntimeError):
    """mod_spatialite cannot be loaded; the message says how to install it."""


def sqlite_dbapi():
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
        from pysqlite3 import dbapi2
    except ImportError as exc:  # pragma: no cover - requirements.txt pins it
        raise SpatiaLiteUnavailable(
            "this Python's sqlite3 cannot load extensions; pip install pysqlite3-binary"
        ) from exc
    return dbapi2


def engine_options(database_url: str) -> dict:
    """Extra ``create_engine`` keyword arguments for the database at ``database_url``."""
    url = make_url(database_url)
    if url.get_backend_name() == "sqlite":
        return {"module": sqlite_dbapi(), "connect_args": {"timeout": SQLITE_BUSY_TIMEOUT_MS / 1000}}
    return {"pool_pre_ping": True}


def is_sqlite(bind) -> bool:
    return bind.dialect.name == "sqlite"


def is_transient(exc) -> bool:
    """Whether a DBAPI error means "the database is away or busy; the same request may succeed later".

    PostgreSQL: a connection refused, reset or terminated by a restart (SQLAlchemy's
    OperationalError and InterfaceError, or a connection it has invalidated). SQLite: only
    a lock that outlasted the busy timeout; its other OperationalErrors (no such table,
    disk I/O) are faults, not waits.
    """
    from sqlalchemy.exc import InterfaceError, OperationalError

    if getattr(exc, "connection_invalidated", False):
        return True
    if "sqlite" in type(getattr(exc, "orig", None)).__module__:
        message = str(exc.orig).lower()
        return isinstance(exc, OperationalError) and ("locked" in message or "busy" in message)
    return isinstance(exc, OperationalError | InterfaceError)


def is_disk_full(exc) -> bool:
    """Whether a DBAPI error is the database's disk being full (SQLite's SQLITE_FULL, PostgreSQL's 53100)."""
    orig = getattr(exc, "orig", None)
    return "disk is full" in str(orig).lower() or getattr(orig, "sqlstate", None) == "53100"


def install_engine_hooks(engine: Engine, spatialite_library: str = "mod_spatialite") -> None:
    """Per-connection setup: load SpatiaLite and make SQLite transactions honest.

    Args:
        spatialite_library: What SQLite loads (the app's ``SPATIALITE_LIBRARY_PATH``).
    """
    if engine.dialect.name != "sqlite":
        return

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


class _WriterQueue:
    """Writers to one SQLite file take turns, first come first served.

    SQLite lets one writer in at a time; the others poll with growing sleeps (the busy
    handler), so under load a writer can keep losing to newcomers (a push once waited
    8.8 s behind 40 tablets). Here the threads of one process queue by ticket, and the
    one whose turn it is takes an exclusive ``flock`` on ``<database>.writers``, which
    the few processes of one host (gunicorn's workers) share; SQLite's own lock then
    finds no one in the way.
    """

    def __init__(self, database: str) -> None:
        self._cond = threading.Condition()
        self._next = self._serving = 0
        self._abandoned: set[int] = set()
        self._fd = os.open(database + ".writers", os.O_CREAT | os.O_RDWR, 0o600)
        self._holder: int | None = None

    @contextmanager
    def turn(self, timeout: float):
        if self._holder == threading.get_ident():
            yield  # already this thread's turn (a write inside a write): no second ticket
            return
        with self._cond:
            ticket, self._next = self._next, self._next + 1
            if not self._cond.wait_for(lambda: self._serving == ticket, timeout):
                self._abandoned.add(ticket)
                raise _busy()
        try:
            # Blocking: the kernel wakes the process waiting as soon as the lock is let go.
            # Polling instead let one worker's threads hand the lock to each other while
            # the other worker slept between polls (a 7 s worst push at 40 tablets).
            fcntl.flock(self._fd, fcntl.LOCK_EX)
            self._holder = threading.get_ident()
            try:
                yield
            finally:
                self._holder = None
                fcntl.flock(self._fd, fcntl.LOCK_UN)
        finally:
            with self._cond:
                self._serving += 1
                while self._serving in self._abandoned:
                    self._abandoned.discard(self._serving)
                    self._serving += 1
                self._cond.notify_all()


def _busy():
    from server.core.errors import LateralError

    return LateralError("database_busy", "too many changes are waiting for the database; try again",
                        headers={"Retry-After": "2"})


_WRITER_QUEUES: dict[tuple[int, str], _WriterQueue] = {}
_WRITER_QUEUES_LOCK = threading.Lock()


def writer_turn(session):
    """A context in which this thread is the only writer to the database (SQLite files).

    Wraps a write transaction from before its ``BEGIN IMMEDIATE`` to after its commit
    or rollback. PostgreSQL locks rows, not the database: nothing to wait for.
    """
    real = session() if isinstance(session, scoped_session) else session
    bind = real.get_bind()
    database = bind.engine.url.database if is_sqlite(bind) else None
    if not database or database == ":memory:":
        return nullcontext()
    key = (os.getpid(), os.path.abspath(database))  # a forked worker gets its own queue and fd
    with _WRITER_QUEUES_LOCK:
        queue = _WRITER_QUEUES.get(key)
        if queue is None:
            queue = _WRITER_QUEUES[key] = _WriterQueue(key[1])
    return queue.turn(SQLITE_BUSY_TIMEOUT_MS / 1000)


def begin_write(session) -> None:
    """Start ``session``'s transaction as a write transaction (SQLite: BEGIN IMMEDIATE).

    Called before the request's service runs, when only reads (the login check) have
    happened. PostgreSQL's row locks and version checks need nothing up front.
    """
    real = session() if isinstance(session, scoped_session) else session
    if not is_sqlite(real.get_bind()):
        return
    if real.in_transaction():
        # Only reads can have happened (the login check): end that read transaction so
        # the write one starts from a fresh snapshot.
        real.commit()
    real.connection(execution_options={"lateral_write": True})


def reads_without_transaction(session) -> None:
    """PostgreSQL: run the rest of ``session``'s statements in autocommit (no BEGIN, no ROLLBACK).

    For requests that only read. Under PostgreSQL's READ COMMITTED (Lateral's) each
    statement already sees its own snapshot inside a transaction, so leaving the
    transaction out changes nothing a reader sees; it saves the two round trips that
    open and close it, a third of a small OGC page's time. A write made on the way
    (a token's hourly "last used") commits on its own, as it does now. SQLite keeps
    its read transaction: there it is what holds one snapshot across statements.
    Must be called before the session's first statement; later it does nothing.
    """
    real = session() if isinstance(session, scoped_session) else session
    bind = real.get_bind()
    if is_sqlite(bind) or real.in_transaction() or not isinstance(bind, Engine):
        return  # a session bound to a connection (a test's) is inside that connection's transaction
    # The pool puts the connection back to its own isolation level when it is returned.
    real.connection(execution_options={"isolation_level": "AUTOCOMMIT"})


# Degrees a window is shrunk by before its "wholly inside" test: PostGIS keeps index
# boxes in float32, rounded outward, off by at most 1.5e-5 degrees at longitude 180.
_INSIDE_MARGIN = 1e-4


def bbox_filter(model, bbox: tuple[float, float, float, float], dialect_name: str, column_name: str = "geom"):
    """A WHERE clause selecting rows of ``model`` whose geometry intersects ``bbox``.

    PostGIS uses its GiST index through ``ST_Intersects``; SpatiaLite needs its R*Tree
    (``idx_<table>_<column>``) asked explicitly, then an exact ``Intersects`` test.
    """
    minx, miny, maxx, maxy = bbox
    geom = getattr(model, column_name)
    if dialect_name != "sqlite":
        envelope = func.ST_MakeEnvelope(minx, miny, maxx, maxy, 4326)
        exact = func.ST_Intersects(geom, envelope)
        numbers = all(isinstance(v, (int, float)) for v in bbox)  # not bound parameters
        if not numbers or maxx - minx <= 2 * _INSIDE_MARGIN or maxy - miny <= 2 * _INSIDE_MARGIN:
            return exact
        # Most rows of a map window lie wholly inside it, and for them the index's box
        # settles it: ``@`` (box within box) against the window shrunk by more than the
        # float32 rounding of those boxes is true only for geometries truly inside.
        # GEOS is asked about the rows near the edges alone (a zoom-14 parcel tile:
        # ~250 of 2,900).
        inside = func.ST_MakeEnvelope(minx + _INSIDE_MARGIN, miny + _INSIDE_MARGIN,
                                      maxx - _INSIDE_MARGIN, maxy - _INSIDE_MARGIN, 4326)
        return geom.op("&&")(envelope) & (geom.op("@")(inside) | exact)
    rtree = table(f"idx_{model.__tablename__}_{column_name}", column("pkid"), column("xmin"),
                  column("xmax"), column("ymin"), column("ymax"))
    candidates = select(rtree.c.pkid).where(
        rtree.c.xmin <= maxx, rtree.c.xmax >= minx, rtree.c.ymin <= maxy, rtree.c.ymax >= miny
    )
    exact = func.Intersects(geom, func.BuildMbr(minx, miny, maxx, maxy, 4326)) == 1
    return model.id.in_(candidates) & exact


# Decimal places of coordinates written as GeoJSON: 15 is the most either engine
# writes, and enough that a double in lon/lat comes back as it went in.
GEOJSON_DECIMALS = 15


def as_geojson(geometry, dialect_name: str):
    """SQL giving a geometry column as RFC 7946 GeoJSON geometry text (NULL stays NULL).

    Both engines write the same text for the same geometry (no ``crs`` member for
    EPSG:4326), so feature pages are made in the database, not by GEOS in Python.
    """
    if dialect_name == "sqlite":
        return func.AsGeoJSON(geometry, GEOJSON_DECIMALS)
    return func.ST_AsGeoJSON(geometry, GEOJSON_DECIMALS)


def row_written(model, dialect_name: str):
    """SQL text naming one row as last written: it changes whenever the row is written.

    PostgreSQL writes every UPDATE as a new version of the row, stamped with its
    transaction in ``xmin``: an edit through the ORM, a bulk UPDATE or a fix typed into
    ``psql`` alike, and a row deleted and inserted again under its id. ``id:xmin`` is
    read off the row without formatting any timestamp (a page's 1,001 rows: 0.35 ms
    against 0.7 ms for the text below). SQLite has no such stamp: the row's id, the
    ``version`` every ORM write raises, and its creation and update times (SQLite may
    reuse the id of a deleted last row, but not with the same creation time).
    """
    if dialect_name == "postgresql":
        return cast(model.id, String) + ":" + cast(literal_column(f"{model.__tablename__}.xmin"), String)
    return (cast(model.id, String) + ":" + cast(model.version, String) + ":"
            + cast(model.created_at, String) + ":" + cast(model.updated_at, String))


# PostGIS keeps a stored EPSG:3857 copy of these tables' geometry (a generated column,
# so it follows every write), and their map tiles skip reprojecting each row on each
# request: half a zoom-14 parcel tile's time. SpatiaLite encodes tiles in Python.
WEB_MERCATOR_COLUMN = "geom_3857"
WEB_MERCATOR_TABLES = ("parcels",)


def add_web_mercator_copy(bind, table: str) -> list[str]:
    """DDL adding ``table``'s stored web-mercator geometry (none on SpatiaLite)."""
    if is_sqlite(bind):
        return []
    return [f"ALTER TABLE {table} ADD COLUMN {WEB_MERCATOR_COLUMN} geometry "
            f"GENERATED ALWAYS AS (ST_Transform(geom, 3857)) STORED"]


def drop_web_mercator_copy(bind, table: str) -> list[str]:
    return [] if is_sqlite(bind) else [f"ALTER TABLE {table} DROP COLUMN IF EXISTS {WEB_MERCATOR_COLUMN}"]


# SpatiaLite's own tables that GeoAlchemy2's filter (``geometry_columns*``,
# ``spatial_ref_sys*``, ``idx_*`` R*Trees, ...) does not already know.
SPATIALITE_BOOKKEEPING = frozenset({"ElementaryGeometries", "KNN", "KNN2", "SpatialIndex", "data_licenses",
                                    "sql_statements_log"})


def in_model_comparison(obj, name, type_, reflected, compare_to) -> bool:
    """Alembic's ``include_object``: what comparing the models with a database looks at.

    Autogenerate (``migrations/env.py``) and the drift test (``tests/test_schema_drift.py``)
    both use it. Left out, because they are the database's own and not the models':
    SpatiaLite's bookkeeping tables and the R*Tree tables behind its spatial indexes,
    PostGIS's ``spatial_ref_sys``, and PostGIS's stored web-mercator copy for tiles.
    GeoAlchemy2's helper also sees past how each database makes a geometry column's
    spatial index. Any other table in the database that no model describes is drift.
    """
    if type_ == "table" and reflected and compare_to is None and name in SPATIALITE_BOOKKEEPING:
        return False
    if type_ == "column" and name == WEB_MERCATOR_COLUMN and reflected and compare_to is None:
        return False
    return alembic_helpers.include_object(obj, name, type_, reflected, compare_to)


def insert_skipping_taken(bind, model, index_elements: list[str], index_where):
    """INSERT that skips rows a partial unique index already holds (another writer got
    there first) instead of failing: ``ON CONFLICT … DO NOTHING`` on both databases."""
    from sqlalchemy.dialects import postgresql, sqlite

    module = sqlite if is_sqlite(bind) else postgresql
    return module.insert(model).on_conflict_do_nothing(index_elements=index_elements, index_where=index_where)


def enable_spatial_sql(bind) -> list[str]:
    """DDL that makes the database spatial (SpatiaLite does it on connect)."""
    return [] if is_sqlite(bind) else ["CREATE EXTENSION IF NOT EXISTS postgis"]


def append_only_trigger(bind, table: str) -> list[str]:
    """DDL that makes ``table`` append-only on the current database."""
    if is_sqlite(bind):
        return [
            f"CREATE TRIGGER {table}_no_update BEFORE UPDATE ON {table} "
            f"BEGIN SELECT RAISE(ABORT, '{table} is append-only'); END",
            f"CREATE TRIGGER {table}_no_delete BEFORE DELETE ON {table} "
            f"BEGIN SELECT RAISE(ABORT, '{table} is append-only'); END",
        ]
    return [
        f"CREATE FUNCTION {table}_append_only() RETURNS trigger LANGUAGE plpgsql AS "
        f"$$ BEGIN RAISE EXCEPTION '{table} is append-only'; END $$",
        f"CREATE TRIGGER {table}_no_change BEFORE UPDATE OR DELETE ON {table} "
        f"FOR EACH ROW EXECUTE FUNCTION {table}_append_only()",
    ]


def drop_append_only_trigger(bind, table: str) -> list[str]:
    if is_sqlite(bind):
        return [f"DROP TRIGGER IF EXISTS {table}_no_update", f"DROP TRIGGER IF EXISTS {table}_no_delete"]
    return [
        f"DROP TRIGGER IF EXISTS {table}_no_change ON {table}",
        f"DROP FUNCTION IF EXISTS {table}_append_only()",
    ]


def write_once_trigger(bind, table: str, guard: str, columns: tuple[str, ...]) -> list[str]:
    """DDL that refuses to change ``columns`` of a row once ``guard`` is set.

    For evidence written once (a mailed letter, its SHA-256 and article number): the
    application refuses too, but the database holds even against a stray UPDATE.
    """
    name = f"{table}_{guard}_write_once"
    if is_sqlite(bind):
        changed = " OR ".join(f"NEW.{c} IS NOT OLD.{c}" for c in columns)
        return [
            f"CREATE TRIGGER {name} BEFORE UPDATE ON {table} "
            f"WHEN OLD.{guard} IS NOT NULL AND ({changed}) "
            f"BEGIN SELECT RAISE(ABORT, '{table}: {', '.join(columns)} are written once'); END",
        ]
    changed = " OR ".join(f"NEW.{c} IS DISTINCT FROM OLD.{c}" for c in columns)
    return [
        f"CREATE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
        f"IF OLD.{guard} IS NOT NULL AND ({changed}) THEN "
        f"RAISE EXCEPTION '{table}: {', '.join(columns)} are written once'; END IF; "
        f"RETURN NEW; END $$",
        f"CREATE TRIGGER {name} BEFORE UPDATE ON {table} FOR EACH ROW EXECUTE FUNCTION {name}()",
    ]


def drop_write_once_trigger(bind, table: str, guard: str) -> list[str]:
    name = f"{table}_{guard}_write_once"
    if is_sqlite(bind):
        return [f"DROP TRIGGER IF EXISTS {name}"]
    return [f"DROP TRIGGER IF EXISTS {name} ON {table}", f"DROP FUNCTION IF EXISTS {name}()"]


def reset_id_sequences(session, tables: list[str]) -> None:
    """After inserting rows with explicit ids, move PostgreSQL's id sequences past them.

    SQLite's INTEGER PRIMARY KEY needs nothing: it always continues from the maximum.
    """
    if is_sqlite(session.get_bind()):
        return
    for name in tables:
        session.execute(text(
            f"SELECT setval(pg_get_serial_sequence('{name}', 'id'), "
            f"COALESCE((SELECT MAX(id) FROM {name}), 0) + 1, false)"
        ))


def refresh_planner_statistics(session) -> None:
    """After a bulk load: PostgreSQL plans from statistics that only ANALYZE (or autovacuum,
    which a city may have switched off, and which runs only later) gathers; without them a
    freshly seeded city's bbox and cursor pages may be planned as if the tables were empty.
    SQLite plans well enough without ``sqlite_stat1``, and gathering it would change the
    plans every test has run against, so it is left alone."""
    if not is_sqlite(session.get_bind()):
        session.execute(text("ANALYZE"))
        session.commit()


def server_version(session) -> str:
    """Spatial library version, shown by the health check."""
    if is_sqlite(session.get_bind()):
        return "SpatiaLite " + session.execute(text("SELECT spatialite_version()")).scalar()
    return "PostGIS " + session.execute(text("SELECT postgis_lib_version()")).scalar()


def allocate_serials(session, mailer_id: str, count: int, first: int, last: int) -> int | None:
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
    return None if row is None else row[0] - count + 1


def audit_high_water(session) -> int:
    """The highest ``audit_events.id`` below which every change has committed.

    PostgreSQL hands out ids when a row is inserted, not when its transaction
    commits, so a reader could see id 11 before id 10 commits and a cursor at 11
    would skip 10. A SHARE lock waits for the writers in flight (and holds new ones
    until this transaction ends); the maximum id then visible is safe. SQLite has a
    single writer, so ids commit in order.
    """
    if not is_sqlite(session.get_bind()):
        session.execute(text("LOCK TABLE audit_events IN SHARE MODE"))
    return session.execute(text("SELECT COALESCE(MAX(id), 0) FROM audit_events")).scalar()


def audit_chain_head(session) -> tuple[int, str]:
    """Take the audit chain's turn and read its head: (last row's id, its hash).

    An UPDATE of the one ``audit_chain`` row, not a SELECT: on PostgreSQL it row-locks
    the head until commit, and a second writer's UPDATE waits, then re-reads the
    committed head (READ COMMITTED), so two transactions never chain onto the same row;
    on SQLite the UPDATE takes the write lock, so no other writer commits between the
    read and this transaction's own audit rows. Same SQL on both; the waits differ.
    """
    return tuple(session.execute(text(
        "UPDATE audit_chain SET last_id = last_id WHERE id = 1 RETURNING last_id, last_hash")).one())


def advance_audit_chain(session, last_id: int, last_hash: str) -> None:
    """Record the new head of the chain (the row lock is already this transaction's)."""
    session.execute(text("UPDATE audit_chain SET last_id = :i, last_hash = :h WHERE id = 1"),
                    {"i": last_id, "h": last_hash})


def extent(session, model, column_name: str = "geom") -> tuple[float, float, float, float] | None:
    """(minx, miny, maxx, maxy) of a table's geometries, or None when it is empty.

    SpatiaLite reads it off the R*Tree. PostGIS finds each side with four probes of the
    GiST index: the geometry nearest (``<->``, the index's own ordering) to a line lying
    beyond that side of the world is the one reaching furthest towards it, since its
    distance from the line is its own min x (min y, ...) plus a constant. ``ST_Extent``
    gave the same numbers reading every geometry: 110 ms for a 160,000-parcel city's
    layers, paid by each GIS client opening the collections (bench/README.md, "Session 11").
    """
    name = model.__tablename__
    if is_sqlite(session.get_bind()):
        sql = f"SELECT min(xmin), min(ymin), max(xmax), max(ymax) FROM idx_{name}_{column_name}"
    else:
        srid = int(getattr(model, column_name).type.srid)
        if srid != 4326:  # the lines below lie beyond longitude and latitude only
            raise ValueError(f"{name}.{column_name}: extent expects EPSG:4326, not {srid}")
        sides = []
        for edge, line in (("ST_XMin", "-1000 -1000,-1000 1000"), ("ST_YMin", "-1000 -1000,1000 -1000"),
                           ("ST_XMax", "1000 -1000,1000 1000"), ("ST_YMax", "-1000 1000,1000 1000")):
            sides.append(f"(SELECT {edge}({column_name}) FROM {name} "
                         f"WHERE {column_name} IS NOT NULL AND NOT ST_IsEmpty({column_name}) "
                         f"ORDER BY {column_name} <-> 'SRID=4326;LINESTRING({line})'::geometry LIMIT 1)")
        sql = "SELECT " + ", ".join(sides)
    row = session.execute(text(sql)).one()
    return None if row[0] is None else tuple(float(v) for v in row)


def snapshot_database(engine: Engine, dest_dir, describe) -> tuple[str, dict]:
    """Write a consistent copy of the whole database into ``dest_dir``.

    Taken while the server runs. SQLite's online backup API copies the pages of one
    read transaction, so writers carry on and the copy is one instant of the file;
    ``describe`` then reads the copy. On PostgreSQL a repeatable-read transaction
    exports its snapshot, ``pg_dump`` (custom format) dumps exactly that snapshot and
    ``describe`` reads it too, so the manifest and the dump are the same instant.

    Args:
        engine: The app's engine.
        dest_dir: The backup folder.
        describe: Called with a Connection that sees the copied instant; returns a dict.

    Returns:
        (file name, what ``describe`` returned).
    """
    import subprocess
    from pathlib import Path

    from sqlalchemy import create_engine

    dest = Path(dest_dir)
    if is_sqlite(engine):
        target = dest / "database.sqlite"
        source = engine.raw_connection()
        try:
            copy = sqlite_dbapi().connect(str(target))
            try:
                source.driver_connection.backup(copy)
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
    target = dest / "database.pgdump"
    with engine.connect().execution_options(isolation_level="REPEATABLE READ") as conn, conn.begin():
        snapshot = conn.execute(text("SELECT pg_export_snapshot()")).scalar()
        subprocess.run(["pg_dump", "--format=custom", "--no-owner", f"--snapshot={snapshot}",
                        "--file", str(target), libpq_url(engine.url)],
                       check=True, capture_output=True, text=True)
        return target.name, describe(conn)


def restore_database(database_url: str, source) -> None:
    """Load a :func:`snapshot_database` file into the (empty) database at ``database_url``."""
    import shutil
    import subprocess
    from pathlib import Path

    url, source = make_url(database_url), Path(source)
    if url.get_backend_name() == "sqlite":
        target = Path(url.database)
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_name(target.name + ".restoring")
        shutil.copyfile(source, partial)
        with open(partial, "rb") as f:
            os.fsync(f.fileno())
        os.replace(partial, target)
        return
    subprocess.run(["pg_restore", "--no-owner", "--exit-on-error", "--dbname", libpq_url(url), str(source)],
                   check=True, capture_output=True, text=True)


def database_is_empty(database_url: str) -> bool:
    """Whether the database at ``database_url`` holds none of Lateral's tables (or does not exist yet)."""
    from pathlib import Path

    from sqlalchemy import create_engine, inspect

    url = make_url(database_url)
    if url.get_backend_name() == "sqlite":
        path = Path(url.database or "")
        if not path.exists() or path.stat().st_size == 0:
            return True
    engine = create_engine(url, **engine_options(database_url))
    try:
        with engine.connect() as conn:
            names = set(inspect(conn).get_table_names())
    finally:
        engine.dispose()
    return not names & {"alembic_version", "parcels", "audit_events"}


def libpq_url(url) -> str:
    """The SQLAlchemy URL as libpq understands it (``postgresql://…``, no driver name)."""
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
