"""The decision letter on an appeal, mailed like a notice (certified, an article number).

Mailing it is the ``mail_decision`` event of a ``decided`` notice. For an upheld or
modified notice it also sets the owner's new deadline, counted from the letter's
service the way a notice's printed deadline is (``assumed_service_day``), and states the
appeal to the Common Council still open.
"""

from __future__ import annotations

import hashlib
from datetime import date, timedelta

from server.core.access.roles import MAILROOM
from server.core.audit import trail as audit
from server.core.errors import LateralError
from server.core.extensions import db
from server.notices.appeals import appeals_of, deadline_after_decision, upheld_period_sentence
from server.notices.calendar import fmt
from server.notices.clock import assumed_service_day, rulebook, today
from server.notices.election_calendar import deadline
from server.notices.letters.decision import DecisionLetter, render_decision_letter
from server.notices.letters.documents import MailPiece, Municipality, money
from server.notices.letters.mailing_book import render_mailing_book
from server.notices.mailing import addressee, reserve_article_numbers
from server.notices.models import DELIVERY_EVENTS, Notice, NoticeAppeal
from server.notices.record import summary
from server.notices.service_of_notice import usps_hold_days
from server.notices.workflow import check_transition, finish


def _unmailed_decision(notice: Notice) -> NoticeAppeal:
    decided = [a for a in appeals_of(notice) if a.decision is not None]
    if not decided or decided[-1].letter_mailed_on is not None:
        raise LateralError("no_decision_to_mail", f"notice {notice.id} has no decision awaiting its letter")
    return decided[-1]


def mail_decision(notice: Notice, actor, mailed_on: date | None = None, signed_by: str | None = None) -> Notice:
    """Mail the decision letter of the notice's last decided appeal (clerk, admin).

    The letter is the deciding body's: its letterhead, signed by the named officer
    ``signed_by`` ("name, title") on a signature line; the superintendent's delegation is
    not printed (the body decides, not the superintendent).

    Raises:
        LateralError: ``invalid_fields`` without ``signed_by``; ``no_decision_to_mail``;
            ``invalid_date``.
    """
    t = check_transition(notice, "mail_decision", actor)
    appeal = _unmailed_decision(notice)
    signer = (signed_by or "").strip()
    if not signer:
        raise LateralError("invalid_fields", "a decision letter is signed by a named officer of the body that "
                           "decided: give signed_by (name and title)", {"fields": {"signed_by": ["required"]}})
    decided_on, decision, notice_mailed_on = appeal.decided_on, appeal.decision, notice.mailed_on
    if decided_on is None or decision is None or notice_mailed_on is None:
        raise LateralError("no_decision_to_mail", f"notice {notice.id} has no decision awaiting its letter")
    mailed_on = mailed_on or today()
    if mailed_on < decided_on or mailed_on > today():
        raise LateralError("invalid_date", f"{mailed_on.isoformat()} is before the decision "
                           f"({decided_on.isoformat()}) or in the future")
    rb = rulebook()
    before = summary(notice)
    article = reserve_article_numbers(1, rb)[0]
    new_deadline: date | None = None
    steps: tuple[str, ...] = ()
    if appeal.heard is False:
        new_deadline = notice.deadline
        steps = ("the late appeal was not heard, so the last day to comply the notice gave stands",)
    elif appeal.decision != "overturned":
        served = assumed_service_day(mailed_on, rb)
        d = deadline_after_decision(notice, appeal, served)
        why = (f"appeal {decision} by the {appeal.level} at its meeting of {fmt(decided_on)}; "
               f"counted from the decision letter mailed {fmt(mailed_on)}, served {fmt(served)}")
        new_deadline, steps = d.date, (why, *d.steps)
        notice.served_on, notice.deadline, notice.deadline_steps = served, d.date, list(steps)
    period = ""
    if appeal.decision == "upheld" and appeal.heard is not False:
        period = upheld_period_sentence(rb, Municipality.from_rulebook(rb).commission, appeal.comply_days)
    further = ""
    if appeal.level == "commission" and appeal.decision != "overturned":
        due = deadline("COUNCIL-APPEAL-10", mailed_on, rb).date
        further = (f"You may appeal this decision in writing to the Common Council within 10 days after this "
                   f"notification, on or before {fmt(due)} (§ 315-21H), setting forth the facts.")
    letter = DecisionLetter(
        municipality=Municipality.from_rulebook(rb), addressee=addressee(notice),
        parcel_number=notice.parcel_number, site_address=notice.site_address or notice.parcel_number,
        notice_id=notice.id, notice_mailed_on=notice_mailed_on, level=appeal.level, decision=decision,
        meeting_on=decided_on, appeal_filed_on=appeal.filed_on, terms=appeal.decision_terms or "",
        mailed_on=mailed_on, article_number=article, deadline=new_deadline, deadline_steps=steps,
        further_appeal=further, signed_by=signer, upheld_period=period,
        notice_article_number=notice.article_number or "",
        late_due_on=appeal.due_on if appeal.late else None, heard=appeal.heard)
    pdf = render_decision_letter(letter)
    appeal.letter_mailed_on, appeal.letter_article_number = mailed_on, article
    appeal.letter_pdf, appeal.letter_sha256 = pdf, hashlib.sha256(pdf).hexdigest()
    appeal.letter_signed_by = signer
    db.session.flush()
    return finish(notice, t, before, actor, {"decision_letter": {
        "appeal_id": appeal.id, "article_number": article, "sha256": appeal.letter_sha256,
        "mailed_on": mailed_on.isoformat()}})


