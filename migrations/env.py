"""Alembic environment: one set of migrations for SpatiaLite and PostGIS.

GeoAlchemy2's helpers teach Alembic about geometry columns and their spatial
indexes (SpatiaLite registers them through its own functions); SQLite runs in batch
mode because it cannot ALTER most things in place.
"""

import logging
from contextlib import contextmanager
from logging.config import fileConfig

from alembic import context
from flask import current_app
from geoalchemy2 import alembic_helpers

from server import load_models
from server.core.dialects import in_model_comparison

load_models()  # every domain's tables in the metadata, for autogenerate
config = context.config
fileConfig(config.config_file_name, disable_existing_loggers=False)
log = logging.getLogger("alembic.env")

engine = current_app.extensions["migrate"].db.engine
metadata = current_app.extensions["migrate"].db.metadata
config.set_main_option("sqlalchemy.url", engine.url.render_as_string(hide_password=False).replace("%", "%%"))


def _skip_empty(context_, revision, directives):
    if getattr(config.cmd_opts, "autogenerate", False) and directives[0].upgrade_ops.is_empty():
        directives[:] = []
        log.info("No changes in schema detected.")


def _process(context_, revision, directives):
    _skip_empty(context_, revision, directives)
    if directives:
        alembic_helpers.writer.process_revision_directives(context_, revision, directives)


@contextmanager
def _sqlite_foreign_keys_off(connection):
    """SQLite: foreign keys off while migrating, checked and back on afterwards.

    A batch migration rebuilds a table: create the new one, copy, DROP the old, rename.
    With foreign keys on, that DROP deletes the old table's rows one by one, and a
    referencing ``ON DELETE CASCADE`` (``notice_violations`` of ``notices``) deletes their
    rows too. SQLite's own procedure for altering a table turns foreign keys off first and
    runs ``PRAGMA foreign_key_check`` before turning them on. The PRAGMA is a no-op inside
    a transaction, so it goes to the driver connection before SQLAlchemy begins one.
    """
    if connection.dialect.name != "sqlite":
        yield
        return
    raw = connection.connection.driver_connection
    raw.execute("PRAGMA foreign_keys = OFF")
    try:
        yield
        if connection.in_transaction():
            connection.commit()
        broken = raw.execute("PRAGMA foreign_key_check").fetchall()
        if broken:
            raise RuntimeError(f"the migration left rows whose foreign keys point nowhere: {broken[:5]}")
    finally:
        raw.execute("PRAGMA foreign_keys = ON")


def run_migrations_online():
    options = dict(current_app.extensions["migrate"].configure_args)
    options.setdefault("process_revision_directives", _process)
    with engine.connect() as connection, _sqlite_foreign_keys_off(connection):
        context.configure(
            connection=connection,
            target_metadata=metadata,
            include_object=in_model_comparison,
            render_item=alembic_helpers.render_item,
            render_as_batch=connection.dialect.name == "sqlite",
            **{k: v for k, v in options.items() if k != "render_as_batch"},
        )
        with context.begin_transaction():
            context.run_migrations()


if context.is_offline_mode():
    raise SystemExit("offline (SQL script) migrations are not supported; run them against a database")
run_migrations_online()
