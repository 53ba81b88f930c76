"""The audit chain's head, written down outside the database.

Whoever can rewrite the ``audit_events`` table can also cut rows off its end and rewind
the chain's head row: every hash that is left still holds. What such a person cannot
rewrite is a record kept elsewhere. Each backup (in its manifest) and each daily tick
append the head hash and the row count to the anchors file
(``LATERAL_AUDIT_ANCHORS``, default ``instance/audit-anchors.log``), which the app only
ever appends to, one JSON line per anchor, and the log says the same line.
``flask --app server audit verify`` reads the file back: the chain must still have at
least each anchor's rows, with the anchor's hash after exactly that many.
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass
from pathlib import Path

from flask import current_app
from sqlalchemy import func, select

from server.core import settings
from server.core.audit.models import AuditChain, AuditEvent
from server.core.models import utcnow

log = logging.getLogger("lateral.audit")


@dataclass(frozen=True)
class Anchor:
    rows: int
    head: str
    at: str
    source: str


def anchors_file() -> Path:
    configured = settings.current().audit_anchors
    return configured or Path(current_app.instance_path) / "audit-anchors.log"


def current_head(session) -> Anchor:
    """The chain's head as the database has it now (one row read and one count, not a walk)."""
    head = session.scalar(select(AuditChain.last_hash))
    rows = session.scalar(select(func.count()).select_from(AuditEvent)) or 0
    return Anchor(rows, head or "0" * 64, utcnow().isoformat(), "")


def anchor(session, source: str) -> Anchor:
    """Append the head now to the anchors file (created 0600) and the log; return it."""
    now = current_head(session)
    entry = Anchor(now.rows, now.head, now.at, source)
    path = anchors_file()
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    line = json.dumps(entry.__dict__, sort_keys=True) + "\n"
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(fd, line.encode())
        os.fsync(fd)
    finally:
        os.close(fd)
    log.info("audit chain head: %s", line.strip())
    return entry


def read_anchors(path: Path | None = None) -> list[Anchor]:
    """Every anchor written so far (none when the file does not exist yet)."""
    path = path or anchors_file()
    if not path.exists():
        return []
    found = []
    for line in path.read_text().splitlines():
        if line.strip():
            data = json.loads(line)
            found.append(Anchor(int(data["rows"]), str(data["head"]), str(data["at"]), str(data.get("source", ""))))
    return found
