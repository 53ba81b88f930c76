"""Recording a printed batch as mailed, and voiding a recording made by mistake.

Printing (:func:`server.notices.mailing.print_notices`) changes no notice. The clerk then
takes the letters and the PS 3877 book to the post office and records the trip for that
batch: the day it was mailed and the count of letters in hand. Only then are the notices
``mailed``, their deadlines printed and their clocks started, and their letters and
article numbers become write-once. A recording made by mistake is voided on the day it
was made (the city's day), before the post office has signed the book: the notices go
back to approved with their printed letters, their deadlines are cleared, and the reason
is in the audit trail.
"""

from __future__ import annotations

from datetime import date

from server.core.audit import trail as audit
from server.core.errors import LateralError
from server.core.extensions import db
from server.core.models import utcnow
from server.notices.citations import check_violations_open
from server.notices.clock import city_day, printed_deadline, rulebook, start_clock, today
from server.notices.mailing import batch_notices, check_not_before_approval, print_letters, print_notices, sha256
from server.notices.models import MailingBatch, Notice
from server.notices.record import get_notice, summary
from server.notices.workflow import TRANSITIONS, check_delegation, check_transition, finish


def printed_notices(batch: MailingBatch) -> list[Notice]:
    """The notices the batch printed, each still in it.

    Raises:
        LateralError: ``mailing_superseded`` when a later print took some of them.
    """
    if batch.notice_ids is None:  # printed and mailed in one step, before printing was its own step
        return batch_notices(batch)
    notices = [get_notice(i) for i in batch.notice_ids]
    moved = {n.id: n.batch_id for n in notices if n.batch_id != batch.id}
    if moved:
        raise LateralError("mailing_superseded",
                           f"mailing {batch.id}'s letters were printed again in a later batch "
                           f"(notice {min(moved)} is in mailing {moved[min(moved)]}); record that one",
                           {"moved_to": {str(k): v for k, v in moved.items()}})
    return notices


def record_mailing(batch: MailingBatch, actor, mailed_on: date | None, count: int | None) -> MailingBatch:
    """Record the printed ``batch`` as mailed on ``mailed_on`` (default today).

    ``count`` is the clerk's count of the letters in hand; it must equal the batch's. A
    mailing date later than the day the letters carry (an entry made late, or letters
    taken to the post office the day after printing) prints the letters and the book
    again with the true mailing date before the clocks start from it.

    Raises:
        LateralError: ``mailing_recorded`` (already recorded), ``count_mismatch``,
            ``invalid_date`` (in the future, before the day the letters and book were
            printed, or before a notice's approval), ``mailing_superseded``,
            ``invalid_transition``, ``forbidden``, ``violations_resolved``.
    """
    if batch.mailed_on is not None:
        raise LateralError("mailing_recorded", f"mailing {batch.id} was recorded as mailed on "
                           f"{batch.mailed_on.isoformat()}", {"mailed_on": batch.mailed_on.isoformat()})
    mailed_on = mailed_on or today()
    if mailed_on > today():
        raise LateralError("invalid_date", f"mailing date {mailed_on.isoformat()} is in the future",
                           {"fields": {"mailed_on": [f"not after {today().isoformat()}"]}})
    if mailed_on < batch.printed_on:
        raise LateralError("invalid_date",
                           f"mailing date {mailed_on.isoformat()} is before the letters and the mailing book were "
                           f"printed ({batch.printed_on.isoformat()}): record the day they were really mailed",
                           {"fields": {"mailed_on": [f"not before {batch.printed_on.isoformat()}"]}})
    notices = printed_notices(batch)
    if count != len(notices):
        raise LateralError("count_mismatch",
                           f"mailing {batch.id} has {len(notices)} letters; count the letters you are taking to the "
                           f"post office and enter that number" + (f" (you entered {count})" if count is not None
                                                                      else ""),
                           {"pieces": len(notices), "count": count})
    steps = [(n, check_transition(n, "mail", actor), summary(n)) for n in notices]
    check_delegation()
    check_not_before_approval(notices, mailed_on)
    check_violations_open(notices)
    rb = rulebook()
    if mailed_on != batch.dated_on:
        letters_pdf, book_pdf = print_letters(notices, mailed_on, rb)
        batch.letters_pdf, batch.letters_sha256 = letters_pdf, sha256(letters_pdf)
        batch.mailing_book_pdf, batch.mailing_book_sha256 = book_pdf, sha256(book_pdf)
        batch.dated_on = mailed_on
    for notice, transition, before in steps:
        notice.deadline_printed = printed_deadline(notice, mailed_on, rb).date
        notice.mailed_on = mailed_on
        start_clock(notice, rb)
        finish(notice, transition, before, actor, {"batch_id": batch.id})
    batch.mailed_on, batch.recorded_at, batch.mailed_by_id = mailed_on, utcnow(), getattr(actor, "id", None)
    db.session.flush()
    audit.record("mail", "mailing_batch", batch.id, None, {
        "mailed_on": mailed_on.isoformat(), "printed_on": batch.printed_on.isoformat(), "pieces": batch.pieces,
        "counted": count, "notice_ids": [n.id for n in notices],
        "article_numbers": [n.article_number for n in notices],
        "letters_sha256": batch.letters_sha256, "mailing_book_sha256": batch.mailing_book_sha256,
    }, actor)
    return batch


