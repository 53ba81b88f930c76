"""Writing the audit trail, in the same transaction as the change it records."""

from __future__ import annotations

from server.extensions import db
from server.models import AuditEvent


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
