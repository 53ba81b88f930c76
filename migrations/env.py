"""Alembic environment: one set of migrations for SpatiaLite and PostGIS.

GeoAlchemy2's helpers teach Alembic about geometry columns and their spatial
indexes (SpatiaLite registers them through its own functions); SQLite runs in batch
mode because it cannot ALTER most things in place.
"""

import logging
from logging.config import fileConfig

from alembic import context
from flask import current_app
from geoalchemy2 import alembic_helpers

import server.models  # noqa: F401 - fills the metadata for autogenerate
from server.dialects import in_model_comparison

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


def run_migrations_online():
    options = dict(current_app.extensions["migrate"].configure_args)
    options.setdefault("process_revision_directives", _process)
    with engine.connect() as connection:
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
