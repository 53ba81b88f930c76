"""The audit trail: one append-only row for every write, in the write's transaction."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, DateTime, ForeignKey, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from server.extensions import db
from server.models.base import utcnow


class AuditEvent(db.Model):
    """Who did what to which row, with the row before and after.

    The table is append-only: a database trigger (see the migration) refuses UPDATE
    and DELETE, so the trail can stand as evidence.
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
