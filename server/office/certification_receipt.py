"""The Commission's clock after it receives the certified survey (Art. I, ``SURVEY-NOTIFY-5``).

Within 5 days of receiving the superintendent's certified survey, the Commission notifies
each owner in violation in writing by certified mail. The day of receipt is recorded
against the issued certification (:func:`record_receipt`); :func:`notify_clock` is what
the desk shows: the last day, the days left or overdue, the owners that certification
lists who have not been sent their notice, and the clear-water notices not yet mailed.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from sqlalchemy import func, select

from server.core.access.roles import DESK
from server.core.audit import trail as audit
from server.core.errors import LateralError
from server.core.extensions import db
from server.notices.clock import rulebook, today
from server.notices.election_calendar import deadline
from server.notices.models import Notice
from server.office import certificates
from server.office.models import SurveyCertification

#: Who records the Commission's receipt of the certified survey: the notice desk.
RECORDERS = DESK
#: Notice kinds that are the Art. I notice to an owner in violation.
CLEAR_WATER_KINDS = ("CW-DISCONNECT-60", "CW-REMOVE-150")
NOT_MAILED = ("draft", "held", "approved")


def record_receipt(certification_id: int | None, received_on: date, note: str | None, actor) -> SurveyCertification:
    """Record that the Commission received the issued certification ``certification_id``
    (:mod:`server.office.certificates`): the receipt names that stored document and its
    SHA-256.

    Raises:
        LateralError: ``forbidden`` for other roles; ``invalid_fields`` without a
            certification; ``not_found``; ``invalid_date`` for a receipt before the
            certification or in the future.
    """
    role = getattr(actor, "role", None)
    if role not in RECORDERS:
        raise LateralError("forbidden", "the clerk or the superintendent records the Commission's receipt",
                           {"your_role": role})
    if certification_id is None:
        raise LateralError("invalid_fields", "name the certification the Commission received; the superintendent "
                           "issues it at /survey/certify", {"fields": {"certification_id": ["required"]}})
    cert = certificates.get(certification_id)
    certified_on = cert.certified_on
    if received_on < certified_on or received_on > today():
        raise LateralError("invalid_date", f"the receipt on {received_on.isoformat()} is before the certification "
                           f"({certified_on.isoformat()}) or in the future")
    notify_by = deadline("SURVEY-NOTIFY-5", received_on, rulebook()).date
    row = SurveyCertification(certification_id=cert.id, certification_sha256=cert.pdf_sha256,
                              certified_on=certified_on, received_on=received_on, notify_by=notify_by, note=note,
                              recorded_by_id=getattr(actor, "id", None))
    db.session.add(row)
    db.session.flush()
    audit.record("record_survey_receipt", "survey_certification", row.id, None,
                 {"certification_id": cert.id, "certification_sha256": cert.pdf_sha256,
                  "certified_on": certified_on.isoformat(), "received_on": received_on.isoformat(),
                  "notify_by": notify_by.isoformat()}, actor)
    return row


@dataclass(frozen=True)
class NotifyClock:
    certified_on: date
    received_on: date
    notify_by: date
    days_left: int
    not_mailed: int  # clear-water notices drafted, held or approved, not yet mailed
    certification_id: int | None = None
    # Owners the received certification lists whose notice has not been sent (None for a
    # receipt recorded before certifications were kept).
    not_notified: int | None = None

    @property
    def overdue(self) -> bool:
        return self.days_left < 0


def notify_clock() -> NotifyClock | None:
    """The latest certification's clock, or None before any receipt is recorded."""
    row = db.session.scalars(select(SurveyCertification).order_by(SurveyCertification.id.desc()).limit(1)).first()
    if row is None:
        return None
    waiting = db.session.scalar(select(func.count()).select_from(Notice).where(
        Notice.kind.in_(CLEAR_WATER_KINDS), Notice.state.in_(NOT_MAILED)))
    not_notified = None
    if row.certification_id is not None:
        listed = certificates.listed_parcels(certificates.get(row.certification_id))
        not_notified = sum(1 for p in listed if not p.notified)
    return NotifyClock(row.certified_on, row.received_on, row.notify_by, (row.notify_by - today()).days, waiting or 0,
                       row.certification_id, not_notified)
