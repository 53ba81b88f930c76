"""``flask --app server doctor``: is this server ready for a city? (docs/deploy.md)."""

from __future__ import annotations

import click
from flask import current_app


def init_app(app) -> None:
    app.cli.add_command(doctor_command)


@click.command("doctor")
def doctor_command():
    """Check settings, database, storage, rulebook, clock, jobs and disk; exit 1 on any problem."""
    from server.services.doctor import run_checks

    findings = run_checks(current_app._get_current_object())
    for finding in findings:
        mark = "ok     " if finding.ok else "PROBLEM"
        click.echo(f"{mark}  {finding.check}: {finding.message}")
    problems = sum(not f.ok for f in findings)
    if problems:
        click.echo(f"\n{problems} problem(s) found.", err=True)
        raise SystemExit(1)
    click.echo("\nNo problems found.")
