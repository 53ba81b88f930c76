"""The job worker as deployed (``flask --app server jobs worker``, issue #35): each job runs in
a child process that exits with it, so the worker does not keep a job's memory; a job
killed mid-run leaves nothing and runs once when the worker starts again."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import pytest
import sqlalchemy as sa

from server.core.queue import service
from server.demo import seed as demo
from server.rules import run as rules
from tests.support.databases import ENGINES, fresh_app

ROOT = Path(__file__).resolve().parents[3]
FLASK = Path(sys.executable).with_name("flask")
SECONDS = 90


@pytest.fixture(params=ENGINES)
def city(request, tmp_path):
    """A 300-parcel demo city committed to a database of its own, with the queue on a file."""
    queue_uri = f"sqlite:///{tmp_path / 'queue.sqlite3'}"
    with fresh_app(request.param, tmp_path, LATERAL_QUEUE_IMMEDIATE=False, LATERAL_QUEUE_URI=queue_uri) as app:
        with app.app_context():
            demo.seed(parcels=300, with_users=False)
        yield app


@contextmanager
def worker(app, tmp_path):
    """``flask jobs worker`` on the app's database and queue, in a process group of its own."""
    env = {**os.environ, "DATABASE_URL": app.config["SQLALCHEMY_DATABASE_URI"],
           "LATERAL_QUEUE_URI": app.config["LATERAL_QUEUE_URI"],
           "LATERAL_AUDIT_ANCHORS": str(tmp_path / "worker-anchors.log"), "PYTHONPATH": str(ROOT)}
    env.pop("LATERAL_QUEUE_IMMEDIATE", None)
    with open(tmp_path / "worker.log", "ab") as log:
        proc = subprocess.Popen([str(FLASK), "--app", "server", "jobs", "worker"], env=env, cwd=ROOT,
                                stdout=log, stderr=log, start_new_session=True)
    try:
        _until(lambda: _both(proc.pid), "the worker's scheduler and worker child")
        yield proc
    finally:
        with _quietly():
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)


@contextmanager
def _quietly():
    """A process that is gone by the time it is looked at, or killed, is no error."""
    try:
        yield
    except (ProcessLookupError, FileNotFoundError):
        pass


def _children(pid: int) -> set[int]:
    out = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with _quietly(), open(entry / "stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
                if int(fields[1]) == pid and fields[0] != "Z":
                    out.add(int(entry.name))
    return out


def _both(pid: int) -> set[int]:
    """The worker's children when the scheduler and a worker child are both there, else none."""
    found = _children(pid)
    return found if len(found) >= 2 else set()


def _rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))


def _until(ready, what: str, seconds: float = SECONDS):
    deadline = time.monotonic() + seconds
    while not (value := ready()):
        assert time.monotonic() < deadline, f"waited {seconds} s for {what}"
        time.sleep(0.05)
    return value


def _read(app, sql: str, **params):
    """One row, read through a connection of its own: the app's session may still hold an
    older snapshot (SQLite's WAL) when the worker, another process, commits."""
    engine = sa.create_engine(app.config["SQLALCHEMY_DATABASE_URI"], poolclass=sa.pool.NullPool)
    try:
        with engine.connect() as conn:
            return conn.execute(sa.text(sql), params).one()
    finally:
        engine.dispose()


def _job(app, job_id: int):
    return _read(app, "SELECT state, attempts, result, error FROM jobs WHERE id = :id", id=job_id)


def _open_violations(app) -> int:
    return _read(app, "SELECT count(*) FROM violations WHERE status = 'open'")[0]


def _result(job) -> dict:
    return job.result if isinstance(job.result, dict) else json.loads(job.result)


def _submit(app) -> int:
    with app.test_request_context():
        return service.submit(rules.JOB_KIND, {"rules": None, "user_id": None}).id


def test_a_rules_job_runs_in_a_child_that_takes_its_memory_away(city, tmp_path):
    with worker(city, tmp_path) as proc:
        # The scheduler and a worker child. Not a moment with the scheduler alone: the
        # minute's heartbeat also recycles the child, and its successor is forked up to a
        # second later (``CHILD_RESTART_SECONDS``); taken then, ``before`` held only the
        # scheduler, which never exits, and the test waited out its 90 s (a CI run did).
        before = _until(lambda: _both(proc.pid), "the scheduler and a worker child")
        rss_before = _rss_kib(proc.pid)
        job_id = _submit(city)
        job = _until(lambda: (j := _job(city, job_id)).state != "queued" and j, "the rules job")
        assert (job.state, job.error) == ("done", None) and _result(job)["opened"] == _open_violations(city) > 0
        with city.test_request_context():
            assert [s["stage"] for s in service.progress(job_id)][-2:] == ["reconcile", "done"]
        # The child that ran the job has exited (a new one waits for the next job) ...
        _until(lambda: before - _children(proc.pid), "the child to exit")
        _until(lambda: _both(proc.pid), "the next child")
        # ... and the worker itself is the size it was.
        assert _rss_kib(proc.pid) - rss_before < 4 * 1024
        # A child leaving after its job is routine: said at INFO, not warned about every minute.
        log = _until(lambda: "finished its task" in (t := (tmp_path / "worker.log").read_text()) and t,
                     "the worker to say the child was replaced")
        assert "died" not in log, log[-2000:]
        # A child that is killed is still warned about, with how it ended.
        replacement = _until(lambda: _children(proc.pid) - before, "the child that waits for the next job")
        os.kill(replacement.pop(), signal.SIGKILL)  # not the scheduler: that one was there before
        _until(lambda: "exit code -9" in (tmp_path / "worker.log").read_text(), "the warning for a killed child")


@contextmanager
def writes_held(app):
    """Another connection holds the job's writes back: PostgreSQL's violations table (the
    job waits at its first write, its work done), SQLite's write lock (the job waits to begin)."""
    engine = sa.create_engine(app.config["SQLALCHEMY_DATABASE_URI"])
    conn = engine.connect()
    try:
        if engine.dialect.name == "sqlite":
            conn.exec_driver_sql("BEGIN IMMEDIATE")
        else:
            conn.exec_driver_sql("LOCK TABLE violations IN SHARE MODE")
        yield
    finally:
        conn.rollback()
        conn.close()
        engine.dispose()


def test_a_job_killed_before_it_commits_leaves_nothing_and_runs_once_after_a_restart(city, tmp_path):
    with worker(city, tmp_path) as proc:
        job_id = _submit(city)
        with writes_held(city), city.test_request_context():
            _until(lambda: service.pending() == 0, "the worker to take the job")
            time.sleep(1.0)
            assert _job(city, job_id).state == "queued"  # waiting on the held writes, not done
            os.killpg(proc.pid, signal.SIGKILL)
    assert _job(city, job_id).state == "queued" and _open_violations(city) == 0
    with worker(city, tmp_path):  # starts by queueing again what the killed one left
        job = _until(lambda: (j := _job(city, job_id)).state != "queued" and j, "the job to run again")
    assert (job.state, job.attempts) == ("done", 1)
    assert _result(job)["opened"] == _open_violations(city) > 0
