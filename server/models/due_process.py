"""Due process after a notice is mailed: appeals and substitute service.

Both are rows beside the notice, not columns on it, because a notice may be appealed
twice (to the Utility Commission, then to the Common Council, § 315-21H) and may need
more than one substitute step (a first-class mailing and a posting at the premises).
"""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import Date, DateTime, ForeignKey, Integer, LargeBinary, String, Text
from sqlalchemy.orm import Mapped, deferred, mapped_column

from server.extensions import db
from server.models.base import one_of, utcnow
from server.models.notices import DECISIONS

APPEAL_LEVELS = ("commission", "council")
SERVICE_STEPS = ("first_class_mailing", "posting")


class NoticeAppeal(db.Model):
    """One written appeal of a notice and the decision on it (§ 315-21H).

    ``due_on`` is the last day to file it (10 days, counted under § 990.001(4));
    an appeal filed later carries ``late_reason``, the superintendent's reason for
    accepting it. ``decide_by`` is the last day for the body to decide (the Commission:
    30 days from receipt). The decision is entered by the clerk with the meeting date
    (``decided_on``) and produces a decision letter, mailed like a notice.
    """

    __tablename__ = "notice_appeals"
    __table_args__ = (one_of("level", APPEAL_LEVELS), one_of("decision", DECISIONS))

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    notice_id: Mapped[int] = mapped_column(ForeignKey("notices.id", ondelete="CASCADE"), nullable=False, index=True)
    level: Mapped[str] = mapped_column(String(12), nullable=False)
    filed_on: Mapped[date] = mapped_column(Date, nullable=False)
    due_on: Mapped[date] = mapped_column(Date, nullable=False)
    facts: Mapped[str | None] = mapped_column(Text)
    late_reason: Mapped[str | None] = mapped_column(Text)
    accepted_late_by_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    decide_by: Mapped[date | None] = mapped_column(Date)
    recorded_by_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    decision: Mapped[str | None] = mapped_column(String(12))
    decided_on: Mapped[date | None] = mapped_column(Date)
    decision_terms: Mapped[str | None] = mapped_column(Text)
    # Days the owner has to comply, counted from the decision letter's mailing (upheld
    # or modified); the rulebook's [appeals] says how an upheld notice's period is set.
    comply_days: Mapped[int | None] = mapped_column(Integer)
    decision_recorded_by_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    letter_mailed_on: Mapped[date | None] = mapped_column(Date)
    letter_article_number: Mapped[str | None] = mapped_column(String(34), unique=True)
    letter_sha256: Mapped[str | None] = mapped_column(String(64))
    letter_pdf: Mapped[bytes | None] = deferred(mapped_column(LargeBinary))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow, nullable=False)


class ServiceStep(db.Model):
    """A substitute step taken after certified mail came back refused or unclaimed:
    a re-mailing by first-class mail, or a posting at the premises (Jones v. Flowers)."""

    __tablename__ = "notice_service_steps"
    __table_args__ = (one_of("step", SERVICE_STEPS),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    notice_id: Mapped[int] = mapped_column(ForeignKey("notices.id", ondelete="CASCADE"), nullable=False, index=True)
    step: Mapped[str] = mapped_column(String(24), nullable=False)
    done_on: Mapped[date] = mapped_column(Date, nullable=False)
    note: Mapped[str | None] = mapped_column(Text)
    recorded_by_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow, nullable=False)
