"""Notices to owners, their certified mailings, and the article-number counter.

A notice snapshots the owner and mailing address when it is drafted, so the letter
says what the tax roll said that day. Once mailed, the letter PDF and its SHA-256
never change (the SHA-256 is also in the audit trail).
"""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal

from sqlalchemy import (
    JSON,
    Boolean,
    Date,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    Numeric,
    String,
    Text,
    false,
    text,
)
from sqlalchemy.orm import Mapped, deferred, mapped_column, validates

from server.core.extensions import Model
from server.core.models import Stamped, one_of, utcnow
from server.notices.kinds import KINDS

STATES = (
    "draft", "held", "approved", "mailed", "delivered", "refused", "unclaimed",
    "overdue", "escalated", "appealed", "complied", "decided", "withdrawn",
)
#: States in which a notice no longer holds its violations: a new notice may cite them.
#: A ``decided`` notice is closed only when the appeal overturned it; upheld or modified,
#: it stays open with its clock set again (``server.notices.workflow.is_closed``).
CLOSED_STATES = ("complied", "withdrawn")
DELIVERY_EVENTS = ("delivered", "refused", "unclaimed")
DECISIONS = ("upheld", "overturned", "modified")


class Notice(Stamped):
    """One written notice to the owner of one parcel, citing its sections."""

    __tablename__ = "notices"
    __table_args__ = (
        one_of("state", STATES),
        one_of("delivery_event", DELIVERY_EVENTS),
        one_of("decision", DECISIONS),
    )

    kind: Mapped[str] = mapped_column(String(24), nullable=False, index=True)
    state: Mapped[str] = mapped_column(String(12), nullable=False, default="draft", index=True)
    parcel_id: Mapped[int] = mapped_column(ForeignKey("parcels.id"), nullable=False, index=True)
    # Snapshot of the tax roll at drafting (refreshed while the notice is held).
    parcel_number: Mapped[str] = mapped_column(String(40), nullable=False)
    site_address: Mapped[str | None] = mapped_column(String(200))
    owner_names = mapped_column(JSON, nullable=False)  # ["OWNERNME1", "OWNERNME2"]
    mailing_street: Mapped[str | None] = mapped_column(String(200))
    mailing_city: Mapped[str | None] = mapped_column(String(100))
    mailing_state: Mapped[str | None] = mapped_column(String(2))
    mailing_zip: Mapped[str | None] = mapped_column(String(10))
    held_reason: Mapped[str | None] = mapped_column(Text)
    sections = mapped_column(JSON, nullable=False)  # ["§ 315-13D", ...]
    findings = mapped_column(JSON, nullable=False)  # [{"text", "section", "violation_id"}]
    follow_up_of_id: Mapped[int | None] = mapped_column(ForeignKey("notices.id"))

    drafted_by_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    approved_by_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    approved_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))

    batch_id: Mapped[int | None] = mapped_column(ForeignKey("mailing_batches.id"), index=True)
    article_number: Mapped[str | None] = mapped_column(String(34), unique=True)
    mailed_on: Mapped[date | None] = mapped_column(Date)
    delivery_event: Mapped[str | None] = mapped_column(String(10))
    delivery_event_on: Mapped[date | None] = mapped_column(Date)

    # The clock: which event started it, the day counted from, and the last day.
    clock_starts: Mapped[str | None] = mapped_column(String(10))
    served_on: Mapped[date | None] = mapped_column(Date)
    deadline_printed: Mapped[date | None] = mapped_column(Date)
    deadline: Mapped[date | None] = mapped_column(Date, index=True)
    deadline_steps = mapped_column(JSON)

    letter_sha256: Mapped[str | None] = mapped_column(String(64))
    letter_pdf: Mapped[bytes | None] = deferred(mapped_column(LargeBinary))

    overdue_on: Mapped[date | None] = mapped_column(Date)
    escalated_on: Mapped[date | None] = mapped_column(Date)
    penalty_per_day: Mapped[Decimal | None] = mapped_column(Numeric(10, 2))
    penalty_accrued: Mapped[Decimal | None] = mapped_column(Numeric(12, 2))
    penalty_through: Mapped[date | None] = mapped_column(Date)
    complied_on: Mapped[date | None] = mapped_column(Date)
    complied_reason: Mapped[str | None] = mapped_column(String(40))
    appealed_on: Mapped[date | None] = mapped_column(Date)
    appeal_note: Mapped[str | None] = mapped_column(Text)
    decided_on: Mapped[date | None] = mapped_column(Date)
    decision: Mapped[str | None] = mapped_column(String(12))
    decision_note: Mapped[str | None] = mapped_column(Text)
    withdrawn_reason: Mapped[str | None] = mapped_column(Text)
    # The field visit the daily tick asked for when the notice went overdue.
    reinspection_assignment_id: Mapped[int | None] = mapped_column(ForeignKey("assignments.id"))

    @validates("kind")
    def _known_kind(self, key, value):
        """The kinds are declared in :mod:`server.notices.kinds`; the database holds no list
        of them (adding a kind needs no migration)."""
        if value not in KINDS:
            raise ValueError(f"unknown notice kind {value!r}; expected one of {', '.join(KINDS)}")
        return value

    @validates("letter_pdf", "letter_sha256", "article_number")
    def _write_once(self, key, value):
        """A mailed letter is evidence: once the mailing is recorded, its PDF, hash and
        article number never change. Printed and not yet recorded, a letter may be
        printed again (new article number, new PDF)."""
        if self.__dict__.get("mailed_on") is None:
            return value
        # letter_pdf is deferred (not loaded): the hash, set after it, says it was written.
        current = self.__dict__.get("letter_sha256" if key == "letter_pdf" else key)
        if current is not None and (key == "letter_pdf" or value != current):
            raise ValueError(f"notice {self.id}: {key} is set at mailing and cannot change")
        return value


