"""``flask --app server users …``: the people who use Lateral (create, reset a password)."""

from __future__ import annotations

import sys

import click

from server.core.access.roles import ROLES
from server.core.extensions import db


def init_app(app) -> None:
    app.cli.add_command(users_cli)


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
    from server.core.accounts.service import AuthError
    from server.core.accounts.service import create_user as create

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

    from server.core.accounts.models import User
    from server.core.accounts.service import AuthError
    from server.core.accounts.service import set_password as set_pw

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
