"""The sewer network: mains, manholes, laterals (building sewers), taps, tracer wire."""

from __future__ import annotations

from datetime import date

from geoalchemy2 import Geometry
from sqlalchemy import BigInteger, Boolean, Date, Float, ForeignKey, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from server.core.extensions import Model
from server.core.models import Stamped, one_of

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
    # The day it was abandoned and capped (§ 315-12E): the feature is kept, not deleted.
    abandoned_on: Mapped[date | None] = mapped_column(Date)
    # Provenance of an as-built record: the permit and the inspection before backfill.
    permit_number: Mapped[str | None] = mapped_column(String(40))
    inspection_uuid: Mapped[str | None] = mapped_column(String(36))
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
    inspection_uuid: Mapped[str | None] = mapped_column(String(36))
    # Measured in the open trench: from the downstream manhole along the main, in feet.
    downstream_manhole_ft: Mapped[float | None] = mapped_column(Float)
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
    permit_number: Mapped[str | None] = mapped_column(String(40))
    inspection_uuid: Mapped[str | None] = mapped_column(String(36))
    geom = mapped_column(Geometry("LINESTRING", srid=4326, spatial_index=True), nullable=False)


# Parcels and the sewer service area.
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


class Street(Stamped):
    """A street centreline: its name as addresses write it, and the house numbers on each side.

    Left and right are seen walking from the line's first vertex to its last, as in
    TIGER/Line and Wisconsin's NG911 road centrelines; a side with no addresses has
    no range.
    """

    __tablename__ = "streets"

    name: Mapped[str] = mapped_column(String(200), nullable=False, index=True)
    left_from: Mapped[int | None] = mapped_column(Integer)
    left_to: Mapped[int | None] = mapped_column(Integer)
    right_from: Mapped[int | None] = mapped_column(Integer)
    right_to: Mapped[int | None] = mapped_column(Integer)
    geom = mapped_column(Geometry("LINESTRING", srid=4326, spatial_index=True), nullable=False)


# Clear-water survey findings: sump pumps, downspouts and drains found on a parcel.
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


class LayerCount(Model):
    """A layer table's feature count and write version, kept by triggers on the table (issue #35).

    ``server.core.dialects.common.LAYER_COUNT_SQL`` reads it with its deltas; the
    triggers (``layer_count_triggers``) are made by the migration that makes the table.
    """

    __tablename__ = "layer_counts"

    table_name: Mapped[str] = mapped_column(String(63), primary_key=True)
    features: Mapped[int] = mapped_column(BigInteger, nullable=False)
    write_version: Mapped[int] = mapped_column(BigInteger, nullable=False)


class LayerCountDelta(Model):
    """What one write statement did to a layer's count, on PostgreSQL, until it is folded."""

    __tablename__ = "layer_count_deltas"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_name: Mapped[str] = mapped_column(String(63), nullable=False, index=True)
    features: Mapped[int] = mapped_column(BigInteger, nullable=False)
