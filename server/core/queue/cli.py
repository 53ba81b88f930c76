"""``flask --app server jobs worker``: run the queue's jobs (``make run`` and deploy/ start it)."""

from __future__ import annotations

import click
from flask import current_app
from flask.cli import AppGroup, with_appcontext

jobs_cli = AppGroup("jobs", help="The job queue: long work out of the web workers.")


@jobs_cli.command("worker")
@with_appcontext
@click.option("--workers", default=1, show_default=True, help="Jobs run at once (a child process each).")
def worker_cli(workers):
    """Run queued jobs until stopped; first queue again what a stopped worker left unfinished.

    Each job runs in a child process forked for it, which exits when the job ends
    (Huey's process workers with ``max_tasks=1``), so the memory a job takes (a
    whole-network rules run's few hundred MiB) goes back to the system after each job
    instead of staying with a long-lived worker.
    """
    from server.core.queue import service

    q = service.queue()
    if q.immediate:
        raise click.ClickException("LATERAL_QUEUE_IMMEDIATE runs jobs in the web workers: no worker to start")
    again = service.requeue_unfinished()
    q.beat()
    click.echo(f"job worker: {workers} at once, each job in a child process; {again} unfinished jobs queued again")
    current_app.logger.info("job worker started")
    consumer = service.consumer(workers)
    consumer.run()


def init_app(app) -> None:
    app.cli.add_command(jobs_cli)
