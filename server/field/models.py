"""Field inspections: checklist templates, assignments, inspections, photos, sync.

An ``Inspection`` is immutable once received; a correction is a new inspection whose
``replaces_id`` names the one it corrects (at most one correction per inspection: a
unique constraint). Photos are kept once by SHA-256; an inspection names its photos
by digest, so the photo may arrive before or after the inspection.
"""

from __future__ import annotations

from datetime import date, datetime

from geoalchemy2 import Geometry
from sqlalchemy import (
    JSON,
    BigInteger,
    Date,
    DateTime,
    Float,
    ForeignKey,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column

from server.core.extensions import Model
from server.core.models import one_of, utcnow

ASSIGNMENT_STATUSES = ("open", "done", "cancelled")
RESULTS = ("pass", "fail")
CONFLICT_STATUSES = ("open", "applied", "discarded")
# The kinds of pushed record: the push schema's OneOf and push_records' CHECK read
# this tuple; services/sync.RECORD_KINDS holds one handler per name (checked at import).
PUSH_KINDS = ("inspection", "feature_edit")
PUSH_OUTCOMES = ("created", "stale_version", "proposed")


class ChecklistTemplate(Model):
    """One version of a checklist, loaded from ``server/field/checklists/<template_id>.json``."""

    __tablename__ = "checklist_templates"
    __table_args__ = (UniqueConstraint("template_id", "version", name="uq_checklist_templates_version"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    template_id: Mapped[str] = mapped_column(String(60), nullable=False, index=True)
    version: Mapped[int] = mapped_column(Integer, nullable=False)
    title: Mapped[str] = mapped_column(String(200), nullable=False)
    content = mapped_column(JSON, nullable=False)  # the whole file as loaded
    content_hash: Mapped[str] = mapped_column(String(64), nullable=False)
    loaded_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow, nullable=False)


class Assignment(Model):
    """A parcel an inspector is sent to visit with a checklist."""

    __tablename__ = "assignments"
    __table_args__ = (one_of("status", ASSIGNMENT_STATUSES),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    inspector_id: Mapped[int] = mapped_column(ForeignKey("users.id"), nullable=False, index=True)
    parcel_id: Mapped[int] = mapped_column(ForeignKey("parcels.id", ondelete="CASCADE"), nullable=False, index=True)
    template_id: Mapped[str] = mapped_column(String(60), nullable=False)
    due_on: Mapped[date | None] = mapped_column(Date)
    reason: Mapped[str | None] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(10), nullable=False, default="open", index=True)
    created_by_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow, nullable=False)
    completed_by_inspection_id: Mapped[int | None] = mapped_column(ForeignKey("inspections.id"))


class Inspection(Model):
    """One filled-in checklist, as the tablet sent it; never changed afterwards."""

    __tablename__ = "inspections"
    __table_args__ = (one_of("result", RESULTS),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    uuid: Mapped[str] = mapped_column(String(36), unique=True, nullable=False)
    template_id: Mapped[str] = mapped_column(String(60), nullable=False, index=True)
    template_version: Mapped[int] = mapped_column(Integer, nullable=False)
    parcel_id: Mapped[int | None] = mapped_column(ForeignKey("parcels.id", ondelete="SET NULL"), index=True)
    inspector_id: Mapped[int] = mapped_column(ForeignKey("users.id"), nullable=False, index=True)
    geom = mapped_column(Geometry("POINT", srid=4326, spatial_index=True), nullable=False)
    started_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
    finished_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
    received_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow, nullable=False)
    answers = mapped_column(JSON, nullable=False)
    result: Mapped[str] = mapped_column(String(4), nullable=False)
    failures = mapped_column(JSON, nullable=False)  # [{"item", "rule_id", "message"}]
    # What the evaluation opened or found, fixed at receipt (the row never changes).
    violation_ids = mapped_column(JSON, nullable=False)
    finding_ids = mapped_column(JSON, nullable=False)
    content_hash: Mapped[str] = mapped_column(String(64), nullable=False)
    # Unique: one correction per inspection, so two tablets cannot both replace it.
    replaces_id: Mapped[int | None] = mapped_column(ForeignKey("inspections.id"), unique=True)


class InspectionPhoto(Model):
    """A photo an inspection names, by digest (the photo itself may not have arrived)."""

    __tablename__ = "inspection_photos"
    __table_args__ = (UniqueConstraint("inspection_id", "sha256", "item_id", name="uq_inspection_photos"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    inspection_id: Mapped[int] = mapped_column(
        ForeignKey("inspections.id", ondelete="CASCADE"), nullable=False, index=True
    )
    sha256: Mapped[str] = mapped_column(String(64), nullable=False, index=True)
    item_id: Mapped[str] = mapped_column(String(120), nullable=False)
    filename: Mapped[str | None] = mapped_column(String(255))


class Photo(Model):
    """A stored photo: original byte for byte under its SHA-256, and what its EXIF says."""

    __tablename__ = "photos"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    sha256: Mapped[str] = mapped_column(String(64), unique=True, nullable=False)
    size: Mapped[int] = mapped_column(BigInteger, nullable=False)
    format: Mapped[str] = mapped_column(String(10), nullable=False)
    width: Mapped[int] = mapped_column(Integer, nullable=False)
    height: Mapped[int] = mapped_column(Integer, nullable=False)
    captured_at: Mapped[datetime | None] = mapped_column(DateTime)  # camera wall clock, naive
    lat: Mapped[float | None] = mapped_column(Float)
    lon: Mapped[float | None] = mapped_column(Float)
    alt: Mapped[float | None] = mapped_column(Float)
    make: Mapped[str | None] = mapped_column(String(120))
    model: Mapped[str | None] = mapped_column(String(120))
    warnings = mapped_column(JSON)
    upload_metadata = mapped_column(JSON)  # inspection_uuid, item_id, filename as the client sent
    uploaded_by_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    uploaded_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow, nullable=False)


class SyncConflict(Model):
    """A field edit made from an old version of a feature, held for the superintendent."""

    __tablename__ = "sync_conflicts"
    __table_args__ = (one_of("status", CONFLICT_STATUSES),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    record_uuid: Mapped[str] = mapped_column(String(36), nullable=False, index=True)
    layer: Mapped[str] = mapped_column(String(40), nullable=False)
    feature_id: Mapped[int] = mapped_column(Integer, nullable=False)
    base_version: Mapped[int] = mapped_column(Integer, nullable=False)
    current_version: Mapped[int | None] = mapped_column(Integer)
    proposed = mapped_column(JSON, nullable=False)  # {"properties", "geometry"}
    current = mapped_column(JSON)  # the feature when the edit arrived
    status: Mapped[str] = mapped_column(String(10), nullable=False, default="open", index=True)
    created_by_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow, nullable=False)
    resolved_by_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    resolved_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    applied_version: Mapped[int | None] = mapped_column(Integer)


class PushRecord(Model):
    """Every pushed record that was accepted, by client UUID: the idempotency key."""

    __tablename__ = "push_records"
    __table_args__ = (one_of("kind", PUSH_KINDS), one_of("outcome", PUSH_OUTCOMES))

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    uuid: Mapped[str] = mapped_column(String(36), unique=True, nullable=False)
    kind: Mapped[str] = mapped_column(String(20), nullable=False)
    content_hash: Mapped[str] = mapped_column(String(64), nullable=False)
    outcome: Mapped[str] = mapped_column(String(20), nullable=False)
    server_id: Mapped[int | None] = mapped_column(Integer)
    conflict_id: Mapped[int | None] = mapped_column(ForeignKey("sync_conflicts.id"))
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    received_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow, nullable=False)
