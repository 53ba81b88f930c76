"""Permits (§§ 315-11 to 315-13) and the dated history of each.

A permit belongs to a parcel and records what the ordinance asks of an application:
the applicant and the owner's written consent (§ 315-11E(1)), the licensed plumber
(§ 315-11B), the wastes (§ 315-11E(1)), the connection's kind and size the tap must match
(§ 315-13B(1)), the fees from the rulebook (§ 315-11H) and whether they are paid, and
whether the parcel lies inside the corporate limits (§ 315-11E(2)). Every step is one
:class:`PermitEvent`, dated on the city's calendar, besides the audit trail's row.
"""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal

from sqlalchemy import JSON, Boolean, Date, DateTime, Float, ForeignKey, Index, Integer, Numeric, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from server.core.extensions import Model
from server.core.models import Stamped, one_of, utcnow

#: The kinds of permit: a new connection (§ 315-11A, E), a lateral repair or replacement,
#: a tap (§ 315-13B(1)), an excavation in the street (§ 315-13A(1)), abandonment and
#: capping (§ 315-12E).
KINDS = ("new_connection", "lateral_repair", "tap", "excavation", "abandonment")
STATES = ("applied", "under_review", "approved", "rejected", "issued", "scheduled", "inspection_requested",
          "passed", "failed", "connected", "closed", "expired", "withdrawn")
#: No further step is taken on a permit in these states.
FINAL_STATES = ("rejected", "closed", "expired", "withdrawn")
#: The kind of building sewer the tap must match (§ 315-13B(1)).
CONNECTION_KINDS = ("gravity", "pressure")
#: The Commission acts at a meeting, or the superintendent under its delegation.
APPROVAL_BASES = ("commission", "delegation")


class Permit(Stamped):
    """One permit for work on a parcel's connection to the public sewer."""

    __tablename__ = "permits"
    __table_args__ = (
        one_of("kind", KINDS),
        one_of("state", STATES),
        one_of("connection_kind", CONNECTION_KINDS),
        one_of("approval_basis", APPROVAL_BASES),
        # The register's totals by state read this index alone.
        Index("ix_permits_register", "state", "paid", "fee_total"),
        # The register by state and kind in id order, and the overdue lists oldest first,
        # straight off an index (bench/README.md, "Permit register").
        Index("ix_permits_state_kind", "state", "kind", "id"),
        Index("ix_permits_state_issued", "state", "issued_on", "id"),
        Index("ix_permits_state_requested", "state", "inspection_requested_on", "id"),
    )

    number: Mapped[str | None] = mapped_column(String(20), unique=True)
    kind: Mapped[str] = mapped_column(String(20), nullable=False, index=True)
    state: Mapped[str] = mapped_column(String(24), nullable=False, default="applied", index=True)
    parcel_id: Mapped[int] = mapped_column(ForeignKey("parcels.id"), nullable=False, index=True)
    # The lateral the work is on (a repair, an abandonment), or the one it wrote (as-built).
    lateral_id: Mapped[int | None] = mapped_column(ForeignKey("laterals.id", ondelete="SET NULL"))
    applied_on: Mapped[date] = mapped_column(Date, nullable=False)

    applicant_name: Mapped[str] = mapped_column(String(200), nullable=False)
    applicant_phone: Mapped[str | None] = mapped_column(String(40))
    applicant_email: Mapped[str | None] = mapped_column(String(200))
    applicant_is_owner: Mapped[bool] = mapped_column(Boolean, nullable=False, default=True)
    # The owner's written consent when the applicant is not the owner (§ 315-11E(1)).
    owner_consent_by: Mapped[str | None] = mapped_column(String(200))
    owner_consent_on: Mapped[date | None] = mapped_column(Date)

    # The licensed plumber (§ 315-11B): the Wisconsin credential and its expiry.
    plumber_name: Mapped[str] = mapped_column(String(200), nullable=False)
    plumber_license: Mapped[str] = mapped_column(String(20), nullable=False, index=True)
    plumber_license_expires: Mapped[date] = mapped_column(Date, nullable=False)

    wastes: Mapped[str] = mapped_column(Text, nullable=False)
    connection_kind: Mapped[str] = mapped_column(String(10), nullable=False, default="gravity")
    connection_size_in: Mapped[float] = mapped_column(Float, nullable=False)
    work_description: Mapped[str | None] = mapped_column(Text)

    # § 315-11E(2): inside the corporate limits, or outside with a connection on the day.
    inside_limits: Mapped[bool] = mapped_column(Boolean, nullable=False, default=True)
    connected_by_cutoff: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    surcharged: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)

    # {"connection_charge": "500.00", ...} from the rulebook when applied (§ 315-11H).
    fees = mapped_column(JSON, nullable=False)
    fee_total: Mapped[Decimal] = mapped_column(Numeric(10, 2), nullable=False)
    paid: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    paid_on: Mapped[date | None] = mapped_column(Date)
    receipt_number: Mapped[str | None] = mapped_column(String(40))

    approval_basis: Mapped[str | None] = mapped_column(String(12))
    commission_meeting_on: Mapped[date | None] = mapped_column(Date)
    delegation: Mapped[str | None] = mapped_column(String(200))
    approved_on: Mapped[date | None] = mapped_column(Date)
    rejected_reason: Mapped[str | None] = mapped_column(Text)

    issued_on: Mapped[date | None] = mapped_column(Date)
    expires_on: Mapped[date | None] = mapped_column(Date)
    work_on: Mapped[date | None] = mapped_column(Date)
    # TAP-FROZEN: the superintendent's reason for opening the street in frozen ground.
    frozen_override_reason: Mapped[str | None] = mapped_column(Text)

    # The inspection before backfill (LATERAL-INSPECT), as the holder requested it.
    inspection_earliest: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    inspection_contact: Mapped[str | None] = mapped_column(String(200))
    inspection_requested_on: Mapped[date | None] = mapped_column(Date)
    assignment_id: Mapped[int | None] = mapped_column(ForeignKey("assignments.id", ondelete="SET NULL"))
    inspected_on: Mapped[date | None] = mapped_column(Date)
    # The inspection that passed or failed the work (provenance of the as-built).
    inspection_id: Mapped[int | None] = mapped_column(ForeignKey("inspections.id", ondelete="SET NULL"))
    # What a failed inspection asks corrected: [{"item", "section", "measured", "note"}].
    corrections = mapped_column(JSON)

    connected_on: Mapped[date | None] = mapped_column(Date)
    closed_on: Mapped[date | None] = mapped_column(Date)
    withdrawn_reason: Mapped[str | None] = mapped_column(Text)
    created_by_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    # The plumber's account that applied online (the portal, docs/portal.md): the permit is
    # theirs to follow there, and the desk shows that it came from the portal.
    plumber_user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"), index=True)


