"""``flask --app server checklists …``: the checklist templates in server/field/checklists/."""

from __future__ import annotations

import click
from flask import current_app

from server.core.transaction import transaction


def init_app(app) -> None:
    app.cli.add_command(checklists_cli)
    app.cli.add_command(photos_cli)


@click.group("checklists", help="Checklist templates (server/field/checklists/*.json).")
def checklists_cli():
    pass


@checklists_cli.command("load")
@transaction
def load():
    """Load every template version the database does not hold yet."""
    from server.field.checklist_templates import load_templates
    from server.field.checklists import TemplateError

    try:
        report = load_templates()
    except TemplateError as exc:
        raise click.ClickException(str(exc)) from None
    for line in report:
        click.echo(line)


# ``flask --app server photos …``: housekeeping of photo uploads.


@click.group("photos", help="Photo evidence: uploads and the blob store.")
def photos_cli():
    pass


@photos_cli.command("purge-uploads")
@transaction
def purge_uploads():
    """Remove unfinished tus uploads past their expiry (run it daily, e.g. from cron): the
    photos', and those of every other tus server the app runs (plumbers' CCTV videos)."""
    from server.core import jobs
    from server.field.uploads import TusServer

    removed = sum(found.purge_expired() for found in current_app.extensions.values() if isinstance(found, TusServer))
    jobs.record_run(jobs.PURGE_UPLOADS, {"removed": removed})
    click.echo(f"removed {removed} expired upload(s)")
