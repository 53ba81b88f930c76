"""The notice workflow: the transition table and what each event does.

States and events (docs/notices.md has the table)::

    draft/held -> approved -> mailed -> delivered | refused | unclaimed (-> substitute)
              -> complied | overdue -> escalated;  appealed -> decided;  withdrawn
    decided (upheld or modified) -> overdue | complied | appealed (to the Council)

Every change goes through :func:`apply_event`, which looks the (state, event) pair up
in :data:`TRANSITIONS` (409 ``invalid_transition`` when absent, 403 when the caller's
role may not), runs the event's effect and writes the audit row. Drafting lives in
:mod:`server.notices.drafts`, mailing in :mod:`server.notices.mailing`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from sqlalchemy import select

from server.core.access.roles import CODE_HOLDER, MAILROOM, SIGNED_IN, SUPERINTENDENT, SUPERVISORS
from server.core.audit import trail as audit
from server.core.errors import LateralError
from server.core.extensions import db
from server.core.models import utcnow
from server.field.events import announce
from server.network.models import Parcel
from server.notices.appeals import file_appeal, record_decision
from server.notices.clock import accrue_penalty, rulebook, start_clock, today
from server.notices.drafts import draft_follow_up, snapshot_owner
from server.notices.events import notice_changed
from server.notices.kinds import notice_kind
from server.notices.letters.texts import delegation_placeholder
from server.notices.models import CLOSED_STATES, Notice, NoticeViolation
from server.notices.record import summary
from server.notices.reinspections import request_reinspection
from server.notices.service_of_notice import check_unclaimed_on, record_step

SYSTEM = "system"  # the daily tick: no user
#: A passing inspection closing a notice (server/notices/compliance.py), whoever pushed it:
#: an inspector closes a notice only through evidence, never by sending ``comply``.
EVIDENCE = "evidence"
SERVED = ("delivered", "refused", "unclaimed")
#: States in which the owner's clock may be running.
ACTIVE = ("mailed", *SERVED, "overdue", "escalated")
#: Upheld or modified on appeal: open, its clock set again from the decision letter.
DECIDED = "decided"


@dataclass(frozen=True)
class Transition:
    source: str
    event: str
    target: str
    roles: frozenset[str]


def _table(*rows: tuple[Iterable[str] | str, str, str | None, frozenset[str]]) -> dict[tuple[str, str], Transition]:
    out = {}
    for sources, event, target, roles in rows:
        for source in [sources] if isinstance(sources, str) else sources:
            # A target of None: the event records something and the state stays.
            out[(source, event)] = Transition(source, event, target or source, roles)
    return out


TRANSITIONS: dict[tuple[str, str], Transition] = _table(
    ("draft", "approve", "approved", frozenset({SUPERINTENDENT})),
    (("draft", "held", "approved"), "withdraw", "withdrawn", SUPERVISORS),
    ("held", "release", "draft", SUPERVISORS | MAILROOM),
    ("approved", "mail", "mailed", MAILROOM),
    ("mailed", "deliver", "delivered", MAILROOM),
    ("mailed", "refuse", "refused", MAILROOM),
    ("mailed", "unclaimed", "unclaimed", MAILROOM),
    (("refused", "unclaimed"), "substitute", None, MAILROOM),
    (("mailed", *SERVED, DECIDED), "overdue", "overdue", frozenset({SYSTEM})),
    ("overdue", "escalate", "escalated", SUPERVISORS | {SYSTEM}),
    # The superintendent may comply a notice by hand, with a reason that is audited; an
    # inspector's evidence is the inspection (EVIDENCE).
    ((*ACTIVE, DECIDED), "comply", "complied", frozenset({SUPERINTENDENT, SYSTEM, EVIDENCE})),
    # The clerk files an appeal in time; the superintendent may also accept one late; the
    # owner may file one in time online with the notice's code (server/portal/actions.py).
    ((*ACTIVE, DECIDED), "appeal", "appealed", MAILROOM | SUPERVISORS | {CODE_HOLDER}),
    # The clerk records the Commission's (or Council's) decision with its meeting date.
    ("appealed", "decide", DECIDED, MAILROOM),
    (DECIDED, "mail_decision", DECIDED, MAILROOM),
)
EVENTS = tuple(dict.fromkeys(event for _, event in TRANSITIONS))


def senders(event: str) -> frozenset[str]:
    """The roles that may send ``event`` from some state: its route's access (the table
    still decides per state, 409 or 403). The daily tick and evidence are no route's callers."""
    return frozenset().union(*(t.roles for (_, e), t in TRANSITIONS.items() if e == event)) & SIGNED_IN


