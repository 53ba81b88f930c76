"""Command line: ``flask --app server …`` or the ``lateral`` console script."""

from __future__ import annotations

import sys

import click
from flask.cli import FlaskGroup

from server import (
    cli_audit,
    cli_backup,
    cli_checklists,
    cli_doctor,
    cli_exports,
    cli_imports,
    cli_notices,
    cli_photos,
    cli_security,
)
from server.extensions import db
from server.models.users import ROLES


def init_app(app) -> None:
    app.cli.add_command(users_cli)
    app.cli.add_command(demo_cli)
    cli_exports.init_app(app)
    cli_checklists.init_app(app)
    cli_photos.init_app(app)
    app.cli.add_command(rules_cli)
    cli_notices.init_app(app)
    cli_imports.init_app(app)
    cli_doctor.init_app(app)
    cli_backup.init_app(app)
    cli_audit.init_app(app)
    cli_security.init_app(app)


@click.group("users", help="Manage the people who use Lateral.")
def users_cli():
    pass


@users_cli.command("create")
@click.argument("name")
@click.option("--role", type=click.Choice(ROLES), required=True)
@click.option("--password-stdin", is_flag=True, help="Read the password from standard input.")
@click.option("--display-name", default=None)
def create_user(name, role, password_stdin, display_name):
    """Create user NAME with ROLE."""
    from server.services.auth import AuthError
    from server.services.auth import create_user as create

    if password_stdin:
        password = sys.stdin.readline().rstrip("\n")
    else:
        password = click.prompt("Password", hide_input=True, confirmation_prompt=True)
    try:
        create(name, role, password, display_name)
        db.session.commit()
    except AuthError as exc:
        db.session.rollback()
        raise click.ClickException(str(exc)) from None
    click.echo(f"created {role} {name}")


@users_cli.command("set-password")
@click.argument("name")
@click.option("--password-stdin", is_flag=True, help="Read the new password from standard input.")
def set_password(name, password_stdin):
    """Give user NAME a new password (an admin's reset); their sessions end."""
    from sqlalchemy import select

    from server.models import User
    from server.services.auth import AuthError
    from server.services.auth import set_password as set_pw

    user = db.session.scalar(select(User).where(User.username == name))
    if user is None:
        raise click.ClickException(f"no user {name!r}")
    if password_stdin:
        password = sys.stdin.readline().rstrip("\n")
    else:
        password = click.prompt("New password", hide_input=True, confirmation_prompt=True)
    try:
        set_pw(user, password, None)
        db.session.commit()
    except AuthError as exc:
        db.session.rollback()
        raise click.ClickException(str(exc)) from None
    click.echo(f"password of {name} changed; their browser sessions and Basic logins ended")


#: The largest demo city `demo seed` plays the survey forward in by default (a rules run over
#: the whole network is the costly part); --living asks for it at any size.
LIVING_MAX_PARCELS = 200_000


@click.group("demo", help="The synthetic demo city around Arcadia, Wisconsin.")
def demo_cli():
    pass


@demo_cli.command("seed")
@click.option("--parcels", default=1200, show_default=True, help="How many parcels to build.")
@click.option("--seed", "rng_seed", default=315, show_default=True, help="Random seed (same seed, same city).")
@click.option("--if-empty", is_flag=True, help="Do nothing when parcels already exist.")
@click.option("--users/--no-users", "with_users", default=True, show_default=True, help="Create the demo logins.")
@click.option("--living/--no-living", default=None,
              help="Play the survey forward to today: assignments, inspections with photos, a rules run, "
                   f"notices in every state. Default: with the demo users, up to {LIVING_MAX_PARCELS:,} parcels.")
def seed(parcels, rng_seed, if_empty, with_users, living):
    """Load the demo city (and demo users) into an empty database."""
    from server.api.photos import blob_store
    from server.services import demo

    if living is None:
        living = with_users and parcels <= LIVING_MAX_PARCELS
    bar = None

    def on_rows(done: int, total: int, layer: str) -> None:
        # A bar on stderr (click draws it only on a terminal), over every row of every layer.
        nonlocal bar
        if total == 0:
            click.echo(f"planning a city of {parcels:,} parcels …", err=True)
            return
        if bar is None:
            bar = click.progressbar(length=total, label=f"demo city, {parcels:,} parcels", file=sys.stderr,
                                    show_pos=True, show_eta=True, item_show_func=lambda item: item)
            bar.__enter__()
        bar.update(done - bar.pos, current_item=layer.replace("_", " "))

    def progress(message: str) -> None:
        nonlocal bar
        if bar is not None:  # the rows are in: close the bar before the next steps speak
            bar.__exit__(None, None, None)
            bar = None
        click.echo(message, err=True)

    try:
        report = demo.seed(parcels=parcels, rng_seed=rng_seed, if_empty=if_empty, with_users=with_users,
                           progress=progress, living=living, blobs=blob_store() if living else None,
                           on_rows=on_rows)
    except demo.DemoError as exc:
        raise click.ClickException(str(exc)) from None
    finally:
        if bar is not None:
            bar.__exit__(None, None, None)
    click.echo(report)


@click.group("rules", help="The ordinance's field rules over the stored network.")
def rules_cli():
    pass


@rules_cli.command("run")
@click.option("--rule", "rule_ids", multiple=True, metavar="ID", help="Run only this rule (repeatable).")
def run_rules_command(rule_ids):
    """Check the whole network; open, keep and resolve violations."""
    from server.services import rules

    try:
        outcome = rules.run_network(only=rule_ids or None)
        db.session.commit()
    except rules.UnknownRule as exc:
        db.session.rollback()
        raise click.ClickException(str(exc)) from None
    except BaseException:
        db.session.rollback()
        raise
    s = outcome.seconds
    click.echo(
        f"rules run: {outcome.features:,} features, {outcome.found:,} violations found; "
        f"{outcome.opened:,} opened, {outcome.kept:,} kept, {outcome.resolved:,} resolved "
        f"in {s['total']:.1f} s (load {s['load']:.1f}, check {s['check']:.1f}, "
        f"reconcile {s['reconcile']:.1f})"
    )


def main() -> None:
    """The ``lateral`` console script: the same commands as ``flask --app server``."""
    from server import create_app

    FlaskGroup(create_app=create_app)(prog_name="lateral")
