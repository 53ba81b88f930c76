"""What the portal stores: the lookup codes printed on notice letters, and what code holders did."""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import JSON, Date, DateTime, ForeignKey, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from server.core.extensions import Model
from server.core.models import one_of, utcnow


class LookupCode(Model):
    """One lookup code printed on one letter of a notice (a reprint prints a new one; both open it).

    Tied to the notice, not to a person. Only the code's SHA-256 is kept
    (:func:`server.portal.codes.digest`). It opens the notice until the notice has been
    closed for the rulebook's ``[portal] code_days_after_close`` days
    (:func:`server.portal.lookup.expires_on`).
    """

    __tablename__ = "portal_lookup_codes"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    notice_id: Mapped[int] = mapped_column(ForeignKey("notices.id", ondelete="CASCADE"), nullable=False, index=True)
    code_sha256: Mapped[str] = mapped_column(String(64), nullable=False, unique=True)
    issued_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow, nullable=False)


#: What a code holder may do with a notice (docs/portal.md).
ACTION_KINDS = ("appeal", "proof", "visit")
#: A proof of correction waits for the superintendent, who accepts it (the notice complied)
#: or asks for a reinspection; an appeal or a visit request is ``received``.
ACTION_STATES = ("received", "accepted", "reinspection")


class PortalAction(Model):
    """One thing a code holder did with a notice online, with its code: audited as theirs,
    and shown to the desk as having come from the portal.

    ``appeal_id`` is the appeal it filed (through the desk's own service); a proof's files
    are :class:`PortalFile` rows; ``preferred_days`` the days a visit is asked for.
    """

    __tablename__ = "portal_actions"
    __table_args__ = (one_of("kind", ACTION_KINDS), one_of("state", ACTION_STATES))

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    notice_id: Mapped[int] = mapped_column(ForeignKey("notices.id", ondelete="CASCADE"), nullable=False, index=True)
    lookup_code_id: Mapped[int] = mapped_column(ForeignKey("portal_lookup_codes.id"), nullable=False)
    kind: Mapped[str] = mapped_column(String(12), nullable=False)
    state: Mapped[str] = mapped_column(String(12), nullable=False, default="received")
    received_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow, nullable=False)
    note: Mapped[str | None] = mapped_column(Text)
    preferred_days = mapped_column(JSON)
    email: Mapped[str | None] = mapped_column(String(254))
    #: The language the owner read the portal in (``server/portal/i18n.py``): their emails'.
    language: Mapped[str] = mapped_column(String(8), nullable=False, default="en", server_default="en")
    appeal_id: Mapped[int | None] = mapped_column(ForeignKey("notice_appeals.id"))
    reviewed_by_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    reviewed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    review_note: Mapped[str | None] = mapped_column(Text)


class PortalFile(Model):
    """A file sent with a proof of correction: a photo (checked as tablets' photos are) or a
    plumber's invoice (PDF), kept in the blob store by SHA-256."""

    __tablename__ = "portal_files"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    action_id: Mapped[int] = mapped_column(ForeignKey("portal_actions.id", ondelete="CASCADE"), nullable=False,
                                           index=True)
    sha256: Mapped[str] = mapped_column(String(64), nullable=False)
    media_type: Mapped[str] = mapped_column(String(40), nullable=False)
    filename: Mapped[str] = mapped_column(String(200), nullable=False)
    size: Mapped[int] = mapped_column(Integer, nullable=False)


class PlumberLicense(Model):
    """A plumber's account's Wisconsin license: its number and expiry as registered, and
    the clerk's verification (the login stays disabled until then)."""

    __tablename__ = "plumber_licenses"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), nullable=False, unique=True)
    license_number: Mapped[str] = mapped_column(String(20), nullable=False)
    expires_on: Mapped[date] = mapped_column(Date, nullable=False)
    email: Mapped[str] = mapped_column(String(254), nullable=False)
    phone: Mapped[str | None] = mapped_column(String(40))
    company: Mapped[str | None] = mapped_column(String(200))
    registered_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow, nullable=False)
    verified_by_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    verified_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    # The plumber followed the link in an email to stop them (server/portal/plumber_notify.py).
    emails_stopped_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
