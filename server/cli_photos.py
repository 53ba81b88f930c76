"""``flask --app server photos …``: housekeeping of photo uploads."""

from __future__ import annotations

import click
from flask import current_app


def init_app(app) -> None:
    app.cli.add_command(photos_cli)


@click.group("photos", help="Photo evidence: uploads and the blob store.")
def photos_cli():
    pass


@photos_cli.command("purge-uploads")
def purge_uploads():
    """Remove unfinished tus uploads past their expiry (run it daily, e.g. from cron)."""
    from server.api.photos import TUS
    from server.extensions import db
    from server.services import jobs

    removed = current_app.extensions[TUS].purge_expired()
    jobs.record_run(jobs.PURGE_UPLOADS, {"removed": removed})
    db.session.commit()
    click.echo(f"removed {removed} expired upload(s)")