#: What a file kept with a permit is: the owner's written consent (§ 315-11E(1)).


class PermitEvent(Model):
    """One step of a permit's life: who did what, on which of the city's days."""

    __tablename__ = "permit_events"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    permit_id: Mapped[int] = mapped_column(ForeignKey("permits.id"), nullable=False, index=True)
    event: Mapped[str] = mapped_column(String(24), nullable=False)
    from_state: Mapped[str | None] = mapped_column(String(24))
    to_state: Mapped[str] = mapped_column(String(24), nullable=False)
    on: Mapped[date] = mapped_column(Date, nullable=False)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False, default=utcnow)
    actor_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    note: Mapped[str | None] = mapped_column(Text)
    data = mapped_column(JSON)


#: The scanned forms the clerk attaches to an application: PDFs and JPEG or PNG scans.
ATTACHMENT_TYPES = ("application/pdf", "image/jpeg", "image/png")


class PermitAttachment(Model):
    """A scanned form attached to a permit (an application signed at the counter, the
    owner's written consent, a plan): kept in the app's blob store by SHA-256."""

    __tablename__ = "permit_attachments"
    __table_args__ = (one_of("media_type", ATTACHMENT_TYPES),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    permit_id: Mapped[int] = mapped_column(ForeignKey("permits.id"), nullable=False, index=True)
    sha256: Mapped[str] = mapped_column(String(64), nullable=False)
    media_type: Mapped[str] = mapped_column(String(40), nullable=False)
    filename: Mapped[str] = mapped_column(String(200), nullable=False)
    size: Mapped[int] = mapped_column(Integer, nullable=False)
    description: Mapped[str | None] = mapped_column(String(200))
    attached_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False, default=utcnow)
    attached_by_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))


class PermitTotal(Model):
    """The register's totals for one state: how many permits are in it and the fees
    collected on them (paid permits' totals), kept by triggers on ``permits``
    (``dialects.group_total_triggers``, migration 0021), so the Permits page reads 13
    rows, not every permit."""

    __tablename__ = "permit_totals"

    state: Mapped[str] = mapped_column(String(24), primary_key=True)
    row_count: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    amount: Mapped[Decimal] = mapped_column(Numeric(14, 2), nullable=False, default=Decimal("0.00"))