def void_mailing(batch: MailingBatch, actor, reason: str | None) -> MailingBatch:
    """Undo a recording of ``batch`` made by mistake, on the city's day it was made.

    The notices go back to approved with the letters printed for them, their deadlines
    are cleared, and the batch can be recorded again (or its notices printed again).

    Raises:
        LateralError: ``reason_required``, ``forbidden``, ``not_mailed`` (not recorded),
            ``void_too_late`` (recorded on an earlier day: the post office has signed the
            book), ``invalid_transition`` (a notice has moved on since, e.g. a receipt).
    """
    reason = (reason or "").strip()
    if not reason:
        raise LateralError("reason_required", "say why the mailing is voided",
                           {"fields": {"reason": ["required"]}})
    check_void_role(actor)
    if batch.mailed_on is None or batch.recorded_at is None:
        raise LateralError("not_mailed", f"mailing {batch.id} has not been recorded as mailed")
    recorded = city_day(batch.recorded_at)
    if recorded != today():
        raise LateralError("void_too_late",
                           f"mailing {batch.id} was recorded on {recorded.isoformat()}; a mailing can be voided only "
                           "on the day it was recorded, before the post office signs the mailing book",
                           {"recorded_on": recorded.isoformat()})
    notices = batch_notices(batch)
    moved = [n.id for n in notices if n.state != "mailed"]
    if moved:
        raise LateralError("invalid_transition",
                           f"notice {moved[0]} of mailing {batch.id} is no longer just mailed; the mailing stands",
                           {"notice_ids": moved})
    before = {"mailed_on": batch.mailed_on.isoformat(), "recorded_at": batch.recorded_at.isoformat(),
              "mailed_by_id": batch.mailed_by_id}
    for notice in notices:
        was = summary(notice)
        notice.state, notice.mailed_on = "approved", None
        notice.clock_starts = notice.served_on = notice.deadline_printed = notice.deadline = None
        notice.deadline_steps = None
        audit.record("void_mailing", "notice", notice.id, was, {**summary(notice), "batch_id": batch.id,
                                                                "reason": reason}, actor)
    batch.mailed_on = batch.recorded_at = batch.mailed_by_id = None
    batch.voided_at, batch.voided_by_id, batch.void_reason = utcnow(), getattr(actor, "id", None), reason
    db.session.flush()
    audit.record("void_mailing", "mailing_batch", batch.id, before,
                 {"reason": reason, "notice_ids": [n.id for n in notices]}, actor)
    return batch


def check_void_role(actor) -> None:
    """Those who may record a mailing may void it.

    Raises:
        LateralError: ``forbidden``.
    """
    roles = TRANSITIONS[("approved", "mail")].roles
    if getattr(actor, "role", None) not in roles:
        raise LateralError("forbidden", f"voiding a mailing needs the role {' or '.join(sorted(roles))}",
                           {"your_role": getattr(actor, "role", None)})


def mail_notices(notice_ids: list[int], actor, mailed_on: date | None = None,
                 stickers: dict[int, str] | None = None) -> MailingBatch:
    """Print and record in one step, for the demo city's history (which mails in the past)
    and the benches: the letters are printed on ``mailed_on`` and recorded as mailed that
    day, with the count of what was printed. The desk, the API and the CLI print and
    record in two steps."""
    batch = print_notices(notice_ids, actor, stickers, printed_on=mailed_on)
    return record_mailing(batch, actor, mailed_on, batch.pieces)
