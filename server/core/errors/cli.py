"""``flask --app server errors table``: the error table of ``docs/api.md``, from the catalogue."""

from __future__ import annotations

from pathlib import Path

import click

from server.core.errors.catalogue import ERRORS

DOC = Path(__file__).resolve().parents[3] / "docs" / "api.md"
BEGIN = "<!-- error table: written by `flask --app server errors table --write`; do not edit -->"
END = "<!-- end of error table -->"


def table() -> str:
    """Every code of the catalogue as a Markdown table, by status, then code."""
    rows = sorted(ERRORS.items(), key=lambda item: (item[1].status, item[0]))
    lines = ["| status | code | meaning |", "|---|---|---|"]
    lines += [f"| {spec.status} | `{code}` | {spec.meaning} |" for code, spec in rows]
    return "\n".join(lines) + "\n"


def with_table(text: str, body: str) -> str:
    """``text`` with the part between the markers replaced by ``body``."""
    head, sep, rest = text.partition(BEGIN)
    if not sep or END not in rest:
        raise click.ClickException(f"{DOC} lacks the error table markers")
    return f"{head}{BEGIN}\n{body}{END}{rest.partition(END)[2]}"


def init_app(app) -> None:
    app.cli.add_command(errors_cli)


@click.group("errors", help="The error codes clients can be answered with.")
def errors_cli():
    pass


@errors_cli.command("table")
@click.option("--write", is_flag=True, help=f"Write the table into {DOC.name}.")
@click.option("--check", is_flag=True, help=f"Fail when {DOC.name} differs from the catalogue.")
def table_command(write, check):
    """Print the code × status table made from server/core/errors/catalogue.py."""
    body = table()
    if not (write or check):
        click.echo(body, nl=False)
        return
    text = DOC.read_text(encoding="utf-8")
    wanted = with_table(text, body)
    if check:
        if wanted != text:
            raise click.ClickException(f"{DOC} is out of date: run `flask --app server errors table --write`")
        click.echo(f"{DOC.name} matches the catalogue")
        return
    DOC.write_text(wanted, encoding="utf-8")
    click.echo(f"wrote {DOC}")
