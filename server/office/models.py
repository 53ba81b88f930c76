"""The clear-water survey's certification to the Utility Commission (Art. I).

The superintendent certifies the survey's results to the Commission; the Commission,
within 5 days of *receiving* the certified survey, notifies each owner in violation by
certified mail (``SURVEY-NOTIFY-5``). So the day the Commission received it is recorded
here, and the desk shows the clock it starts.
"""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import Date, DateTime, ForeignKey, Integer, Text
from sqlalchemy.orm import Mapped, mapped_column

from server.core.extensions import Model
from server.core.models import utcnow


class SurveyCertification(Model):
    """One certification of the survey, and the Commission's receipt of it."""

    __tablename__ = "survey_certifications"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    certified_on: Mapped[date] = mapped_column(Date, nullable=False)
    received_on: Mapped[date] = mapped_column(Date, nullable=False)
    notify_by: Mapped[date] = mapped_column(Date, nullable=False)
    note: Mapped[str | None] = mapped_column(Text)
    recorded_by_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow, nullable=False)
