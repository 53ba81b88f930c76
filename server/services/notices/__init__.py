"""Notices: drafting, the workflow, the clock, the daily tick and what became of the
cited violations, one module per subject.

* :mod:`.workflow` — the transition table and each event's effect (:func:`apply_event`);
* :mod:`.clock` — the city's day, the printed deadline and the one in force;
* :mod:`.tick` — the daily job;
* :mod:`.citations` — the cited violations' fate and the refusal to mail;
* :mod:`.drafts` — open violations → one notice per parcel and kind;
* :mod:`.record` — reading notices and their audit summary;
* :mod:`.appeals` — appeals and decisions (§ 315-21H);
* :mod:`.service_of_notice` — return receipts and substitute service;
* :mod:`.due_process` — a page of notices' appeals and service steps in one query each.

The names below are the package's public face; callers import them from here.
"""

from server.services.notices.citations import Citations, check_violations_open, citations
from server.services.notices.clock import (
    accrue_penalty,
    assumed_service_day,
    city_day,
    deadline_rule,
    printed_deadline,
    rulebook,
    start_clock,
    today,
)
from server.services.notices.due_process import appeals_by_notice, steps_by_notice
from server.services.notices.record import get_notice, list_notices, summary
from server.services.notices.tick import tick, violations_cleared
from server.services.notices.workflow import (
    ACTIVE,
    EVENTS,
    EVIDENCE,
    MAILROOM,
    SERVED,
    SUPERVISORS,
    SYSTEM,
    TRANSITIONS,
    Transition,
    allowed_events,
    apply_event,
    check_transition,
    finish,
)

__all__ = [
    "ACTIVE", "EVENTS", "EVIDENCE", "MAILROOM", "SERVED", "SUPERVISORS", "SYSTEM", "TRANSITIONS",
    "Citations", "Transition", "accrue_penalty", "allowed_events", "appeals_by_notice", "apply_event",
    "assumed_service_day", "check_transition", "check_violations_open", "citations", "city_day",
    "deadline_rule", "finish", "get_notice", "list_notices", "printed_deadline", "rulebook",
    "start_clock", "steps_by_notice", "summary", "tick", "today", "violations_cleared",
]
