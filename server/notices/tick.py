"""The daily job: comply, mark overdue (and ask for a reinspection), escalate, accrue."""

from __future__ import annotations

from datetime import date

from sqlalchemy import select

from server.core.audit import trail as audit
from server.core.errors import LateralError
from server.core.extensions import db
from server.notices.appeals import decision_overdue, pending_appeal
from server.notices.clock import accrue_penalty, deadline_rule, rulebook, today
from server.notices.models import Notice, NoticeViolation
from server.notices.record import summary
from server.notices.reinspections import passing_inspection
from server.notices.service_of_notice import awaiting_receipt
from server.notices.workflow import ACTIVE, DECIDED, SERVED, apply_event, is_closed
from server.rules.models import Violation


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
      inspection usually complied it already, :mod:`server.notices.compliance`);
    * a served notice past its deadline is overdue and gets a reinspection assignment;
    * an overdue notice of a kind with a per-day penalty in the rulebook is escalated;
    * escalated notices with a per-day penalty accrue it through ``on``;
    * reported, not changed: appeals the Commission has not decided within its 30 days
      (``decision_overdue``) and mail whose return receipt is late (``awaiting_receipt``),
      which the clerk must look into.

    ``on`` may be any day for a simulation; the CLI, the one way people run it, refuses
    a day after today (:func:`check_not_future`).
    """
    on = on or today()
    rb = rulebook()
    report: dict[str, list[int]] = {"complied": [], "overdue": [], "escalated": [], "accrued": [],
                                    "decision_overdue": [], "awaiting_receipt": []}
    for notice in db.session.scalars(select(Notice).where(Notice.state == "appealed").order_by(Notice.id)).all():
        appeal = pending_appeal(notice)
        if appeal is not None and decision_overdue(appeal, on):
            report["decision_overdue"].append(notice.id)
    states = (*ACTIVE, DECIDED)
    for notice in db.session.scalars(select(Notice).where(Notice.state.in_(states)).order_by(Notice.id)).all():
        if is_closed(notice):
            continue
        if awaiting_receipt(notice, on, rb):
            report["awaiting_receipt"].append(notice.id)
        inspection = passing_inspection(notice)
        if violations_cleared(notice) or inspection is not None:
            reason = "violations_resolved" if inspection is None else f"inspection {inspection.id} passed"
            apply_event(notice, "comply", None, on=min(on, today()), reason=reason)
            report["complied"].append(notice.id)
        elif notice.state in ("mailed", *SERVED, DECIDED) and notice.deadline and notice.deadline < on:
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


def check_not_future(on: date | None) -> None:
    """Refuse to run the tick as of a day after today: it would mark notices overdue early.

    Raises:
        LateralError: ``invalid_date``.
    """
    if on is not None and on > today():
        raise LateralError("invalid_date", f"{on.isoformat()} is in the future; the tick runs as of today "
                                           f"({today().isoformat()}) or an earlier day")


def _has_daily_penalty(notice: Notice) -> bool:
    return "penalty_per_day" in rulebook().deadline(deadline_rule(notice.kind))
