"""Lateral's Flask application factory.

``flask --app server run`` / ``gunicorn 'server:create_app()'``. Nothing is built at
import time: tests create one app per database.
"""

from __future__ import annotations

import importlib
import logging
import os
from pathlib import Path

from flask import Flask

from server.core import city, settings
from server.core.dialects import engine_options, install_engine_hooks
from server.core.extensions import db, migrate

#: The city's work, each a package over ``server.core`` with its own ``init_app(app, api)``
#: (routes, pages, commands, hooks), lower domains first: a domain imports only those before it.
DOMAINS = ("server.network", "server.rules", "server.field", "server.permits", "server.notices",
           "server.portal", "server.office", "server.operations", "server.demo")

#: Every module that declares tables, so the metadata is whole (Alembic's autogenerate, the
#: schema drift test) whatever else has been imported.
MODEL_MODULES = ("server.core.accounts.models", "server.core.audit.models", "server.core.web.login_failures",
                 "server.core.queue.models", "server.network.models", "server.rules.models", "server.field.models",
                 "server.permits.models", "server.notices.models", "server.portal.models", "server.portal.cctv_models",
                 "server.office.models")


def load_models() -> None:
    for name in MODEL_MODULES:
        importlib.import_module(name)


#: The app's umask: no file it writes is readable by the host's other accounts.
UMASK = 0o027

MIGRATIONS_DIR = str(Path(__file__).resolve().parent.parent / "migrations")


def create_app(overrides: dict | None = None) -> Flask:
    """Build the app. ``overrides`` (``app.config`` keys) replace settings read from the environment.

    Raises:
        server.core.setting_types.SettingsError: naming every bad setting at once.
    """
    app = Flask(__name__, instance_relative_config=True)
    overrides = overrides or {}
    # Flask reads FLASK_DEBUG itself; a debug or test app may sign cookies with a weak key.
    production = not (app.debug or overrides.get("DEBUG") or overrides.get("TESTING"))
    lateral = settings.load(os.environ, overrides, instance_path=app.instance_path, production=production)
    app.config.from_mapping(lateral.as_config())
    # Flask's own keys (TESTING, DEBUG, …) and Lateral's fixed ones, beside the settings.
    app.config.from_mapping({key: value for key, value in overrides.items() if key not in settings.KEYS})
    settings.bind(app, lateral)
    app.config.setdefault("SQLALCHEMY_ENGINE_OPTIONS", engine_options(lateral.database_url, lateral.connect_timeout))
    # What Lateral writes is not for the host's other accounts: the SQLite file, backups,
    # photos and uploads hold password hashes, owners' details and evidence. The units say
    # UMask=0027 too; the sensitive files are made 0600 in folders 0700 where they are written.
    os.umask(UMASK)
    instance = Path(app.instance_path)
    instance.mkdir(mode=0o700, parents=True, exist_ok=True)
    if instance.stat().st_uid == os.getuid() and instance.stat().st_mode & 0o077:
        instance.chmod(0o700)  # the secret key and the SQLite file live here
    if lateral.behind_proxy:
        from server.core.web.proxies import TrustedProxies

        # nginx in front: its X-Forwarded-* headers are the request's truth, but only when
        # the request comes from it (LATERAL_TRUSTED_PROXIES), never from a client direct.
        app.wsgi_app = TrustedProxies(app.wsgi_app, lateral.trusted_proxies)
    logging.basicConfig(level=logging.INFO)
    city.bind(app)
    load_models()

    db.init_app(app)
    with app.app_context():
        install_engine_hooks(db.engine, lateral.spatialite_library)
    migrate.init_app(app, db, directory=MIGRATIONS_DIR, render_as_batch=True)

    from server.core import accounts, gate, queue
    from server.core import api as core_api
    from server.core import pages as web
    from server.core.access import cli as access_cli
    from server.core.audit import cli as audit_cli
    from server.core.errors import cli as errors_cli
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
    queue.init_app(app, api)
    audit_cli.init_app(app)
    access_cli.init_app(app)
    errors_cli.init_app(app)
    for name in DOMAINS:
        importlib.import_module(name).init_app(app, api)
    gate.init_app(app)
    reads.init_app(app)  # after the gate: inserted before its login check
    return app
