"""The notice workflow: the transition table, the clock and the daily tick.

States and events (docs/notices.md has the table)::

    draft/held -> approved -> mailed -> delivered | refused | unclaimed
              -> complied | overdue -> escalated;  appealed -> decided;  withdrawn

Every change goes through :func:`apply_event`, which looks the (state, event) pair up
in :data:`TRANSITIONS` (409 ``invalid_transition`` when absent, 403 when the caller's
role may not), runs the event's effect and writes the audit row. Drafting lives in
:mod:`server.services.notice_drafts`, mailing in :mod:`server.services.mailings`.

A notice not yet mailed is never complied; when a later inspection resolves all it
cites, :func:`citations` says so (the API and the desk show it) and
:func:`check_violations_open` refuses to mail it (409 ``violations_resolved``): the
superintendent withdraws it instead.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

from flask import current_app
from sqlalchemy import select

from gis.rulebook import Rulebook, load_rulebook
from server.errors import ApiError
from server.extensions import db
from server.models import Inspection, Notice, NoticeViolation, Parcel, Violation
from server.models.base import as_utc, utcnow
from server.models.notices import CLOSED_STATES, DECISIONS
from server.notices.calendar import fmt
from server.notices.texts import NOTICE_TEXTS
from server.services import audit
from server.services.election_calendar import deadline as deadline_for

SYSTEM = "system"  # the daily tick: no user
SUPERVISORS = frozenset({"superintendent", "admin"})
MAILROOM = frozenset({"clerk", "admin"})
FIELD = frozenset({"inspector", "superintendent", "admin", SYSTEM})
SERVED = ("delivered", "refused", "unclaimed")
#: States in which the owner's clock may be running.
ACTIVE = ("mailed", *SERVED, "overdue", "escalated")


@dataclass(frozen=True)
class Transition:
    source: str
    event: str
    target: str
    roles: frozenset[str]


def _table(*rows: tuple[Iterable[str] | str, str, str, frozenset[str]]) -> dict[tuple[str, str], Transition]:
    out = {}
    for sources, event, target, roles in rows:
        for source in [sources] if isinstance(sources, str) else sources:
            out[(source, event)] = Transition(source, event, target, roles)
    return out


TRANSITIONS: dict[tuple[str, str], Transition] = _table(
    ("draft", "approve", "approved", frozenset({"superintendent"})),
    (("draft", "held", "approved"), "withdraw", "withdrawn", SUPERVISORS),
    ("held", "release", "draft", SUPERVISORS | MAILROOM),
    ("approved", "mail", "mailed", MAILROOM),
    ("mailed", "deliver", "delivered", MAILROOM),
    ("mailed", "refuse", "refused", MAILROOM),
    ("mailed", "unclaimed", "unclaimed", MAILROOM),
    (("mailed", *SERVED), "overdue", "overdue", frozenset({SYSTEM})),
    ("overdue", "escalate", "escalated", SUPERVISORS | {SYSTEM}),
    (ACTIVE, "comply", "complied", FIELD),
    (ACTIVE, "appeal", "appealed", MAILROOM),
    ("appealed", "decide", "decided", MAILROOM),
)
EVENTS = tuple(dict.fromkeys(event for _, event in TRANSITIONS))


def rulebook() -> Rulebook:
    return load_rulebook(current_app.config.get("LATERAL_RULEBOOK"))


def today() -> date:
    """Today on the city's calendar (the rulebook's ``time_zone``), not the server's."""
    return city_day(utcnow())


def city_day(moment: datetime) -> date:
    """The city's calendar day of ``moment``: the day an inspection was made or a
    violation closed, as the ordinance counts days. A naive value is UTC (SQLite hands
    those back)."""
    return as_utc(moment).astimezone(rulebook().time_zone).date()


def allowed_events(state: str) -> list[str]:
    return [event for (source, event) in TRANSITIONS if source == state]