def allowed_events(state: str) -> list[str]:
    return [event for (source, event) in TRANSITIONS if source == state]


def check_transition(notice: Notice, event: str, actor, evidence=None) -> Transition:
    """The transition ``event`` makes from the notice's state, if ``actor`` may make it
    (or ``evidence``, the inspection that shows the notice complied with, may).

    Raises:
        LateralError: ``invalid_transition`` (naming the state and the events it
            allows) or ``forbidden``.
    """
    t = TRANSITIONS.get((notice.state, event))
    if is_closed(notice) and event != "mail_decision":
        t = None
    if t is None:
        allowed = allowed_events(notice.state)
        raise LateralError(
            "invalid_transition",
            f"notice {notice.id} is {notice.state}; {event!r} is not allowed from there"
            + (f" (allowed: {', '.join(allowed)})" if allowed else " (the notice is closed)"),
            {"state": notice.state, "event": event, "allowed_events": allowed},
        )
    role = EVIDENCE if evidence is not None else SYSTEM if actor is None else actor.role
    if role not in t.roles:
        people = " or ".join(sorted(t.roles - {SYSTEM, EVIDENCE}))
        raise LateralError("forbidden", f"{event} needs the role {people}"
                           + (" (or a passing reinspection)" if EVIDENCE in t.roles else ""),
                           {"your_role": role, "event": event})
    return t


def is_closed(notice: Notice) -> bool:
    """Complied, withdrawn, or decided on appeal with the notice overturned."""
    return notice.state in CLOSED_STATES or (notice.state == DECIDED and notice.decision == "overturned")


def finish(notice: Notice, t: Transition, before: dict, actor, extra: dict | None = None) -> Notice:
    """Move to the target state, release the violations of a closed notice, audit."""
    notice.state = t.target
    if is_closed(notice):
        for link in db.session.scalars(select(NoticeViolation).filter_by(notice_id=notice.id)):
            link.closed = True
    db.session.flush()
    audit.record(t.event, "notice", notice.id, before, {**summary(notice), **(extra or {})}, actor)
    announce(notice_changed, notice=notice, event=t.event)
    return notice


def apply_event(notice: Notice, event: str, actor, **data) -> Notice:
    """Make ``event`` happen to ``notice`` (see :data:`TRANSITIONS`).

    ``data`` holds the event's fields: ``on`` (the day it happened, default today),
    ``note``, ``decision``, ``reason``, ``late_reason`` and ``days`` (appeals),
    ``step`` (substitute service), ``source`` (a delivery per USPS tracking), and for
    ``comply`` through a passing inspection ``evidence`` (that inspection).
    """
    if event == "mail":
        raise LateralError("use_mailings", "mail notices through a mailing batch (POST /api/v1/mailings)")
    if event == "mail_decision":
        raise LateralError("use_decision_letter",
                           "mail the decision letter (POST /api/v1/notices/<id>/decision-letter)")
    t = check_transition(notice, event, actor, data.get("evidence"))
    before = summary(notice)
    EFFECTS.get(event, lambda *_: None)(notice, data, actor)
    extra = {"note": data["note"]} if data.get("note") else None
    return finish(notice, t, before, actor, extra)


# ------------------------------------------------------------------ effects