class NoticeViolation(Model):
    """Which violations a notice cites. ``closed`` once the notice is closed.

    A violation is in at most one notice that is not closed: a partial unique index
    on ``violation_id`` over the open links (same on both databases).
    """

    __tablename__ = "notice_violations"
    __table_args__ = (
        Index("uq_notice_violations_open", "violation_id", unique=True,
              sqlite_where=text("closed = 0"), postgresql_where=text("closed = false")),
    )

    notice_id: Mapped[int] = mapped_column(ForeignKey("notices.id", ondelete="CASCADE"), primary_key=True)
    violation_id: Mapped[int] = mapped_column(ForeignKey("violations.id"), primary_key=True, index=True)
    closed: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)


class MailingBatch(Model):
    """One trip to the post office: the letters and the firm mailing book (PS 3877).

    A batch is made when its letters and book are printed (``printed_on``, ``printed_by_id``,
    the notices in ``notice_ids``); it is ``mailed_on`` only once the clerk records the trip
    (``recorded_at``, ``mailed_by_id``). ``dated_on`` is the mailing date its stored letters
    and book carry. A recording voided the same day empties ``mailed_on`` again and keeps
    the last void's time, clerk and reason (every void is in the audit trail).
    """

    __tablename__ = "mailing_batches"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    printed_on: Mapped[date] = mapped_column(Date, nullable=False)
    printed_by_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    notice_ids = mapped_column(JSON)  # None on batches printed and mailed in one step before 0020
    dated_on: Mapped[date] = mapped_column(Date, nullable=False)
    mailed_on: Mapped[date | None] = mapped_column(Date)
    recorded_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    voided_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    voided_by_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    void_reason: Mapped[str | None] = mapped_column(Text)
    pieces: Mapped[int] = mapped_column(Integer, nullable=False)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow, nullable=False)
    mailed_by_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    letters_sha256: Mapped[str] = mapped_column(String(64), nullable=False)
    mailing_book_sha256: Mapped[str] = mapped_column(String(64), nullable=False)
    letters_pdf: Mapped[bytes] = deferred(mapped_column(LargeBinary, nullable=False))
    mailing_book_pdf: Mapped[bytes] = deferred(mapped_column(LargeBinary, nullable=False))


class ArticleSerial(Model):
    """The last IMpb serial used under one Mailer ID (``server.core.dialects.allocate_serials``)."""

    __tablename__ = "article_serials"

    mailer_id: Mapped[str] = mapped_column(String(12), primary_key=True)
    last_used: Mapped[int] = mapped_column(Integer, nullable=False)


# Due process after a notice is mailed: appeals and substitute service.
#
# Both are rows beside the notice, not columns on it, because a notice may be appealed
# twice (to the Utility Commission, then to the Common Council, § 315-21H) and may need
# more than one substitute step (a first-class mailing and a posting at the premises).
APPEAL_LEVELS = ("commission", "council")
SERVICE_STEPS = ("first_class_mailing", "posting")


class NoticeAppeal(Model):
    """One written appeal of a notice and the decision on it (§ 315-21H).

    ``due_on`` is the last day to file it (10 days, counted under § 990.001(4)).
    Every written appeal is recorded with its filing date; one filed later is ``late``
    (with the owner's stated reason in ``late_reason``, if any), and the body's decision
    says whether it was ``heard``. ``decide_by`` is the last day for the body to decide
    (the Commission: 30 days from receipt). The decision is entered by the clerk with the meeting date
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
    late: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False, server_default=false())
    # A late appeal: whether the body heard it (None until decided, and for one in time).
    heard: Mapped[bool | None] = mapped_column(Boolean)
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
    # The deciding body's officer who signs the decision letter ("name, title").
    letter_signed_by: Mapped[str | None] = mapped_column(Text)
    # The decision letter's return receipt, as a notice's: delivered, refused or unclaimed
    # (``DELIVERY_EVENTS``) on a day; the day it served the decision, from which the
    # Council appeal's 10 days and the new compliance period count (None: not recorded,
    # they count from the letter's mailing as printed).
    letter_delivery_event: Mapped[str | None] = mapped_column(String(10))
    letter_delivery_event_on: Mapped[date | None] = mapped_column(Date)
    letter_served_on: Mapped[date | None] = mapped_column(Date)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow, nullable=False)


class ServiceStep(Model):
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


# What the clerk records about the election calendar.
#
# § 995.20 makes election days legal holidays. The partisan primary and the November
# general election are computed (``server/notices/calendar.py``); a special election is
# ordered when a vacancy occurs, so the clerk records each one, and records the day
# through which the calendar has been checked for them: a deadline whose last day is
# later is refused rather than printed on a guess.
ENTRY_KINDS = ("special_election", "checked_through")


class ElectionCalendarEntry(Model):
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
