"""The decision letter on an appeal, mailed like a notice (certified, an article number).

Mailing it is the ``mail_decision`` event of a ``decided`` notice. For an upheld or
modified notice it also sets the owner's new deadline, counted from the letter's
service the way a notice's printed deadline is (``assumed_service_day``), and states the
appeal to the Common Council still open.
"""

from __future__ import annotations

import hashlib
from datetime import date

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
from server.notices.models import Notice, NoticeAppeal
from server.notices.record import summary
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
