"""When the scheduled jobs last ran, kept in the audit trail.

The daily ``notices tick``, the nightly backup and the purge of abandoned uploads each
leave one ``job_run`` audit row when they finish, so ``flask --app server doctor`` can
tell a city that a timer stopped firing. The trail is append-only, which suits a record
of what ran when.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import func, select

from server.core.audit import trail as audit
from server.core.audit.models import AuditEvent
from server.core.extensions import db
from server.core.models import as_utc

ACTION = "job_run"
NOTICES_TICK = "notices tick"
BACKUP = "backup"
PURGE_UPLOADS = "photos purge-uploads"


def record_run(job: str, summary: dict | None = None) -> None:
    """Note in the current transaction that ``job`` finished, with what it did."""
    audit.record(ACTION, job, None, None, summary or {}, None)


def last_run(job: str) -> datetime | None:
    """When ``job`` last finished (UTC), or ``None`` if it never has."""
    moment = db.session.scalar(
        select(func.max(AuditEvent.at)).where(AuditEvent.action == ACTION, AuditEvent.subject_type == job))
    return as_utc(moment) if moment is not None else None
