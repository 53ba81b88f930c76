"""``flask --app server security matrix``: the route × role table of ``docs/security.md``,
built from the routes' ``@access`` declarations."""

from __future__ import annotations

from pathlib import Path

import click
from flask import current_app
from flask.cli import with_appcontext

from server.core.access import policy

DOC = Path(__file__).resolve().parents[3] / "docs" / "security.md"
BEGIN = "<!-- policy matrix: written by `flask --app server security matrix --write`; do not edit -->"
END = "<!-- end of policy matrix -->"


def with_matrix(text: str, table: str) -> str:
    """``text`` with the part between the markers replaced by ``table``."""
    head, sep, rest = text.partition(BEGIN)
    if not sep or END not in rest:
        raise click.ClickException(f"{DOC} lacks the policy matrix markers")
    return f"{head}{BEGIN}\n{table}{END}{rest.partition(END)[2]}"


def init_app(app) -> None:
    app.cli.add_command(security_cli)


@click.group("security", help="Who may call what.")
def security_cli():
    pass


@security_cli.command("matrix")
@click.option("--write", is_flag=True, help=f"Write the table into {DOC.name}.")
@click.option("--check", is_flag=True, help=f"Fail when {DOC.name} differs from the routes' declarations.")
@with_appcontext
def matrix_command(write, check):
    """Print the route × role table made from the routes' declarations."""
    table = policy.matrix(current_app)
    if not (write or check):
        click.echo(table, nl=False)
        return
    text = DOC.read_text(encoding="utf-8")
    wanted = with_matrix(text, table)
    if check:
        if wanted != text:
            raise click.ClickException(f"{DOC} is out of date: run `flask --app server security matrix --write`")
        click.echo(f"{DOC.name} matches the policy")
        return
    DOC.write_text(wanted, encoding="utf-8")
    click.echo(f"wrote {DOC}")