def check_transition(notice: Notice, event: str, actor) -> Transition:
    """The transition ``event`` makes from the notice's state, if ``actor`` may make it.

    Raises:
        ApiError: 409 ``invalid_transition`` (naming the state and the events it
            allows) or 403 ``forbidden``.
    """
    t = TRANSITIONS.get((notice.state, event))
    if t is None:
        allowed = allowed_events(notice.state)
        raise ApiError(
            409, "invalid_transition",
            f"notice {notice.id} is {notice.state}; {event!r} is not allowed from there"
            + (f" (allowed: {', '.join(allowed)})" if allowed else " (the notice is closed)"),
            {"state": notice.state, "event": event, "allowed_events": allowed},
        )
    role = SYSTEM if actor is None else actor.role
    if role not in t.roles:
        raise ApiError(403, "forbidden", f"{event} needs the role {' or '.join(sorted(t.roles - {SYSTEM}))}",
                       {"your_role": role, "event": event})
    return t


def summary(notice: Notice) -> dict:
    """What the audit trail keeps of a notice (plain JSON values)."""
    keys = ("state", "kind", "parcel_id", "article_number", "mailed_on", "delivery_event",
            "delivery_event_on", "served_on", "deadline", "letter_sha256", "penalty_accrued",
            "held_reason", "decision")
    out = {}
    for key in keys:
        value = getattr(notice, key)
        out[key] = value.isoformat() if isinstance(value, date) else (
            str(value) if isinstance(value, Decimal) else value)
    return out


def finish(notice: Notice, t: Transition, before: dict, actor, extra: dict | None = None) -> Notice:
    """Move to the target state, release the violations of a closed notice, audit."""
    notice.state = t.target
    if t.target in CLOSED_STATES:
        for link in db.session.scalars(select(NoticeViolation).filter_by(notice_id=notice.id)):
            link.closed = True
    db.session.flush()
    audit.record(t.event, "notice", notice.id, before, {**summary(notice), **(extra or {})}, actor)
    return notice


def apply_event(notice: Notice, event: str, actor, **data) -> Notice:
    """Make ``event`` happen to ``notice`` (see :data:`TRANSITIONS`).

    ``data`` holds the event's fields: ``on`` (the day it happened, default today),
    ``note``, ``decision``, ``reason``.
    """
    if event == "mail":
        raise ApiError(409, "use_mailings", "mail notices through a mailing batch (POST /api/v1/mailings)")
    t = check_transition(notice, event, actor)
    before = summary(notice)
    EFFECTS.get(event, lambda *_: None)(notice, data, actor)
    return finish(notice, t, before, actor)


# ------------------------------------------------------------------ effects


def _on_date(notice: Notice, data: dict, not_before: date | None = None, what: str = "the mailing") -> date:
    on = data.get("on") or today()
    if not_before and on < not_before:
        raise ApiError(422, "invalid_date", f"{on.isoformat()} is before {what} on {not_before.isoformat()}")
    if on > today():
        raise ApiError(422, "invalid_date", f"{on.isoformat()} is in the future")
    return on


def _approve(notice, data, actor):
    notice.approved_by_id = getattr(actor, "id", None)
    notice.approved_at = utcnow()


def _release(notice, data, actor):
    from server.services.notice_drafts import snapshot_owner

    parcel = db.session.get(Parcel, notice.parcel_id)
    snapshot_owner(notice, parcel)
    if notice.held_reason:
        raise ApiError(422, "address_unusable", f"notice {notice.id} stays held: {notice.held_reason}",
                       {"held_reason": notice.held_reason})


def _withdraw(notice, data, actor):
    notice.withdrawn_reason = data.get("note") or data.get("reason")


def _receipt(event: str) -> Callable:
    def effect(notice, data, actor):
        notice.delivery_event = event
        notice.delivery_event_on = _on_date(notice, data, notice.mailed_on)
        start_clock(notice, rulebook())
    return effect


def _overdue(notice, data, actor):
    notice.overdue_on = data.get("on") or today()
    from server.services.reinspections import request_reinspection

    request_reinspection(notice)


def _escalate(notice, data, actor):
    notice.escalated_on = data.get("on") or today()
    rb = rulebook()
    per_day = rb.deadline(NOTICE_TEXTS[notice.kind].deadline_rule).get("penalty_per_day")
    if per_day is not None:
        notice.penalty_per_day = Decimal(str(per_day)).quantize(Decimal("0.01"))
        accrue_penalty(notice, notice.escalated_on)
    from server.services.notice_drafts import FOLLOW_UPS, draft_follow_up

    if notice.kind in FOLLOW_UPS:
        draft_follow_up(notice, FOLLOW_UPS[notice.kind], actor)


