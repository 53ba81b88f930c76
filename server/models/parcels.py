"""Parcels and the sewer service area."""

from __future__ import annotations

from geoalchemy2 import Geometry
from sqlalchemy import Boolean, String
from sqlalchemy.orm import Mapped, mapped_column

from server.models.base import Stamped, one_of

USER_CLASSES = ("residential", "commercial", "industrial", "public_authority")


class Parcel(Stamped):
    """A tax parcel: who owns it, where to mail them, and whether it must be sewered."""

    __tablename__ = "parcels"
    __table_args__ = (one_of("user_class", USER_CLASSES),)

    parcel_number: Mapped[str] = mapped_column(String(40), unique=True, nullable=False)
    owner_name: Mapped[str | None] = mapped_column(String(200))
    owner_name_2: Mapped[str | None] = mapped_column(String(200))
    mailing_street: Mapped[str | None] = mapped_column(String(200))
    mailing_city: Mapped[str | None] = mapped_column(String(100))
    mailing_state: Mapped[str | None] = mapped_column(String(2))
    mailing_zip: Mapped[str | None] = mapped_column(String(10))
    site_address: Mapped[str | None] = mapped_column(String(200), index=True)
    user_class: Mapped[str] = mapped_column(String(20), nullable=False, default="residential")
    has_building: Mapped[bool] = mapped_column(Boolean, nullable=False, default=True)
    in_service_area: Mapped[bool] = mapped_column(Boolean, nullable=False, default=True)
    has_septic: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    septic_approved: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    geom = mapped_column(Geometry("MULTIPOLYGON", srid=4326, spatial_index=True), nullable=False)


class ServiceArea(Stamped):
    """The sewer service area (§ 315-11C): inside it, septic systems are not allowed."""

    __tablename__ = "service_areas"

    name: Mapped[str] = mapped_column(String(200), nullable=False)
    geom = mapped_column(Geometry("MULTIPOLYGON", srid=4326, spatial_index=True), nullable=False)