def _on_date(notice: Notice, data: dict, not_before: date | None = None, what: str = "the mailing") -> date:
    on = data.get("on") or today()
    if not_before and on < not_before:
        raise LateralError("invalid_date", f"{on.isoformat()} is before {what} on {not_before.isoformat()}")
    if on > today():
        raise LateralError("invalid_date", f"{on.isoformat()} is in the future")
    return on


def check_delegation() -> None:
    """A notice is issued in the Commission's name under its delegation: while the rulebook's
    delegation is missing or a placeholder, nothing is approved or mailed.

    Raises:
        LateralError: ``rulebook_choice_missing`` naming the setting.
    """
    why = delegation_placeholder(rulebook().municipality)
    if why:
        raise LateralError("rulebook_choice_missing",
                           f"{why}: the superintendent issues notices in the Utility Commission's name only under "
                           "its resolution; set the real resolution and its date in the rulebook before approving "
                           "or mailing", {"setting": "[municipality] commission_delegation"})


def _approve(notice, data, actor):
    check_delegation()
    notice.approved_by_id = getattr(actor, "id", None)
    notice.approved_at = utcnow()


def _release(notice, data, actor):
    parcel = db.session.get(Parcel, notice.parcel_id)
    snapshot_owner(notice, parcel)
    if notice.held_reason:
        raise LateralError("address_unusable", f"notice {notice.id} stays held: {notice.held_reason}",
                           {"held_reason": notice.held_reason})


def _withdraw(notice, data, actor):
    notice.withdrawn_reason = data.get("note") or data.get("reason")


def _receipt(event: str) -> Callable:
    def effect(notice, data, actor):
        on = _on_date(notice, data, notice.mailed_on)
        if event == "unclaimed":
            check_unclaimed_on(notice, on, rulebook())
        notice.delivery_event = event
        notice.delivery_event_on = on
        start_clock(notice, rulebook(), data.get("source"))
    return effect


def _substitute(notice, data, actor):
    rb = rulebook()
    record_step(notice, data.get("step"), _on_date(notice, data, notice.delivery_event_on, "the mail came back"),
                data.get("note"), actor, rb)
    start_clock(notice, rb)


def _overdue(notice, data, actor):
    notice.overdue_on = data.get("on") or today()
    request_reinspection(notice)


def _escalate(notice, data, actor):
    notice.escalated_on = data.get("on") or today()
    rb = rulebook()
    kind = notice_kind(notice.kind)
    per_day = rb.deadline(kind.deadline_rule).get("penalty_per_day")
    if per_day is not None:
        notice.penalty_per_day = Decimal(str(per_day)).quantize(Decimal("0.01"))
        accrue_penalty(notice, notice.escalated_on)
    if kind.follow_up:
        draft_follow_up(notice, kind.follow_up, actor)


BY_DECISION = "superintendent_decision"


def _comply(notice, data, actor):
    """Complied through evidence (a passing inspection, or the daily tick finding one), or
    by the superintendent's decision, whose reason (``note``) the audit row keeps."""
    if actor is not None and data.get("evidence") is None:
        if not (data.get("note") or "").strip():
            raise LateralError("reason_required",
                               "complying a notice by hand needs the reason in 'note' (it is audited)",
                               {"fields": {"note": ["the reason the notice is complied with"]}})
        data["reason"] = BY_DECISION
    notice.complied_on = _on_date(notice, data)
    notice.complied_reason = data.get("reason") or "reinspection_passed"


def _appeal(notice, data, actor):
    file_appeal(notice, data, actor)


def _decide(notice, data, actor):
    record_decision(notice, data, actor)


EFFECTS: dict[str, Callable] = {
    "approve": _approve, "release": _release, "withdraw": _withdraw,
    "deliver": _receipt("delivered"), "refuse": _receipt("refused"), "unclaimed": _receipt("unclaimed"),
    "overdue": _overdue, "escalate": _escalate, "comply": _comply, "appeal": _appeal, "decide": _decide,
    "substitute": _substitute,
}