def _comply(notice, data, actor):
    notice.complied_on = _on_date(notice, data)
    notice.complied_reason = data.get("reason") or "reinspection_passed"


def _appeal(notice, data, actor):
    notice.appealed_on = _on_date(notice, data, notice.mailed_on)
    notice.appeal_note = data.get("note")


def _decide(notice, data, actor):
    if data.get("decision") not in DECISIONS:
        raise ApiError(422, "invalid_fields", f"decision must be one of {', '.join(DECISIONS)}",
                       {"fields": {"decision": [f"one of {', '.join(DECISIONS)}"]}})
    notice.decision = data["decision"]
    notice.decided_on = _on_date(notice, data, notice.appealed_on, "the appeal")
    notice.decision_note = data.get("note")


EFFECTS: dict[str, Callable] = {
    "approve": _approve, "release": _release, "withdraw": _withdraw,
    "deliver": _receipt("delivered"), "refuse": _receipt("refused"), "unclaimed": _receipt("unclaimed"),
    "overdue": _overdue, "escalate": _escalate, "comply": _comply, "appeal": _appeal, "decide": _decide,
}


# ------------------------------------------------------------------ the clock


def deadline_rule(kind: str) -> str:
    return NOTICE_TEXTS[kind].deadline_rule


def assumed_service_day(mailed_on: date, rb: Rulebook) -> date:
    """The day the letter's printed deadline counts from.

    With ``clock_starts = "mailing"`` it is the mailing day. With ``"delivery"`` the
    day of delivery is unknown when the letter is printed, so the letter counts from
    mailing + ``undelivered_fallback_days`` (the day refused or unclaimed mail is
    served); a later delivery only moves the deadline later (:func:`start_clock`).
    """
    cal = rb.section("calendar")
    if cal.get("clock_starts", "delivery") == "mailing":
        return mailed_on
    return mailed_on + timedelta(days=int(cal.get("undelivered_fallback_days", 0)))


def printed_deadline(notice: Notice, mailed_on: date, rb: Rulebook):
    """The deadline the letter prints, as a :class:`~server.notices.calendar.Deadline`."""
    return deadline_for(deadline_rule(notice.kind), assumed_service_day(mailed_on, rb), rb)


def start_clock(notice: Notice, rb: Rulebook) -> None:
    """Set ``served_on``, ``deadline`` and its steps from the event that starts the clock.

    ``[calendar] clock_starts``: ``mailing`` counts from the mailing day; ``delivery``
    from the delivery date on the return receipt, or, for refused or unclaimed mail,
    from mailing + ``undelivered_fallback_days``. The deadline in force is never
    earlier than the one printed on the letter.
    """
    cal = rb.section("calendar")
    notice.clock_starts = cal.get("clock_starts", "delivery")
    if notice.clock_starts == "mailing":
        served, why = notice.mailed_on, f"clock starts on mailing, {fmt(notice.mailed_on)}"
    elif notice.delivery_event == "delivered":
        served, why = notice.delivery_event_on, f"clock starts on delivery, {fmt(notice.delivery_event_on)}"
    elif notice.delivery_event in ("refused", "unclaimed"):
        days = int(cal.get("undelivered_fallback_days", 0))
        served = notice.mailed_on + timedelta(days=days)
        why = (f"mail {notice.delivery_event}: clock starts {days} days after mailing on "
               f"{fmt(notice.mailed_on)}, {fmt(served)}")
    else:
        return  # delivery clock, no return receipt yet
    d = deadline_for(deadline_rule(notice.kind), served, rb)
    steps = [why, *d.steps]
    if notice.deadline_printed and notice.deadline_printed > d.date:
        steps.append(f"the letter printed {fmt(notice.deadline_printed)}, which is later, so it applies")
    notice.served_on = served
    notice.deadline = max(d.date, notice.deadline_printed or d.date)
    notice.deadline_steps = steps


def accrue_penalty(notice: Notice, through: date) -> None:
    """Per-day penalty from the day after the deadline through ``through`` (§ 315-11D)."""
    if notice.penalty_per_day is None or notice.deadline is None:
        return
    days = max((through - notice.deadline).days, 0)
    notice.penalty_accrued = (notice.penalty_per_day * days).quantize(Decimal("0.01"))
    notice.penalty_through = through


# ------------------------------------------------------------------ the daily job


