"""The clear-water survey's certification to the Utility Commission (Art. I).

The superintendent certifies the survey's results to the Commission; the Commission,
within 5 days of *receiving* the certified survey, notifies each owner in violation by
certified mail (``SURVEY-NOTIFY-5``). Each certification is kept as issued (its PDF and
SHA-256, and the parcels it lists); the day the Commission received it is recorded
against that document, and the desk shows the clock it starts.
"""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import JSON, Date, DateTime, ForeignKey, Integer, LargeBinary, String, Text
from sqlalchemy.orm import Mapped, deferred, mapped_column

from server.core.extensions import Model
from server.core.models import utcnow


class IssuedCertification(Model):
    """A certification of the survey as the superintendent issued it: the PDF and its
    SHA-256, never changed, and the parcels it lists (``parcels``: one entry per parcel,
    ``{"parcel_id", "parcel_number", "listed": "clear_water" | "access_refused",
    "violation_id"}``, the violation that carries the owner's notice)."""

    __tablename__ = "issued_certifications"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    certified_on: Mapped[date] = mapped_column(Date, nullable=False)
    certified_by_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    signed_as: Mapped[str] = mapped_column(Text, nullable=False)
    parcels = mapped_column(JSON, nullable=False)
    pdf_sha256: Mapped[str] = mapped_column(String(64), nullable=False, unique=True)
    pdf: Mapped[bytes] = deferred(mapped_column(LargeBinary, nullable=False))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow, nullable=False)


class SurveyCertification(Model):
    """The Commission's receipt of one issued certification of the survey.

    ``certification_id`` and ``certification_sha256`` name the document received (None
    on receipts recorded before certifications were kept)."""

    __tablename__ = "survey_certifications"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    certification_id: Mapped[int | None] = mapped_column(ForeignKey("issued_certifications.id"), index=True)
    certification_sha256: Mapped[str | None] = mapped_column(String(64))
    certified_on: Mapped[date] = mapped_column(Date, nullable=False)
    received_on: Mapped[date] = mapped_column(Date, nullable=False)
    notify_by: Mapped[date] = mapped_column(Date, nullable=False)
    note: Mapped[str | None] = mapped_column(Text)
    recorded_by_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow, nullable=False)
