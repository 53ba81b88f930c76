"""A write request's transaction: all of it or none (``server.core.transaction`` decides it).

The routes know the decorator as ``write_transaction``; it is the one ``transaction``
that CLI commands use too, so a request and a command queue for SQLite's writers, begin
and commit alike.
"""

from __future__ import annotations

from server.core.transaction import transaction as write_transaction

__all__ = ["write_transaction"]
