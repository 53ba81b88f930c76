"""The daily job: comply, mark overdue (and ask for a reinspection), escalate, accrue."""

from __future__ import annotations

from datetime import date

from sqlalchemy import select

from server.extensions import db
from server.models import Notice, NoticeViolation, Violation
from server.services import audit
from server.services.notices.clock import accrue_penalty, deadline_rule, rulebook, today
from server.services.notices.record import summary
from server.services.notices.workflow import ACTIVE, SERVED, apply_event
from server.services.reinspections import passing_inspection


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
