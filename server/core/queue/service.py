"""Long work out of the web workers: jobs on a Huey queue (issue #35).

A route (or command) ``submit``s a job: its row in ``jobs`` commits on its own, so the
worker can read it, and the queue is told its id. The worker (``flask --app server jobs
worker``; ``make run`` and ``deploy/`` start it) runs the job's kind, registered by its
domain with ``register_kind``, inside one write transaction that also marks the row
``done`` with its result, and only if no other run already did: a job retried, or run
again after a worker restarted mid-run, takes effect once. Each job runs in a child
process of the worker that exits when the job ends (``consumer``), so the worker does
not keep the memory a job took. A failure is kept on the row
(``failed``, its error) and retried by Huey (``RETRIES``); a ``LateralError`` is the
job's own answer and is not retried.

Progress goes to the queue's own store (``Progress``), never the database: SQLite has
one writer, and the job holds it. Pages read it back (``progress``) for their bars.

The engine: Huey on a SQLite file of its own (``instance/queue.sqlite3``, or
``LATERAL_QUEUE_URI=sqlite:////path``; no server to run), or Redis where
``LATERAL_QUEUE_URI=redis://…`` (several hosts).
``LATERAL_QUEUE_IMMEDIATE`` runs each job inside the request that submits it (tests,
development without a worker).
"""

from __future__ import annotations

import logging
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from flask import Flask, current_app
from huey import Huey, MemoryHuey, RedisHuey, SqliteHuey, crontab
from huey.consumer import Consumer
from sqlalchemy import update

from server.core.errors import LateralError
from server.core.extensions import db
from server.core.models import utcnow
from server.core.queue.models import Job
from server.core.transaction import own_transaction

EXTENSION = "lateral_queue"
#: How often the worker replaces a child whose job ended (Huey's health check), seconds.
CHILD_RESTART_SECONDS = 1
RETRIES = 2
RETRY_DELAY_SECONDS = 10
HEARTBEAT_KEY = "lateral:worker-heartbeat"
#: A worker silent this long is taken for stopped (the heartbeat comes every minute).
HEARTBEAT_STALE_SECONDS = 180

#: ``run(params, progress) -> result``: the job's work, in the caller's (the job's) transaction.
Work = Callable[[dict, "Progress"], dict]


class _AlreadyDone(Exception):
    """Another run of this job committed first: this one's work is rolled back."""


class Queue:
    def __init__(self, app: Flask):
        config = app.config
        self.kinds: dict[str, Work] = {}
        self.huey = _huey(app)
        self.immediate = bool(config.get("LATERAL_QUEUE_IMMEDIATE"))
        if self.immediate:
            self.huey.immediate = True

        @self.huey.task(retries=RETRIES, retry_delay=RETRY_DELAY_SECONDS, name="lateral.run_job")
        def run_job(job_id: int) -> None:
            if self.immediate:  # inside the submitting request's app context already
                execute(job_id)
                return
            with app.app_context():
                try:
                    execute(job_id)
                finally:
                    db.session.remove()

        @self.huey.on_startup(name="lateral.forked")
        def forked() -> None:
            # A child forked by the worker: never use a database connection the parent opened.
            with app.app_context():
                db.engine.dispose(close=False)

        @self.huey.periodic_task(crontab(minute="*"), name="lateral.heartbeat")
        def heartbeat() -> None:
            self.beat()

        self.run_job = run_job

    def beat(self) -> None:
        self.huey.put(HEARTBEAT_KEY, time.time())


def _huey(app: Flask) -> Huey:
    config = app.config
    uri = config.get("LATERAL_QUEUE_URI")
    if config.get("LATERAL_QUEUE_IMMEDIATE"):
        return MemoryHuey("lateral")
    if uri and not uri.startswith("sqlite:"):
        return RedisHuey("lateral", url=uri)
    path = Path(uri.removeprefix("sqlite:///")) if uri else Path(app.instance_path) / "queue.sqlite3"
    path.parent.mkdir(parents=True, exist_ok=True)
    return SqliteHuey("lateral", filename=str(path))


def consumer(workers: int = 1) -> Consumer:
    """The worker: Huey's consumer with ``workers`` child processes, each forked for one job.

    A child runs one task and exits (``max_tasks=1``); the consumer forks the next
    within ``CHILD_RESTART_SECONDS``. So a job's memory leaves with its process, and the
    long-lived worker stays the size it started at. The parent lets go of its database
    connections first: children open their own.
    """
    q = queue()
    db.session.remove()
    db.engine.dispose()
    made = q.huey.create_consumer(workers=workers, worker_type="process", periodic=True, max_tasks=1,
                                  check_worker_health=True, health_check_interval=CHILD_RESTART_SECONDS)
    made._logger.addFilter(_RoutineReplacements(made))
    return made


