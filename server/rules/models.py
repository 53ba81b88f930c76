"""Violations of the ordinance found by the rules engine or by an inspection."""

from __future__ import annotations

from datetime import datetime

from geoalchemy2 import Geometry
from sqlalchemy import JSON, DateTime, Float, ForeignKey, Index, Integer, String, Text, text
from sqlalchemy.orm import Mapped, mapped_column

from server.core.models import Stamped, one_of, utcnow

STATUSES = ("open", "resolved", "waived")
SOURCES = ("rules", "inspection")


class Violation(Stamped):
    """One breach of one rule by one set of features, citing its section.

    ``key`` is the rule engine's stable identity (rule, aspect and subjects), so a
    re-run finds the open violation instead of opening a second one: at most one
    *open* violation per key (a partial unique index, on both databases).
    """

    __tablename__ = "violations"
    __table_args__ = (
        one_of("status", STATUSES),
        one_of("source", SOURCES),
        Index("uq_violations_open_key", "key", unique=True,
              sqlite_where=text("status = 'open'"), postgresql_where=text("status = 'open'")),
        # An on-save check asks for the open violations of the features it loaded.
        Index("ix_violations_subject", "subject_type", "subject_id"),
    )

    rule_id: Mapped[str] = mapped_column(String(40), nullable=False, index=True)
    section: Mapped[str] = mapped_column(String(80), nullable=False)
    key: Mapped[str] = mapped_column(String(400), nullable=False, index=True)
    status: Mapped[str] = mapped_column(String(10), nullable=False, default="open", index=True)
    source: Mapped[str] = mapped_column(String(12), nullable=False, default="rules")
    subject_type: Mapped[str] = mapped_column(String(20), nullable=False)
    subject_id: Mapped[int | None] = mapped_column(Integer)
    subjects = mapped_column(JSON, nullable=False)  # [[layer, id], ...], primary first
    parcel_id: Mapped[int | None] = mapped_column(ForeignKey("parcels.id", ondelete="SET NULL"), index=True)
    measured: Mapped[float | None] = mapped_column(Float)
    limit: Mapped[float | None] = mapped_column(Float)
    unit: Mapped[str | None] = mapped_column(String(12))
    message: Mapped[str] = mapped_column(Text, nullable=False)
    evidence = mapped_column(Geometry("GEOMETRY", srid=4326, spatial_index=True), nullable=True)
    opened_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow, nullable=False)
    resolved_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    # The later inspection that found the breach gone (a rules run's resolution names none).
    resolved_by_inspection_id: Mapped[int | None] = mapped_column(ForeignKey("inspections.id"))
    waived_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    waived_by_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    waiver_reason: Mapped[str | None] = mapped_column(Text)
