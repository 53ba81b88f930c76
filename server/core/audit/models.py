"""The audit trail: one append-only row for every write, in the write's transaction."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, DateTime, ForeignKey, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from server.core.extensions import Model
from server.core.models import utcnow


class AuditEvent(Model):
    """Who did what to which row, with the row before and after.

    The table is append-only: a database trigger (see the migration) refuses UPDATE
    and DELETE, so the trail can stand as evidence. It is also a hash chain:
    ``row_hash`` is the SHA-256 of the row's content and the previous row's
    ``row_hash`` (:mod:`server.core.audit.trail`), so a row changed or removed behind the
    application's back, trigger dropped, breaks every hash after it.
    """

    __tablename__ = "audit_events"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow, nullable=False, index=True)
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    action: Mapped[str] = mapped_column(String(40), nullable=False)
    subject_type: Mapped[str] = mapped_column(String(40), nullable=False)
    subject_id: Mapped[int | None] = mapped_column(Integer)
    before = mapped_column(JSON)
    after = mapped_column(JSON)
    row_hash: Mapped[str | None] = mapped_column(String(64))


class AuditChain(Model):
    """The head of the audit hash chain: one row, the last audit row's id and hash.

    Every audit write updates this row first, so writers take their turn on it (both
    databases lock the row until commit) and each new row hashes over the one before.
    """

    __tablename__ = "audit_chain"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    last_id: Mapped[int] = mapped_column(Integer, nullable=False)
    last_hash: Mapped[str] = mapped_column(String(64), nullable=False)
