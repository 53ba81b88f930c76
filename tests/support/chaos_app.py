"""WSGI entry for fault-injection tests: the app, with a worker that may die after commit.

``gunicorn tests.support.chaos_app:app`` with, in the environment:

- ``LATERAL_TEST_APP_OVERRIDES``: JSON settings for ``create_app`` (database, blob store);
- ``LATERAL_TEST_DIE_AFTER_COMMIT``: chance (0–1) that a push or tus PATCH, once the
  app has answered it (and so committed), kills the worker with SIGKILL instead of
  sending the answer;
- ``LATERAL_TEST_CHAOS_SEED``, ``LATERAL_TEST_CHAOS_COUNTER``: the decisions are drawn
  from the seed and a request counter kept in a file, so they survive the worker's
  deaths and repeat from run to run.

Test-only: nothing under ``server/`` knows about it.
"""

from __future__ import annotations

import fcntl
import json
import os
import random
import signal
from pathlib import Path

from server import create_app
from server.core.extensions import db


def _next_draw(counter: Path, seed: str) -> float:
    with open(counter, "a+") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        fh.seek(0)
        n = int(fh.read() or 0) + 1
        fh.seek(0)
        fh.truncate()
        fh.write(str(n))
        fh.flush()
        os.fsync(fh.fileno())
    return random.Random(f"{seed}:{n}").random()


def _dies_after_commit(environ) -> bool:
    method, path = environ["REQUEST_METHOD"], environ.get("PATH_INFO", "")
    return (method == "POST" and path == "/api/v1/sync/push") or (
        method == "PATCH" and path.startswith("/api/v1/uploads/")
    )


def die_after_commit(wsgi_app, chance: float, counter: Path, seed: str):
    """Wrap ``wsgi_app`` so that eligible requests may kill the process after answering."""

    def middleware(environ, start_response):
        if chance <= 0 or not _dies_after_commit(environ):
            return wsgi_app(environ, start_response)
        answer = {}

        def capture(status, headers, exc_info=None):
            answer["status"], answer["headers"] = status, headers
            return lambda data: None

        iterable = wsgi_app(environ, capture)
        try:
            body = b"".join(iterable)  # the app has committed once this returns
        finally:
            if hasattr(iterable, "close"):
                iterable.close()
        if _next_draw(counter, seed) < chance:
            with open(counter.with_name("chaos-deaths"), "a") as log:
                log.write(f"{environ['REQUEST_METHOD']} {environ.get('PATH_INFO')} {answer['status']}\n")
                log.flush()
                os.fsync(log.fileno())
            os.kill(os.getpid(), signal.SIGKILL)
        start_response(answer["status"], answer["headers"])
        return [body]

    return middleware


def make_app():
    overrides = json.loads(os.environ.get("LATERAL_TEST_APP_OVERRIDES", "{}"))
    flask_app = create_app(overrides)
    with flask_app.app_context():
        db.engine.dispose()  # no connection crosses gunicorn's fork
    flask_app.wsgi_app = die_after_commit(
        flask_app.wsgi_app,
        float(os.environ.get("LATERAL_TEST_DIE_AFTER_COMMIT", "0")),
        Path(os.environ.get("LATERAL_TEST_CHAOS_COUNTER", "/dev/null")),
        os.environ.get("LATERAL_TEST_CHAOS_SEED", "0"),
    )
    return flask_app


app = make_app() if os.environ.get("LATERAL_TEST_APP_OVERRIDES") else None