class _RoutineReplacements(logging.Filter):
    """Huey's consumer warns "Worker N died, restarting" for every child that has exited.
    Here every child exits after its one task (the minute's heartbeat included), so that
    warning came every minute, for nothing. A child that ended by itself (exit code 0:
    its job done, or failed and logged by the child) is replaced at INFO; one that was
    killed (the kernel's OOM killer, a signal) keeps the warning, with how it ended."""

    def __init__(self, consumer: Consumer):
        super().__init__()
        self.consumer = consumer

    def filter(self, record: logging.LogRecord) -> bool:
        if record.msg != "Worker %d died, restarting." or not record.args:
            return True
        number = record.args[0] if isinstance(record.args, tuple) else None
        index = number - 1 if isinstance(number, int) else -1
        if not 0 <= index < len(self.consumer.worker_threads):
            return True
        exit_code = getattr(self.consumer.worker_threads[index][1], "exitcode", None)
        if exit_code == 0:
            record.levelno, record.levelname = logging.INFO, "INFO"
            record.msg = "Worker %d finished its task; a fresh child process takes the next."
        else:
            record.msg = "Worker %d died (exit code %s), restarting."
            record.args = (index + 1, exit_code)
        return True


def init_app(app: Flask) -> None:
    app.extensions[EXTENSION] = Queue(app)


def queue() -> Queue:
    return current_app.extensions[EXTENSION]


def register_kind(app: Flask, kind: str, work: Work) -> None:
    """Let jobs of ``kind`` run ``work`` (at app start, as write hooks are registered)."""
    app.extensions[EXTENSION].kinds[kind] = work


class Progress:
    """What a running job tells: each step (stage, done, total, detail) in the queue's store."""

    def __init__(self, job_id: int):
        self.job_id, self.steps = job_id, []  # type: ignore[var-annotated]

    def __call__(self, stage: str, done: int = 0, total: int = 0, detail: str | None = None) -> None:
        self.steps.append({"stage": stage, "done": done, "total": total, "detail": detail})
        queue().huey.put(_progress_key(self.job_id), list(self.steps))


def _progress_key(job_id: int) -> str:
    return f"lateral:job-progress:{job_id}"


def progress(job_id: int) -> list[dict]:
    """The steps job ``job_id`` has told so far (kept while the queue keeps them)."""
    return queue().huey.get(_progress_key(job_id), peek=True) or []


def submit(kind: str, params: dict, user=None) -> Job:
    """Record a job and queue it; with ``LATERAL_QUEUE_IMMEDIATE`` it has run when this returns.

    Raises:
        KeyError: no domain registered ``kind`` (a mistake in the code, not the caller's).
    """
    q = queue()
    if kind not in q.kinds:
        raise KeyError(f"no kind of job {kind!r}; registered: {sorted(q.kinds)}")
    # Its own transaction: the worker, another process, must find the row committed.
    with own_transaction():
        job = Job(kind=kind, params=params, state="queued", user_id=getattr(user, "id", None))
        db.session.add(job)
        db.session.flush()
        job_id = job.id
    q.run_job(job_id)
    db.session.expire_all()
    return db.session.get(Job, job_id) or job


def execute(job_id: int) -> None:
    """Run one job, once: its work and its ``done`` commit together, or neither does."""
    job = db.session.get(Job, job_id)
    if job is None or job.state == "done":
        return
    work = queue().kinds[job.kind]
    tell = Progress(job_id)
    params = dict(job.params or {})
    try:
        with own_transaction():
            result = work(params, tell)
            done = db.session.execute(
                update(Job).where(Job.id == job_id, Job.state != "done")
                .values(state="done", result=result, error=None, finished_at=utcnow(),
                        attempts=Job.attempts + 1))
            if done.rowcount != 1:  # type: ignore[attr-defined]
                raise _AlreadyDone
    except _AlreadyDone:
        return
    except LateralError as exc:  # the job's own answer: kept, not retried
        _failed(job_id, exc.message)
        return
    except Exception:
        _failed(job_id, traceback.format_exc(limit=5))
        raise  # Huey retries it
    tell("done")


def _failed(job_id: int, error: str) -> None:
    with own_transaction():
        db.session.execute(update(Job).where(Job.id == job_id, Job.state != "done")
                           .values(state="failed", error=error[-4000:], finished_at=utcnow(),
                                   attempts=Job.attempts + 1))


def requeue_unfinished() -> int:
    """Queue again every job not done (a worker's start: what a stopped worker left)."""
    q = queue()
    ids = list(db.session.scalars(db.select(Job.id).where(Job.state == "queued").order_by(Job.id)))
    db.session.rollback()
    for job_id in ids:
        q.run_job(job_id)
    return len(ids)


def view(job: Job) -> dict[str, Any]:
    """A job as the API and the pages read it: its row and the progress told so far."""
    steps = progress(job.id)
    last = steps[-1] if steps else {"stage": "queued", "done": 0, "total": 0, "detail": None}
    return {"id": job.id, "kind": job.kind, "state": job.state, "params": job.params,
            "created_at": job.created_at.isoformat() if job.created_at else None,
            "finished_at": job.finished_at.isoformat() if job.finished_at else None,
            "attempts": job.attempts, "progress": last, "steps": steps, "result": job.result, "error": job.error}


def worker_heartbeat() -> float | None:
    """When a worker last said it was alive (seconds since the epoch), or None."""
    value = queue().huey.get(HEARTBEAT_KEY, peek=True)
    return float(value) if value is not None else None


def pending() -> int:
    return queue().huey.pending_count()
