"""How many features a layer holds, and its write version, without counting the table (issue #35).

Triggers on each layer's table keep ``layer_counts`` (``server.core.dialects.common``,
``LAYER_COUNT_SQL``), whatever wrote the rows: Lateral, an import, ``psql``. The write
path folds PostgreSQL's per-statement deltas after each feature write (``after_write``,
called by ``server.network.features``), so the rows to sum stay few. A filtered count
is exact or absent: it runs within a time budget (``count_within``).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select

from server.core.accounts import login_reads
from server.core.dialects import count_within, fold_layer_count, layer_count, layer_version_read
from server.core.extensions import db
from server.network.layers import Layer


def _table(layer: Layer) -> str:
    return layer.model.__tablename__


def counted(layer: Layer) -> tuple[int, int] | None:
    """(features, write version) from the triggers' row; None for a table without one."""
    return layer_count(db.session, _table(layer))


def write_version(layer: Layer) -> int | None:
    """A number every committed write of the layer raises; None for a table the triggers do not keep.

    Read with the caller's login when the route asked for it (:func:`write_version_read`),
    else here.
    """
    read = login_reads.taken(_version_name(layer))
    if read is not login_reads.MISSING:
        return None if read is None else int(read)
    found = counted(layer)
    return None if found is None else found[1]


def write_version_read(layer: Layer) -> dict[str, Any]:
    """The layer's write version as a read for the login's statement (``login_reads.add``)."""
    return {_version_name(layer): layer_version_read(_table(layer))}


def _version_name(layer: Layer) -> str:
    return f"write_version_{_table(layer)}"


def feature_count(layer: Layer) -> int:
    """The layer's features, exact: from the triggers' row, else (a table without one) counted."""
    found = counted(layer)
    if found is not None:
        return found[0]
    return db.session.scalar(select(func.count(layer.model.id))) or 0


def count_in_budget(stmt, seconds: float) -> int | None:
    """``stmt``'s count if the database finishes it within ``seconds``, else None."""
    return count_within(db.session, stmt, seconds)


def after_write(layer: Layer) -> None:
    """Fold the triggers' deltas into the layer's count row, in the write's transaction."""
    fold_layer_count(db.session, _table(layer))
