"""What a plumber's CCTV submittal stores: the submittal (its lateral, its video and its
state), the report's coded observations, and the certificate of compliance staff issue."""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import (
    BigInteger,
    Boolean,
    CheckConstraint,
    Date,
    DateTime,
    Float,
    ForeignKey,
    Integer,
    LargeBinary,
    String,
    Text,
)
from sqlalchemy.orm import Mapped, deferred, mapped_column

from server.core.extensions import Model
from server.core.models import one_of, utcnow

#: ``awaiting_video`` until the video's last byte arrives, then ``received`` (waiting for
#: review), then ``certified`` (a certificate of compliance) or ``repair`` (a repair notice drafted).
STATES = ("awaiting_video", "received", "certified", "repair")
DECIDED = ("certified", "repair")


class CctvSubmittal(Model):
    """A verified plumber's CCTV inspection of the lateral of one parcel, under their permit
    or answering a notice when there is one."""

    __tablename__ = "cctv_submittals"
    __table_args__ = (one_of("state", STATES),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    plumber_id: Mapped[int] = mapped_column(ForeignKey("users.id"), nullable=False, index=True)
    parcel_id: Mapped[int] = mapped_column(ForeignKey("parcels.id"), nullable=False, index=True)
    permit_id: Mapped[int | None] = mapped_column(ForeignKey("permits.id"))
    notice_id: Mapped[int | None] = mapped_column(ForeignKey("notices.id"))
    state: Mapped[str] = mapped_column(String(16), nullable=False, default="awaiting_video", index=True)
    inspected_on: Mapped[date] = mapped_column(Date, nullable=False)
    note: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow, nullable=False)
    video_sha256: Mapped[str | None] = mapped_column(String(64))
    video_media_type: Mapped[str | None] = mapped_column(String(40))
    video_size: Mapped[int | None] = mapped_column(BigInteger)
    video_filename: Mapped[str | None] = mapped_column(String(200))
    received_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    reviewed_by_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    reviewed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    review_note: Mapped[str | None] = mapped_column(Text)
    repair_notice_id: Mapped[int | None] = mapped_column(ForeignKey("notices.id"))
    #: False once the plumber followed the email's link to stop emails about this submittal.
    emails: Mapped[bool] = mapped_column(Boolean, nullable=False, default=True)


class CctvObservation(Model):
    """One coded observation of the report, in NASSCO LACP terms (:mod:`server.portal.lacp`)."""

    __tablename__ = "cctv_observations"
    __table_args__ = (CheckConstraint("clock BETWEEN 1 AND 12", name="clock"),
                      CheckConstraint("grade BETWEEN 1 AND 5", name="grade"),
                      CheckConstraint("distance_ft >= 0", name="distance_ft"))

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    submittal_id: Mapped[int] = mapped_column(ForeignKey("cctv_submittals.id", ondelete="CASCADE"), nullable=False,
                                              index=True)
    position: Mapped[int] = mapped_column(Integer, nullable=False)
    code: Mapped[str] = mapped_column(String(8), nullable=False)
    distance_ft: Mapped[float] = mapped_column(Float, nullable=False)
    clock: Mapped[int] = mapped_column(Integer, nullable=False)
    grade: Mapped[int] = mapped_column(Integer, nullable=False)
    seconds: Mapped[float | None] = mapped_column(Float)
    remark: Mapped[str | None] = mapped_column(Text)


class CctvCertificate(Model):
    """A certificate of compliance, recorded against the lateral: the parcel, the lateral on
    record (if any), the permit, the submittal, who issued it and on which day of the city;
    the PDF kept with its SHA-256."""

    __tablename__ = "cctv_certificates"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    submittal_id: Mapped[int] = mapped_column(ForeignKey("cctv_submittals.id"), nullable=False, unique=True)
    parcel_id: Mapped[int] = mapped_column(ForeignKey("parcels.id"), nullable=False, index=True)
    lateral_id: Mapped[int | None] = mapped_column(ForeignKey("laterals.id", ondelete="SET NULL"))
    permit_id: Mapped[int | None] = mapped_column(ForeignKey("permits.id"))
    issued_by_id: Mapped[int] = mapped_column(ForeignKey("users.id"), nullable=False)
    issued_on: Mapped[date] = mapped_column(Date, nullable=False)
    issued_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow, nullable=False)
    pdf: Mapped[bytes] = deferred(mapped_column(LargeBinary, nullable=False))
    sha256: Mapped[str] = mapped_column(String(64), nullable=False)
