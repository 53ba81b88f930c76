"""A job of the queue: what was asked, by whom, and how it ended (issue #35)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, DateTime, ForeignKey, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from server.core.extensions import Model
from server.core.models import one_of, utcnow

JOB_STATES = ("queued", "done", "failed")


class Job(Model):
    """One piece of long work. Its effect and ``state = 'done'`` commit in one transaction,
    so a job run twice (a retry, a worker restarted mid-run) takes effect once."""

    __tablename__ = "jobs"
    __table_args__ = (one_of("state", JOB_STATES),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(40), nullable=False)
    params = mapped_column(JSON, nullable=False)
    state: Mapped[str] = mapped_column(String(10), nullable=False, default="queued", index=True)
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow, nullable=False)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    attempts: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    result = mapped_column(JSON)
    error: Mapped[str | None] = mapped_column(Text)
