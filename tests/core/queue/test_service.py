"""The job queue (server/core/queue/service.py, issue #35): a job takes effect once, keeps its
result or error, survives a worker's restart, and a queue with no worker is reported."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from server.core.audit import trail as audit
from server.core.audit.models import AuditEvent
from server.core.extensions import db
from server.core.queue import service
from server.core.queue.models import Job
from server.operations.doctor import check_job_queue


def _notes() -> int:
    return db.session.scalar(select(func.count(AuditEvent.id)).where(AuditEvent.action == "queue_test"))


@pytest.fixture
def note_kind(app, monkeypatch):
    """A kind of job that writes one audit row, failing on its first run if asked to."""
    runs = []

    def work(params, progress):
        runs.append(params)
        progress("write", 0, 1, None)
        audit.record("queue_test", "test", None, None, params, None)
        db.session.flush()
        if params.get("fail_first") and len(runs) == 1:
            raise RuntimeError("the worker fell over")
        return {"runs": len(runs)}

    monkeypatch.setitem(service.queue().kinds, "queue_test", work)
    return runs


def test_a_job_runs_and_keeps_its_result_and_progress(app, note_kind):
    job = service.submit("queue_test", {"n": 1})
    assert (job.state, job.result, job.error) == ("done", {"runs": 1}, None)
    assert [s["stage"] for s in service.progress(job.id)] == ["write", "done"]
    assert _notes() == 1


def test_a_job_run_again_takes_no_effect_twice(app, note_kind):
    job = service.submit("queue_test", {"n": 1})
    service.execute(job.id)
    service.execute(job.id)
    assert _notes() == 1 and len(note_kind) == 1


def test_a_failed_run_leaves_nothing_and_its_retry_takes_effect_once(app, note_kind):
    with pytest.raises(RuntimeError):
        service.execute(_queued({"fail_first": True}))
    job = db.session.scalars(select(Job).order_by(Job.id.desc())).first()
    assert job.state == "failed" and "the worker fell over" in job.error and _notes() == 0
    service.execute(job.id)  # Huey's retry
    db.session.expire_all()
    job = db.session.get(Job, job.id)
    assert (job.state, job.error, job.attempts) == ("done", None, 2) and _notes() == 1


def _queued(params: dict) -> int:
    from server.core.transaction import own_transaction

    with own_transaction():
        job = Job(kind="queue_test", params=params, state="queued")
        db.session.add(job)
        db.session.flush()
        return job.id


@pytest.fixture
def worker_queue(app, tmp_path, monkeypatch, note_kind):
    """The queue as deployed: Huey on a SQLite file, a job waiting until a worker takes it."""
    monkeypatch.setitem(app.config, "LATERAL_QUEUE_IMMEDIATE", False)
    monkeypatch.setitem(app.config, "LATERAL_QUEUE_URI", f"sqlite:///{tmp_path / 'queue.sqlite3'}")

    def start():
        q = service.Queue(app)
        q.kinds.update(service.queue().kinds)
        monkeypatch.setitem(app.extensions, service.EXTENSION, q)
        return q

    return start


def test_a_job_waits_for_the_worker_and_survives_its_restart(app, worker_queue):
    q = worker_queue()
    job = service.submit("queue_test", {"n": 2})
    job_id = job.id
    assert job.state == "queued" and q.huey.pending_count() == 1 and _notes() == 0
    q = worker_queue()  # the worker (and this process's queue) started again
    assert q.huey.pending_count() == 1
    q.huey.execute(q.huey.dequeue())  # as the worker does, in an app context of its own
    assert db.session.get(Job, job_id).state == "done" and _notes() == 1


def test_a_job_lost_by_a_stopped_worker_is_queued_again_at_start(app, worker_queue):
    q = worker_queue()
    job_id = service.submit("queue_test", {"n": 3}).id
    q.huey.dequeue()  # taken by a worker that was killed before it finished
    q = worker_queue()
    assert q.huey.pending_count() == 0
    assert service.requeue_unfinished() == 1
    q.huey.execute(q.huey.dequeue())
    assert db.session.get(Job, job_id).state == "done" and _notes() == 1


def test_the_doctor_reports_a_queue_with_no_worker(app, worker_queue):
    q = worker_queue()
    service.submit("queue_test", {"n": 4})
    finding = check_job_queue(app)
    assert not finding.ok and "no worker" in finding.message and "1 jobs are waiting" in finding.message
    q.beat()
    finding = check_job_queue(app)
    assert finding.ok and "A worker is running" in finding.message


def test_the_doctor_needs_no_worker_when_jobs_run_in_the_request(app):
    assert check_job_queue(app).ok
