"""``flask --app server backup DEST``, ``restore SRC`` and ``verify`` (docs/operations.md)."""

from __future__ import annotations

import os

import click
from flask import Flask, current_app
from flask.cli import locate_app, with_appcontext

from server.core import settings
from server.core.errors import LateralError
from server.core.extensions import db
from server.operations.doctor import Finding
from server.operations.envfile import commented_values, read_environment_file


def init_app(app) -> None:
    app.cli.add_command(backup_cli)
    app.cli.add_command(restore_cli)
    app.cli.add_command(verify_cli)
    app.cli.add_command(doctor_command)


def _store():
    from server.field.api.photos import blob_store

    return blob_store()


def _say(message: str) -> None:
    click.echo(message, err=True)


@click.command("backup")
@with_appcontext
@click.argument("dest", type=click.Path(file_okay=False))
def backup_cli(dest):
    """Back up the database and the photos into DEST while the server runs."""
    from server.operations.backups import take_backup

    try:
        report = take_backup(dest, _store(), progress=_say)
    except LateralError as exc:
        raise click.ClickException(exc.message) from None
    click.echo(f"backed up into {report.folder}: {report.manifest['row_counts'].get('parcels', 0)} parcels, "
               f"{len(report.manifest['photos'])} photos, {len(report.manifest['letters'])} letters; "
               f"{report.objects_copied} of {report.objects} blobs copied ({report.bytes_copied} bytes)")


@click.command("restore")
@with_appcontext
@click.argument("src", type=click.Path(exists=True, file_okay=False))
def restore_cli(src):
    """Rebuild this (empty) instance from the backup in SRC, then check it against the backup."""
    from server.network.tiles import cache as tile_cache
    from server.operations.backups import compare_with_manifest, restore_backup
    from server.operations.integrity import verify_instance

    url = current_app.config["SQLALCHEMY_DATABASE_URI"]
    db.session.remove()
    db.engine.dispose()  # the restore replaces the database under this engine
    try:
        manifest = restore_backup(src, url, _store(), progress=_say)
    except LateralError as exc:
        raise click.ClickException(exc.message) from None
    db.engine.dispose()
    tile_cache.clear()  # the restored database's write versions start over
    problems = compare_with_manifest(manifest) + verify_instance(_store(), progress=_say)
    for problem in problems:
        click.echo(f"problem: {problem}", err=True)
    if problems:
        raise click.ClickException(f"the restored instance has {len(problems)} problems")
    click.echo(f"restored the backup of {manifest['taken_at']}: every row count, photo hash and letter hash "
               "matches")


@click.command("verify")
@with_appcontext
@click.option("--no-hash", is_flag=True, help="Compare blob sizes instead of reading every photo.")
def verify_cli(no_hash):
    """Check photos, mailed letters and references; name every problem (exit 1 if any)."""
    from server.operations.integrity import verify_instance

    problems = verify_instance(_store(), progress=_say, hash_blobs=not no_hash)
    for problem in problems:
        click.echo(f"problem: {problem}")
    if problems:
        raise click.ClickException(f"{len(problems)} problems found")
    click.echo("the instance is whole: every photo has its blob, every mailed letter matches the audit "
               "trail, every reference points at a row")


# ``flask --app server doctor``: is this server ready for a city? (docs/deploy.md).


def _environment_file_finding(path: str) -> Finding:
    commented = commented_values(read_environment_file(path))
    if not commented:
        return Finding("environment file", True, f"{path} reads as systemd reads it, with no comment in a value.")
    named = "; ".join(f"{key}={value!r}" for key, value in sorted(commented.items()))
    return Finding("environment file", False, f"systemd keeps a comment after a value as part of the value: "
                   f"{named}. Put each comment on a line of its own (docs/deploy.md).")


def _app_as_the_service_sees_it(values: dict[str, str]) -> Flask:
    """An app built from ``values`` alone for every setting, as the service unit builds it."""
    for name in settings.ENVIRONMENT_VARIABLES:
        os.environ.pop(name, None)
    os.environ.update(values)
    return locate_app(current_app.import_name, None)


@click.command("doctor")
@click.option("--env-file", type=click.Path(exists=True, dir_okay=False),
              help="Check the settings in this file as systemd's EnvironmentFile= reads it (the service's "
                   "own), instead of this shell's environment.")
def doctor_command(env_file):
    """Check settings, database, storage, rulebook, clock, jobs and disk; exit 1 on any problem."""
    from server.operations.doctor import run_checks

    app = current_app._get_current_object()
    findings = []
    if env_file:
        findings.append(_environment_file_finding(env_file))
        try:
            app = _app_as_the_service_sees_it(read_environment_file(env_file))
        except settings.SettingsError as exc:  # the service would not start either
            findings.append(Finding("settings", False, f"the service would not start: {exc}"))
            app = None
    if app is not None:
        findings += run_checks(app)
    for finding in findings:
        mark = "ok     " if finding.ok else "PROBLEM"
        click.echo(f"{mark}  {finding.check}: {finding.message}")
    problems = sum(not f.ok for f in findings)
    if problems:
        click.echo(f"\n{problems} problem(s) found.", err=True)
        raise SystemExit(1)
    click.echo("\nNo problems found.")