def violations_cleared(notice: Notice) -> bool:
    """Whether the notice cites violations and none of them is still open."""
    statuses = db.session.scalars(
        select(Violation.status).join(NoticeViolation, NoticeViolation.violation_id == Violation.id)
        .where(NoticeViolation.notice_id == notice.id)).all()
    return bool(statuses) and all(s != "open" for s in statuses)


def tick(on: date | None = None) -> dict[str, list[int]]:
    """The daily job: comply, mark overdue (and ask for a reinspection), escalate, accrue.

    * a notice whose violations are all resolved or waived, or whose parcel passed a
      reinspection naming one of its rules since mailing, is complied (a passing
      inspection usually complied it already, :mod:`server.services.compliance`);
    * a served notice past its deadline is overdue and gets a reinspection assignment;
    * an overdue notice of a kind with a per-day penalty in the rulebook is escalated;
    * escalated notices with a per-day penalty accrue it through ``on``.
    """
    from server.services.reinspections import passing_inspection

    on = on or today()
    report: dict[str, list[int]] = {"complied": [], "overdue": [], "escalated": [], "accrued": []}
    for notice in db.session.scalars(select(Notice).where(Notice.state.in_(ACTIVE)).order_by(Notice.id)).all():
        inspection = passing_inspection(notice)
        if violations_cleared(notice) or inspection is not None:
            reason = "violations_resolved" if inspection is None else f"inspection {inspection.id} passed"
            apply_event(notice, "comply", None, on=min(on, today()), reason=reason)
            report["complied"].append(notice.id)
        elif notice.state in ("mailed", *SERVED) and notice.deadline and notice.deadline < on:
            apply_event(notice, "overdue", None, on=on)
            report["overdue"].append(notice.id)
        if notice.state == "overdue" and _has_daily_penalty(notice):
            apply_event(notice, "escalate", None, on=on)
            report["escalated"].append(notice.id)
        if notice.state == "escalated" and notice.penalty_per_day is not None and notice.penalty_through != on:
            before = summary(notice)
            accrue_penalty(notice, on)
            db.session.flush()
            audit.record("accrue_penalty", "notice", notice.id, before, summary(notice), None)
            report["accrued"].append(notice.id)
    return report


def _has_daily_penalty(notice: Notice) -> bool:
    return "penalty_per_day" in rulebook().deadline(deadline_rule(notice.kind))


def get_notice(notice_id: int) -> Notice:
    notice = db.session.get(Notice, notice_id)
    if notice is None:
        raise ApiError(404, "not_found", f"no notice with id {notice_id}")
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


# ------------------------------------------------------------------ what became of the cited violations


@dataclass(frozen=True)
class Citations:
    """What became of the violations one notice cites.

    Attributes:
        violation_ids: The cited violations, in id order.
        open: How many of them are still open.
        waived: How many of them were waived rather than resolved (open ones aside).
        resolved_on: Once none is open, the day the last of them was closed: the day of
            the inspection that resolved it, else the day it was resolved or waived.
        resolved_by_inspection_id: The inspection that resolved that last one, if any.
        last_status: ``resolved`` or ``waived``: what happened to that last one.
    """

    violation_ids: tuple[int, ...] = ()
    open: int = 0
    waived: int = 0
    resolved_on: date | None = None
    resolved_by_inspection_id: int | None = None
    last_status: str | None = None

    @property
    def all_resolved(self) -> bool:
        """The notice cites violations and none of them is open any more."""
        return bool(self.violation_ids) and self.open == 0

    @property
    def partly_resolved(self) -> bool:
        """Some of the cited violations were closed since, and some are still open."""
        return 0 < self.open < len(self.violation_ids)

    def partly_sentence(self) -> str:
        """:attr:`partly_resolved` in plain words, e.g. "1 of the 2 violations this notice
        cites was resolved since it was drafted; its letter still lists it"."""
        count, closed = len(self.violation_ids), len(self.violation_ids) - self.open
        was, them = ("was", "it") if closed == 1 else ("were", "them")
        return (f"{closed} of the {count} violations this notice cites {was} {self._closed_verb(closed)} "
                f"since it was drafted; its letter still lists {them}")

    def note(self) -> str | None:
        """What the desk says of the notice (and records if it is withdrawn): :meth:`sentence`
        when all its violations were closed, :meth:`partly_sentence` when some were, else None."""
        if self.all_resolved:
            return self.sentence()
        return self.partly_sentence() if self.partly_resolved else None

    def _closed_verb(self, closed: int) -> str:
        """How ``closed`` violations were closed: resolved, waived, or some of each."""
        return "resolved" if not self.waived else "waived" if self.waived == closed else "resolved or waived"

    def sentence(self) -> str:
        """:attr:`all_resolved` in plain words, for the desk and the refusal to mail.

        E.g. "All 2 violations this notice cites were resolved, the last on Sat
        2026-11-28 by inspection #17".
        """
        count = len(self.violation_ids)
        verb = self._closed_verb(count)
        when = f" on {fmt(self.resolved_on)}" if self.resolved_on else ""
        by = f" by inspection #{self.resolved_by_inspection_id}" if self.resolved_by_inspection_id else ""
        if count == 1:
            return f"The violation this notice cites was {verb}{when}{by}"
        last = "the last" if self.last_status == verb else f"the last {self.last_status}"
        return f"All {count} violations this notice cites were {verb}, {last}{when}{by}"


