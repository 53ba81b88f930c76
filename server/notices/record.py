"""Reading notices, and what the audit trail keeps of one."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from sqlalchemy import select

from server.core.errors import LateralError
from server.core.extensions import db
from server.notices.models import Notice

_SUMMARY_KEYS = ("state", "kind", "parcel_id", "article_number", "mailed_on", "delivery_event",
                 "delivery_event_on", "served_on", "deadline", "letter_sha256", "penalty_accrued",
                 "held_reason", "decision", "complied_reason")


def summary(notice: Notice) -> dict:
    """What the audit trail keeps of a notice (plain JSON values)."""
    out = {}
    for key in _SUMMARY_KEYS:
        value = getattr(notice, key)
        out[key] = value.isoformat() if isinstance(value, date) else (
            str(value) if isinstance(value, Decimal) else value)
    return out


def get_notice(notice_id: int) -> Notice:
    notice = db.session.get(Notice, notice_id)
    if notice is None:
        raise LateralError("not_found", f"no notice with id {notice_id}")
    return notice


def list_notices(state: str | None = None, kind: str | None = None, parcel_id: int | None = None,
                 limit: int = 100, after: int | None = None) -> list[Notice]:
    stmt = select(Notice).order_by(Notice.id).limit(limit)
    for column, value in ((Notice.state, state), (Notice.kind, kind), (Notice.parcel_id, parcel_id)):
        if value is not None:
            stmt = stmt.where(column == value)
    if after is not None:
        stmt = stmt.where(Notice.id > after)
    return db.session.scalars(stmt).all()
