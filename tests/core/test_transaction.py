"""One transaction for requests and commands (``server/core/transaction.py``).

A decorated function commits when it returns and rolls back on any exception, which is
raised again; a click command's ClickException still rolls back and fails the command;
commands queue with the server's writers on SQLite; and nothing else in the server commits.
"""

from __future__ import annotations

import re
import threading
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from server.core.accounts.models import SiteSetting
from server.core.dialects import sqlite, writers
from server.core.errors import LateralError
from server.core.extensions import db
from server.core.transaction import own_transaction, transaction

SERVER = Path(__file__).resolve().parents[2] / "server"
# What may commit: the transaction itself, and SQLite's begin_write ending a read transaction.
COMMITTERS = {SERVER / "core" / "transaction.py", SERVER / "core" / "dialects" / "sqlite.py"}


def _setting(key: str) -> SiteSetting | None:
    return db.session.get(SiteSetting, key)


@transaction
def _write(key: str) -> str:
    db.session.add(SiteSetting(key=key, value="written"))
    db.session.flush()
    return key


def test_a_function_that_returns_is_committed(app, random_token):
    assert _write(random_token) == random_token
    assert not db.session().in_transaction()  # ended; and not by a rollback, since the row stayed
    assert _setting(random_token).value == "written"


@pytest.mark.parametrize("raised", [
    LateralError("conflict", "no"), click.ClickException("no"), click.Abort(), SystemExit(1), KeyboardInterrupt(),
], ids=lambda e: type(e).__name__)
def test_any_exception_rolls_back_and_is_raised_again(app, random_token, raised):
    @transaction
    def write_then_fail() -> None:
        db.session.add(SiteSetting(key=random_token, value="written"))
        db.session.flush()
        raise raised

    with pytest.raises(type(raised)) as caught:
        write_then_fail()
    assert caught.value is raised
    assert _setting(random_token) is None


def test_own_transaction_commits_its_block_and_rolls_back_a_failed_one(app, random_token):
    with own_transaction():
        db.session.add(SiteSetting(key=random_token, value="kept"))
    with pytest.raises(RuntimeError), own_transaction():
        db.session.add(SiteSetting(key=random_token + "-lost", value="lost"))
        db.session.flush()
        raise RuntimeError("in the block")
    assert _setting(random_token).value == "kept" and _setting(random_token + "-lost") is None


@click.command("write")
@click.argument("key")
@click.option("--refuse", is_flag=True)
@transaction
def _write_command(key: str, refuse: bool) -> None:
    db.session.add(SiteSetting(key=key, value="written"))
    db.session.flush()
    if refuse:
        raise click.ClickException(f"{key} refused")
    click.echo(f"wrote {key}")


def test_a_command_commits_when_it_succeeds(app, random_token):
    result = CliRunner().invoke(_write_command, ["--", random_token])  # a token may start with "-"
    assert result.exit_code == 0, result.output
    assert _setting(random_token).value == "written"


def test_a_click_exception_rolls_the_command_back_and_fails_it(app, random_token):
    result = CliRunner().invoke(_write_command, ["--refuse", "--", random_token])
    assert result.exit_code == 1
    assert f"Error: {random_token} refused" in result.output
    assert _setting(random_token) is None


@pytest.fixture
def writer_elsewhere(app, db_kind, monkeypatch):
    """Another thread holds the SQLite file's writers' turn; a writer here waits 0.2 s at most."""
    if db_kind != "spatialite":
        pytest.skip("PostgreSQL has no writers' queue: it locks rows")
    monkeypatch.setattr(sqlite, "SQLITE_BUSY_TIMEOUT_MS", 200)
    holding, release = threading.Event(), threading.Event()
    database = db.engine.url.database

    def hold():
        with writers.turn(database, 10):
            holding.set()
            release.wait(10)

    thread = threading.Thread(target=hold)
    thread.start()
    assert holding.wait(10)
    yield
    release.set()
    thread.join(10)


@pytest.mark.parametrize("args", [
    ["notices", "tick"],
    ["rules", "run"],
    ["checklists", "load"],
    ["photos", "purge-uploads"],
    ["users", "create", "queued", "--role", "clerk", "--password-stdin"],
], ids=lambda args: " ".join(args[:2]))
def test_a_command_that_writes_queues_with_the_servers_writers(app, writer_elsewhere, args):
    result = app.test_cli_runner().invoke(args=args, input="a long enough password\n")
    assert result.exit_code != 0
    code = getattr(result.exception, "code", None)
    assert code == "database_busy" or "database_busy" in result.output, result.output


def test_nothing_but_the_transaction_commits():
    committing = sorted(str(path.relative_to(SERVER.parent)) for path in SERVER.rglob("*.py")
                        if path not in COMMITTERS and re.search(r"\bsession(\(\))?\.commit\(", path.read_text()))
    assert committing == [], "services only flush; commit through server.core.transaction"
