"""What the portal stores: the lookup codes printed on notice letters."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import DateTime, ForeignKey, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from server.core.extensions import Model
from server.core.models import utcnow


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
