"""The one place that decides a transaction: all of a request's or a command's writes, or none.

``@transaction`` wraps a view (``server.core.web.transaction.write_transaction`` is this
decorator under the name the routes know) or a click command. It takes this thread's
turn among the database's writers (SQLite's writers' queue; nothing to wait for on
PostgreSQL), begins a write transaction (SQLite: ``BEGIN IMMEDIATE``), runs the function,
commits when it returns, and rolls back when anything at all is raised — a ``LateralError``,
click's ``ClickException`` or ``Abort``, ``SystemExit``, ``KeyboardInterrupt`` — before
raising it again. Services only ``flush()``.

``own_transaction()`` is the same unit of work as a ``with`` block, for the few writes
that must commit on their own, outside a request's or command's transaction; each says
why where it is used (docs/architecture.md lists them).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import ParamSpec, TypeVar

from server.core.dialects import begin_write, writer_turn
from server.core.extensions import db

P = ParamSpec("P")
R = TypeVar("R")


@contextmanager
def own_transaction() -> Iterator[None]:
    """A write transaction of its own: the writers' turn, begin, then commit, or roll back on any exception.

    The session's read transaction, if one is open, ends first (``begin_write``), so
    whatever runs inside starts from a fresh snapshot.
    """
    session = db.session
    with writer_turn(session):
        try:
            begin_write(session)
            yield
            session.commit()
        except BaseException:
            session.rollback()  # inside the turn: the next writer finds the database free
            raise


def transaction(function: Callable[P, R]) -> Callable[P, R]:
    """Run ``function`` as one transaction: commit when it returns, roll back if anything raises."""

    @functools.wraps(function)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        with own_transaction():
            return function(*args, **kwargs)

    return wrapper
