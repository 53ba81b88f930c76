"""What the clerk records about the election calendar.

§ 995.20 makes election days legal holidays. The partisan primary and the November
general election are computed (``server/notices/calendar.py``); a special election is
ordered when a vacancy occurs, so the clerk records each one, and records the day
through which the calendar has been checked for them: a deadline whose last day is
later is refused rather than printed on a guess.
"""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import Date, DateTime, ForeignKey, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from server.extensions import db
from server.models.base import one_of, utcnow

ENTRY_KINDS = ("special_election", "checked_through")


class ElectionCalendarEntry(db.Model):
    """A special election day, or the day the calendar is checked through.

    Entries are added, never changed: a later ``checked_through`` supersedes an earlier
    one (the latest day wins), and a special election recorded in error is not deleted
    but stays in the audit trail; the clerk records the correction as a new entry.
    """

    __tablename__ = "election_calendar_entries"
    __table_args__ = (one_of("kind", ENTRY_KINDS),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(20), nullable=False)
    day: Mapped[date] = mapped_column(Date, nullable=False, index=True)
    name: Mapped[str | None] = mapped_column(Text)
    recorded_by_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    recorded_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow, nullable=False)