def citations(notices: Iterable[Notice]) -> dict[int, Citations]:
    """What became of each notice's violations, read in one query for all the notices.

    A page of notices costs one query here, not one per notice.
    """
    ids = sorted({n.id for n in notices})
    if not ids:
        return {}
    rows = db.session.execute(
        select(NoticeViolation.notice_id, Violation.id.label("violation_id"), Violation.status,
               Violation.resolved_at, Violation.waived_at, Inspection.id.label("inspection_id"),
               Inspection.finished_at.label("inspected_at"))
        .join(Violation, Violation.id == NoticeViolation.violation_id)
        .outerjoin(Inspection, Inspection.id == Violation.resolved_by_inspection_id)
        .where(NoticeViolation.notice_id.in_(ids))
        .order_by(NoticeViolation.notice_id, Violation.id)).all()
    by_notice: dict[int, list] = defaultdict(list)
    for row in rows:
        by_notice[row.notice_id].append(row)
    return {notice_id: _citations(by_notice[notice_id]) for notice_id in ids}


_NEVER = datetime.min.replace(tzinfo=UTC)


def _citations(rows: list) -> Citations:
    cited = tuple(row.violation_id for row in rows)
    still_open = sum(row.status == "open" for row in rows)
    waived = sum(row.status == "waived" for row in rows)
    if not rows or still_open:
        return Citations(cited, still_open, waived)
    last = max(rows, key=lambda row: (_closed_at(row), row.violation_id))
    by_inspection = last.inspection_id if last.status == "resolved" else None
    closed_at = _closed_at(last)
    return Citations(cited, 0, waived,
                     None if closed_at == _NEVER else city_day(closed_at), by_inspection, last.status)


def _closed_at(row) -> datetime:
    """When a closed violation was closed: the resolving inspection's finish (UTC), else
    when it was resolved or waived."""
    if row.status == "waived":
        value = row.waived_at
    else:
        value = row.inspected_at if row.inspection_id is not None else row.resolved_at
    if value is None:
        return _NEVER
    return as_utc(value)


def check_violations_open(notices: Iterable[Notice]) -> None:
    """Refuse to mail notices whose violations have all been resolved since drafting.

    The letter would order the owner to correct what a later inspection found corrected
    (§ 315-21B: a notice states the violation). Such a notice is withdrawn instead
    (``withdraw``, superintendent or admin), which this does not stand in the way of.

    Raises:
        ApiError: 409 ``violations_resolved`` naming the notices and what closed them.
    """
    found = citations(notices)
    cleared = {notice_id: c for notice_id, c in found.items() if c.all_resolved}
    if not cleared:
        return
    first_id, first = next(iter(cleared.items()))
    others, them = (f" (and {len(cleared) - 1} more)", "them") if len(cleared) > 1 else ("", "it")
    raise ApiError(
        409, "violations_resolved",
        f"notice {first_id}{others} cannot be mailed. {first.sentence()}; "
        f"the superintendent may withdraw {them} instead",
        {"notice_ids": list(cleared), "notices": [
            {"notice_id": notice_id, "violation_ids": list(c.violation_ids),
             "resolved_on": c.resolved_on.isoformat() if c.resolved_on else None,
             "resolved_by_inspection_id": c.resolved_by_inspection_id}
            for notice_id, c in cleared.items()]},
    )

