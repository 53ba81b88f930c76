"""Writing the audit trail, in the same transaction as the change it records.

The trail is a hash chain: each row's ``row_hash`` is the SHA-256 of the previous row's
``row_hash`` and the row's own content in a canonical JSON form (:func:`chain_hash`).
The first row chains onto :data:`GENESIS`. Writers take turns on the chain's head row
(:func:`server.core.dialects.audit_chain_head`), so the chain follows the ids even when
requests write concurrently. :func:`verify` walks it and names the first row whose
hash does not hold, so an edit made behind the application's back (append-only trigger
dropped) shows. Whoever can rewrite the whole table can also recompute every hash;
what stops that is a head hash written down outside the database (``audit verify``
prints it).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import cast

from sqlalchemy import Table, insert, select

from server.core.audit.models import AuditChain, AuditEvent
from server.core.dialects import advance_audit_chain, audit_chain_head
from server.core.extensions import db
from server.core.models import utcnow

GENESIS = "0" * 64
_TABLE = cast(Table, AuditEvent.__table__)  # Core insert into the table, not the ORM entity
_INSERT = insert(_TABLE).returning(_TABLE.c.id)
_FIELDS = ("at", "user_id", "action", "subject_type", "subject_id", "before", "after")


def _stored(value):
    """``value`` as the JSON column gives it back (tuples become lists, and so on)."""
    return None if value is None else json.loads(json.dumps(value))


def _moment(at: datetime) -> str:
    """The time in UTC as text: SQLite gives it back naive, PostgreSQL in its zone."""
    if at.tzinfo is not None:
        at = at.astimezone(UTC).replace(tzinfo=None)
    return at.isoformat(timespec="microseconds")


def chain_hash(previous: str, row: dict) -> str:
    """The row's hash: SHA-256 over the previous row's hash and the row's content."""
    content = {name: row[name] for name in _FIELDS} | {"at": _moment(row["at"])}
    text = json.dumps(content, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(f"{previous}\n{text}".encode()).hexdigest()


def _append(action: str, subject_type: str, subject_id: int | None, before, after,
            user_id: int | None) -> None:
    _, previous = audit_chain_head(db.session)
    row = {"at": utcnow(), "user_id": user_id, "action": action, "subject_type": subject_type,
           "subject_id": subject_id, "before": _stored(before), "after": _stored(after)}
    row["row_hash"] = chain_hash(previous, row)
    row_id = db.session.execute(_INSERT, row).scalar_one()
    advance_audit_chain(db.session, row_id, row["row_hash"])


def record(action: str, subject_type: str, subject_id: int | None, before, after, actor=None) -> None:
    """Append one audit row in the session's transaction (committed with the change)."""
    _append(action, subject_type, subject_id, before, after, getattr(actor, "id", None))


def record_now(action: str, subject_type: str, subject_id: int | None, before, after,
               user_id: int | None) -> None:
    """Append one audit row for a hot path that has a user id rather than a user.

    Written at once as a plain INSERT, like every audit row (a photo's row on its
    upload writes no ORM objects, so nothing else makes the session flush).
    """
    _append(action, subject_type, subject_id, before, after, user_id)


@dataclass(frozen=True)
class ChainReport:
    """What :func:`verify` found: rows checked, the head hash, the first broken row."""

    rows: int
    head: str
    broken_id: int | None = None
    reason: str | None = None

    @property
    def intact(self) -> bool:
        return self.broken_id is None


def verify(session, batch: int = 5000, anchors: dict[int, str] | None = None) -> ChainReport:
    """Walk the chain in id order; stop at the first row whose hash does not hold.

    A changed row fails its own hash; a removed row fails the next row's hash (it chained
    onto the removed one); removed rows at the end leave the chain's head row naming
    an id or hash that is no longer the last row's. ``anchors`` (row count -> head hash,
    written down outside the database: :mod:`server.core.audit.anchors`) catch a cut
    tail whose head row was rewound too: the chain must reach each count, with that hash.
    """
    table = AuditEvent.__table__
    anchors = anchors or {}
    previous, last_id, rows = GENESIS, 0, 0
    while True:
        chunk = session.execute(select(table).where(table.c.id > last_id).order_by(table.c.id).limit(batch)).all()
        for r in chunk:
            row = r._asdict()
            if row["row_hash"] != chain_hash(previous, row):
                reason = ("has no hash" if row["row_hash"] is None else
                          "does not match its content and the previous row's hash")
                return ChainReport(rows, previous, row["id"], reason)
            previous, last_id, rows = row["row_hash"], row["id"], rows + 1
            if rows in anchors and anchors[rows] != previous:
                return ChainReport(rows, previous, row["id"],
                                   f"ends {rows:,} rows with another hash than the anchor written outside the "
                                   "database: the trail was rewritten")
        if len(chunk) < batch:
            break
    beyond = max(anchors, default=0)
    if beyond > rows:
        return ChainReport(rows, previous, last_id,
                           f"is the last row, but an anchor written outside the database saw {beyond:,} rows: "
                           "rows were cut off the end")
    head_id, head_hash = session.execute(select(AuditChain.last_id, AuditChain.last_hash)).one()
    if (head_id, head_hash) != (last_id, previous):
        return ChainReport(rows, previous, head_id,
                           f"is the chain's recorded head, but the last row is {last_id or 'none'}")
    return ChainReport(rows, previous)

