"""``flask --app server users …``: the people who use Lateral (create, reset a password)."""

from __future__ import annotations

import sys

import click

from server.core.access.roles import ROLES
from server.core.extensions import db
from server.core.transaction import transaction


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
@click.option("--if-absent", is_flag=True,
              help="Leave an existing user NAME as it is and succeed (a set-up run again after an upgrade).")
def create_user(name, role, password_stdin, display_name, if_absent):
    """Create user NAME with ROLE."""
    password = _password(password_stdin, "Password")
    if if_absent and _exists(name):
        click.echo(f"user {name} exists; left as it is")
        return
    _create(name, role, password, display_name)
    click.echo(f"created {role} {name}")


def _exists(name: str) -> bool:
    from sqlalchemy import func, select

    from server.core.accounts.models import User

    return bool(db.session.scalar(select(func.count()).select_from(User).where(User.username == name)))


@users_cli.command("set-password")
@click.argument("name")
@click.option("--password-stdin", is_flag=True, help="Read the new password from standard input.")
def set_password(name, password_stdin):
    """Give user NAME a new password (an admin's reset); their sessions end."""
    from sqlalchemy import select

    from server.core.accounts.models import User

    user = db.session.scalar(select(User).where(User.username == name))
    if user is None:
        raise click.ClickException(f"no user {name!r}")
    _set_password(user, _password(password_stdin, "New password"))
    click.echo(f"password of {name} changed; their browser sessions and Basic logins ended")


def _password(from_stdin: bool, prompt: str) -> str:
    # Read before the transaction begins: SQLite's writers must not wait while someone types.
    if from_stdin:
        return sys.stdin.readline().rstrip("\n")
    return click.prompt(prompt, hide_input=True, confirmation_prompt=True)


@transaction
def _create(name: str, role: str, password: str, display_name: str | None) -> None:
    from server.core.accounts.service import AuthError, create_user

    try:
        create_user(name, role, password, display_name)
    except AuthError as exc:
        raise click.ClickException(str(exc)) from None


@transaction
def _set_password(user, password: str) -> None:
    from server.core.accounts.service import AuthError
    from server.core.accounts.service import set_password as set_pw

    try:
        set_pw(user, password, None)
    except AuthError as exc:
        raise click.ClickException(str(exc)) from None