def get_appeal(notice: Notice, appeal_id: int) -> NoticeAppeal:
    appeal = db.session.get(NoticeAppeal, appeal_id)
    if appeal is None or appeal.notice_id != notice.id:
        raise LateralError("not_found", f"notice {notice.id} has no appeal {appeal_id}")
    return appeal


def decision_mailing_book(notice: Notice, appeal: NoticeAppeal) -> bytes:
    """The firm mailing book (PS Form 3877) of a decision letter: its one certified line,
    with the letter's article number and the rulebook's fees, for the post office to sign.
    The Council appeal's and the new compliance clock run from this mailing.

    Raises:
        LateralError: ``not_mailed`` when the decision letter has not been mailed.
    """
    if appeal.letter_mailed_on is None or appeal.letter_article_number is None:
        raise LateralError("not_mailed", f"the decision on appeal {appeal.id} has not been mailed")
    rb = rulebook()
    mail = rb.section("mail")
    piece = MailPiece(appeal.letter_article_number, addressee(notice), money(mail["postage"]),
                      money(mail["certified_fee"]), money(mail["return_receipt_fee"]))
    return render_mailing_book([piece], Municipality.from_rulebook(rb), appeal.letter_mailed_on)


def record_letter_receipt(notice: Notice, appeal: NoticeAppeal, event: str, on: date | None, actor) -> NoticeAppeal:
    """Record the decision letter's return receipt: ``delivered``, ``refused`` or
    ``unclaimed`` on ``on`` (default today), once, as a notice's is recorded.

    The day the letter served the decision follows the rulebook's ``[calendar]
    clock_starts`` as a notice's does: the mailing day, or the day of delivery; refused or
    unclaimed, the day the letter printed its deadline from (mailing +
    ``undelivered_fallback_days``). The Council appeal's 10 days count from it
    (:func:`server.notices.appeals.file_appeal`), and an upheld or modified notice's
    deadline is counted again from it, never earlier than the letter printed.

    Raises:
        LateralError: ``forbidden``; ``not_mailed``; ``invalid_fields`` (an unknown event, or
            one already recorded); ``invalid_date`` (before the mailing, in the future, or
            unclaimed before USPS has held it its days).
    """
    if getattr(actor, "role", None) not in MAILROOM:
        raise LateralError("forbidden", f"recording a return receipt needs the role {' or '.join(sorted(MAILROOM))}",
                           {"your_role": getattr(actor, "role", None)})
    mailed_on = appeal.letter_mailed_on
    if mailed_on is None:
        raise LateralError("not_mailed", f"the decision on appeal {appeal.id} has not been mailed")
    if event not in DELIVERY_EVENTS:
        raise LateralError("invalid_fields", f"event must be one of {', '.join(DELIVERY_EVENTS)}",
                           {"fields": {"event": [f"one of {', '.join(DELIVERY_EVENTS)}"]}})
    if appeal.letter_delivery_event is not None:
        raise LateralError("invalid_fields", f"the decision letter's receipt was recorded: "
                           f"{appeal.letter_delivery_event} on {appeal.letter_delivery_event_on}",
                           {"fields": {"event": ["recorded already"]}})
    on = on or today()
    if on < mailed_on or on > today():
        raise LateralError("invalid_date", f"{on.isoformat()} is before the decision letter was mailed "
                           f"({mailed_on.isoformat()}) or in the future", {"fields": {"on": ["out of range"]}})
    rb = rulebook()
    if event == "unclaimed":
        earliest = mailed_on + timedelta(days=usps_hold_days(rb))
        if on < earliest:
            raise LateralError("invalid_date", f"certified mail cannot come back unclaimed on {on.isoformat()}: USPS "
                               f"holds it {usps_hold_days(rb)} days, so not before {earliest.isoformat()}",
                               {"fields": {"on": [f"not before {earliest.isoformat()}"]}})
    before = {"letter_delivery_event": None, "letter_served_on": None}
    starts = rb.section("calendar").get("clock_starts", "delivery")
    served = mailed_on if starts == "mailing" else on if event == "delivered" else assumed_service_day(mailed_on, rb)
    appeal.letter_delivery_event, appeal.letter_delivery_event_on = event, on
    appeal.letter_served_on = served
    if _sets_deadline(notice, appeal):
        d = deadline_after_decision(notice, appeal, served)
        printed = notice.deadline
        why = f"counted from the decision letter's service, {fmt(served)} ({event} {fmt(on)})"
        steps = [why, *d.steps]
        if printed is not None and printed > d.date:
            steps.append(f"the decision letter printed {fmt(printed)}, which is later, so it applies")
        notice.served_on, notice.deadline = served, max(d.date, printed or d.date)
        notice.deadline_steps = steps
    db.session.flush()
    audit.record("decision_receipt", "notice_appeal", appeal.id, before, {
        "notice_id": notice.id, "letter_delivery_event": event, "letter_delivery_event_on": on.isoformat(),
        "letter_served_on": served.isoformat(), "deadline": notice.deadline.isoformat() if notice.deadline else None,
    }, actor)
    return appeal


def _sets_deadline(notice: Notice, appeal: NoticeAppeal) -> bool:
    """The letter's service counts the owner's time again: the notice's last decision,
    upheld or modified and heard, and the notice still decided (not complied or overdue)."""
    decided = [a for a in appeals_of(notice) if a.decision is not None]
    return (notice.state == "decided" and bool(decided) and decided[-1].id == appeal.id
            and appeal.decision != "overturned" and appeal.heard is not False)
