"""``flask --app server checklists …``: the checklist templates in server/checklists/."""

from __future__ import annotations

import click

from server.extensions import db


def init_app(app) -> None:
    app.cli.add_command(checklists_cli)


@click.group("checklists", help="Checklist templates (server/checklists/*.json).")
def checklists_cli():
    pass


@checklists_cli.command("load")
def load():
    """Load every template version the database does not hold yet."""
    from server.checklists import TemplateError
    from server.services.checklists import load_templates

    try:
        report = load_templates()
        db.session.commit()
    except TemplateError as exc:
        db.session.rollback()
        raise click.ClickException(str(exc)) from None
    for line in report:
        click.echo(line)
