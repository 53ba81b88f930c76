"""The one place that decides a write request's transaction: all of it or none."""

from __future__ import annotations

import functools

from server.core.dialects import begin_write, writer_turn
from server.core.extensions import db


def write_transaction(view):
    """Commit when ``view`` returns; roll back everything if anything raises."""

    @functools.wraps(view)
    def wrapper(*args, **kwargs):
        with writer_turn(db.session):
            try:
                begin_write(db.session)
                result = view(*args, **kwargs)
                db.session.commit()
                return result
            except BaseException:
                db.session.rollback()
                raise

    return wrapper
