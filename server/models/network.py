"""The sewer network: mains, manholes, laterals (building sewers), taps, tracer wire."""

from __future__ import annotations

from datetime import date

from geoalchemy2 import Geometry
from sqlalchemy import Boolean, Date, Float, ForeignKey, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from server.models.base import Stamped, one_of

MAIN_KINDS = ("gravity", "pressure")
MANHOLE_KINDS = ("manhole", "flushing", "cleanout")
LATERAL_STATUSES = ("active", "abandoned", "proposed", "capped")
TAP_METHODS = ("saddle", "core", "wye", "tee")


class Manhole(Stamped):
    """A manhole, flushing connection or cleanout on the public sewer."""

    __tablename__ = "manholes"
    __table_args__ = (one_of("kind", MANHOLE_KINDS),)

    facility_id: Mapped[str | None] = mapped_column(String(60), index=True)
    kind: Mapped[str] = mapped_column(String(20), nullable=False, default="manhole")
    rim_elev_ft: Mapped[float | None] = mapped_column(Float)
    geom = mapped_column(Geometry("POINT", srid=4326, spatial_index=True), nullable=False)


class SewerMain(Stamped):
    """A public sewer main between two manholes; its start is the upstream end."""

    __tablename__ = "sewer_mains"
    __table_args__ = (one_of("kind", MAIN_KINDS),)

    facility_id: Mapped[str | None] = mapped_column(String(60), index=True)
    material: Mapped[str | None] = mapped_column(String(20))
    diameter_in: Mapped[float | None] = mapped_column(Float)
    # Length of one pipe piece: joints fall every segment_length_ft from the start
    # unless joint positions were recorded (§ 315-13B(2), taps clear of joints).
    segment_length_ft: Mapped[float | None] = mapped_column(Float)
    kind: Mapped[str] = mapped_column(String(20), nullable=False, default="gravity")
    sdr: Mapped[float | None] = mapped_column(Float)
    cover_ft: Mapped[float | None] = mapped_column(Float)
    install_year: Mapped[int | None] = mapped_column(Integer)
    from_manhole_id: Mapped[int | None] = mapped_column(ForeignKey("manholes.id", ondelete="SET NULL"))
    to_manhole_id: Mapped[int | None] = mapped_column(ForeignKey("manholes.id", ondelete="SET NULL"))
    geom = mapped_column(Geometry("LINESTRING", srid=4326, spatial_index=True), nullable=False)


class Lateral(Stamped):
    """A building sewer: first vertex at the tap on the main, last at the building."""

    __tablename__ = "laterals"
    __table_args__ = (one_of("status", LATERAL_STATUSES),)

    parcel_id: Mapped[int | None] = mapped_column(
        ForeignKey("parcels.id", ondelete="SET NULL"), index=True
    )
    material: Mapped[str | None] = mapped_column(String(20))
    sdr: Mapped[float | None] = mapped_column(Float)
    diameter_in: Mapped[float | None] = mapped_column(Float)
    installed_on: Mapped[date | None] = mapped_column(Date)
    backflow_valve: Mapped[bool | None] = mapped_column(Boolean)
    status: Mapped[str] = mapped_column(String(20), nullable=False, default="active")
    is_new_or_replacement: Mapped[bool | None] = mapped_column(Boolean)
    geom = mapped_column(Geometry("LINESTRING", srid=4326, spatial_index=True), nullable=False)


class Tap(Stamped):
    """A lateral's connection to a main (§ 315-13B)."""

    __tablename__ = "taps"
    __table_args__ = (one_of("method", TAP_METHODS),)

    main_id: Mapped[int | None] = mapped_column(
        ForeignKey("sewer_mains.id", ondelete="SET NULL"), index=True
    )
    lateral_id: Mapped[int | None] = mapped_column(
        ForeignKey("laterals.id", ondelete="SET NULL"), index=True
    )
    method: Mapped[str | None] = mapped_column(String(10))
    fitting_material: Mapped[str | None] = mapped_column(String(20))
    # Hours on a clock face looking downstream: 12.0 is the crown, 10.5 is 10:30.
    clock_position: Mapped[float | None] = mapped_column(Float)
    installed_on: Mapped[date | None] = mapped_column(Date)
    permit_number: Mapped[str | None] = mapped_column(String(40))
    geom = mapped_column(Geometry("POINT", srid=4326, spatial_index=True), nullable=False)


class TracerWire(Stamped):
    """Tracer wire laid with a lateral (§ 315-13C(3), SPS 382.30(11)(h))."""

    __tablename__ = "tracer_wires"

    lateral_id: Mapped[int | None] = mapped_column(
        ForeignKey("laterals.id", ondelete="SET NULL"), index=True
    )
    gauge_awg: Mapped[int | None] = mapped_column(Integer)
    in_conduit: Mapped[bool | None] = mapped_column(Boolean)
    reaches_surface_at_wall: Mapped[bool | None] = mapped_column(Boolean)
    geom = mapped_column(Geometry("LINESTRING", srid=4326, spatial_index=True), nullable=False)
