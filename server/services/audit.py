"""Writing the audit trail, in the same transaction as the change it records."""

from __future__ import annotations

from sqlalchemy import insert

from server.extensions import db
from server.models import AuditEvent

_INSERT = insert(AuditEvent.__table__)


def record(action: str, subject_type: str, subject_id: int | None, before, after, actor=None) -> None:
    """Append one audit row to the current session (committed with the change)."""
    db.session.add(
        AuditEvent(
            action=action,
            subject_type=subject_type,
            subject_id=subject_id,
            before=before,
            after=after,
            user_id=getattr(actor, "id", None),
        )
    )


def record_now(action: str, subject_type: str, subject_id: int | None, before, after,
               user_id: int | None) -> None:
    """Write one audit row at once, as a plain INSERT in the session's transaction.

    For hot paths that write no ORM objects (a photo's row on its upload): adding an
    ``AuditEvent`` would make the commit run the ORM's flush for this one row.
    """
    db.session.execute(_INSERT, {"action": action, "subject_type": subject_type, "subject_id": subject_id,
                                 "before": before, "after": after, "user_id": user_id})
