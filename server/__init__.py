"""Lateral's Flask application factory.

``flask --app server run`` / ``gunicorn 'server:create_app()'``. Nothing is built at
import time: tests create one app per database.
"""

from __future__ import annotations

import importlib
import logging
from pathlib import Path

from flask import Flask

from server.core import city
from server.core.dialects import engine_options, install_engine_hooks
from server.core.extensions import db, migrate
from server.core.settings import Config, check_secret_key

#: The city's work, each a package over ``server.core`` with its own ``init_app(app, api)``
#: (routes, pages, commands, hooks), lower domains first: a domain imports only those before it.
DOMAINS = ("server.network", "server.rules", "server.field", "server.notices", "server.office",
           "server.operations", "server.demo")

#: Every module that declares tables, so the metadata is whole (Alembic's autogenerate, the
#: schema drift test) whatever else has been imported.
MODEL_MODULES = ("server.core.accounts.models", "server.core.audit.models", "server.network.models",
                 "server.rules.models", "server.field.models", "server.notices.models", "server.office.models")


def load_models() -> None:
    for name in MODEL_MODULES:
        importlib.import_module(name)


MIGRATIONS_DIR = str(Path(__file__).resolve().parent.parent / "migrations")


def create_app(overrides: dict | None = None) -> Flask:
    """Build the app. ``overrides`` replace settings read from the environment."""
    app = Flask(__name__, instance_relative_config=True)
    config = Config(app.instance_path).update(overrides)
    app.config.from_object(config)
    check_secret_key(app.config)
    app.config.setdefault(
        "SQLALCHEMY_ENGINE_OPTIONS", engine_options(app.config["SQLALCHEMY_DATABASE_URI"])
    )
    Path(app.instance_path).mkdir(parents=True, exist_ok=True)
    if app.config["LATERAL_BEHIND_PROXY"]:
        from werkzeug.middleware.proxy_fix import ProxyFix

        # One proxy (nginx) in front: its X-Forwarded-* headers are the request's truth.
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=1, x_proto=1, x_host=1, x_port=1)
    logging.basicConfig(level=logging.INFO)
    city.bind(app)
    load_models()

    db.init_app(app)
    with app.app_context():
        install_engine_hooks(db.engine)
    migrate.init_app(app, db, directory=MIGRATIONS_DIR, render_as_batch=True)

    from server.core import accounts, gate
    from server.core import api as core_api
    from server.core import pages as web
    from server.core.access import cli as access_cli
    from server.core.audit import cli as audit_cli
    from server.core.web import basic_cache, compression, headers, inputs, reads, throttle

    compression.init_app(app)  # first registered, so it compresses after every other handler
    headers.init_app(app)
    throttle.init_app(app)
    basic_cache.init_app(app)
    # Before any route is added: path integers are bounded to 64 bits.
    inputs.init_app(app)
    api = core_api.init_app(app)
    web.init_app(app)
    accounts.init_app(app, api)
    audit_cli.init_app(app)
    access_cli.init_app(app)
    for name in DOMAINS:
        importlib.import_module(name).init_app(app, api)
    gate.init_app(app)
    reads.init_app(app)  # after the gate: inserted before its login check
    return app
