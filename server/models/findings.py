"""Clear-water survey findings: sump pumps, downspouts and drains found on a parcel."""

from __future__ import annotations

from datetime import date

from geoalchemy2 import Geometry
from sqlalchemy import Date, ForeignKey, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from server.models.base import Stamped, one_of

SOURCES = ("roof_downspout", "foundation_drain", "sump_pump", "yard_drain", "other")
CONNECTED = ("yes", "no", "unknown")
METHODS = ("visual", "dye", "smoke")


class ClearWaterFinding(Stamped):
    """One clear-water source observed on a parcel (§ 315-13D, § 315-16A(15), Art. I)."""

    __tablename__ = "clear_water_findings"
    __table_args__ = (
        one_of("source", SOURCES),
        one_of("connected_to_sanitary", CONNECTED),
        one_of("method", METHODS),
    )

    parcel_id: Mapped[int | None] = mapped_column(
        ForeignKey("parcels.id", ondelete="SET NULL"), index=True
    )
    source: Mapped[str] = mapped_column(String(20), nullable=False)
    connected_to_sanitary: Mapped[str] = mapped_column(String(10), nullable=False, default="unknown")
    observed_on: Mapped[date | None] = mapped_column(Date)
    observed_by: Mapped[str | None] = mapped_column(String(120))
    method: Mapped[str | None] = mapped_column(String(10))
    notes: Mapped[str | None] = mapped_column(Text)
    geom = mapped_column(Geometry("POINT", srid=4326, spatial_index=True), nullable=False)
