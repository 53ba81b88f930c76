"""The database seam: one module per engine behind one selector (``server/core/dialects/``).

Each engine module must define every function of the interface with the same
parameters, the selector must pick the module of the engine it is given in any of the
forms callers hold (a session, an engine, a URL, a name), and an error must be judged by
the rules of the engine whose driver raised it.
"""

from __future__ import annotations

import inspect
from datetime import datetime

import psycopg
import pytest
from sqlalchemy import create_engine
from sqlalchemy.exc import OperationalError

from server.core import dialects
from server.core.dialects import common, postgresql, sqlite
from server.core.extensions import db

INTERFACE = sorted(name for name, member in vars(common.Dialect).items()
                   if inspect.isfunction(member) and not name.startswith("_"))
ENGINE_MODULES = {"sqlite": sqlite, "postgresql": postgresql}


def test_the_interface_lists_the_seams_jobs():
    # A sample from each job: an interface that lost its functions would pass the tests below vacuously.
    assert {"install_engine_hooks", "writer_turn", "bbox_filter", "append_only_trigger", "audit_high_water",
            "snapshot_database"} <= set(INTERFACE)


@pytest.mark.parametrize("name", INTERFACE)
@pytest.mark.parametrize("engine", sorted(ENGINE_MODULES))
def test_each_engine_module_implements_every_function_of_the_interface(engine, name):
    module = ENGINE_MODULES[engine]
    assert inspect.isfunction(getattr(module, name, None)), f"{module.__name__} lacks {name}()"
    wanted = list(inspect.signature(getattr(common.Dialect, name)).parameters)[1:]  # without self
    assert list(inspect.signature(getattr(module, name)).parameters) == wanted


@pytest.mark.parametrize("name", INTERFACE)
def test_every_function_of_the_interface_is_callable_from_the_package(name):
    assert inspect.isfunction(getattr(dialects, name, None)), f"server.core.dialects lacks {name}()"


def test_the_selector_knows_exactly_the_engine_modules():
    assert dialects.ENGINES == ENGINE_MODULES


@pytest.mark.parametrize("given, module", [
    ("sqlite", sqlite),
    ("postgresql", postgresql),
    ("sqlite:////srv/lateral/lateral.sqlite", sqlite),
    ("postgresql+psycopg://lateral@db.example/lateral", postgresql),
])
def test_the_selector_reads_a_name_or_a_url(given, module):
    assert dialects.dialect_for(given) is module


def test_the_selector_reads_an_engine_and_its_url():
    engine = create_engine("postgresql+psycopg://lateral@db.example/lateral")  # never connects
    try:
        assert dialects.dialect_for(engine) is postgresql
        assert dialects.dialect_for(engine.url) is postgresql
    finally:
        engine.dispose()


def test_the_selector_reads_the_apps_session_and_its_bind(app, db_kind):
    module = {"spatialite": sqlite, "postgis": postgresql}[db_kind]
    assert dialects.dialect_for(db.session) is module
    assert dialects.dialect_for(db.session()) is module
    assert dialects.dialect_for(db.session.get_bind()) is module
    assert dialects.is_sqlite(db.session.get_bind()) is (module is sqlite)


def test_the_selector_refuses_an_engine_lateral_does_not_run_on():
    with pytest.raises(ValueError, match="not 'mysql'"):
        dialects.dialect_for("mysql+pymysql://lateral@db.example/lateral")


def _error(orig: Exception) -> OperationalError:
    return OperationalError("INSERT INTO photos …", {}, orig)


@pytest.mark.parametrize("orig, full", [
    (sqlite.sqlite_dbapi().OperationalError("database or disk is full"), True),
    (sqlite.sqlite_dbapi().OperationalError("database is locked"), False),
    (psycopg.errors.DiskFull("could not extend file: No space left on device"), True),
    (psycopg.errors.AdminShutdown("terminating connection due to administrator command"), False),
])
def test_a_full_disk_is_judged_by_the_engine_that_raised_it(orig, full):
    assert dialects.is_disk_full(_error(orig)) is full


@pytest.mark.parametrize("orig, transient", [
    (sqlite.sqlite_dbapi().OperationalError("database is locked"), True),
    (sqlite.sqlite_dbapi().OperationalError("disk I/O error"), False),
    # PostgreSQL: any OperationalError is the server away (restarted, unreachable).
    (psycopg.errors.AdminShutdown("terminating connection due to administrator command"), True),
])
def test_a_wait_is_judged_by_the_engine_that_raised_it(orig, transient):
    assert dialects.is_transient(_error(orig)) is transient


def test_the_database_folder_doctor_watches_is_the_sqlite_files(tmp_path):
    engines = [create_engine(f"sqlite:///{tmp_path / 'city.sqlite'}"),
               create_engine("postgresql+psycopg://lateral@db.example/lateral")]  # neither connects
    try:
        assert [dialects.database_folder(e) for e in engines] == [tmp_path, None]
    finally:
        for engine in engines:
            engine.dispose()


def test_only_a_database_server_has_a_clock_of_its_own(app, db_kind):
    clock = dialects.database_clock(db.session)
    if db_kind == "spatialite":
        assert clock is None  # a file on this host: its clock is this one
    else:
        assert isinstance(clock, datetime) and clock.tzinfo is not None
