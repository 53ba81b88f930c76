"""Printing approved notices for certified mail: article numbers, letters, mailing book.

One batch is one trip to the post office. Printing it, in one transaction, reserves a
run of article-number serials (:func:`server.core.dialects.allocate_serials`), prints
each letter (its PDF and SHA-256 stored on the notice), all letters as one PDF and the
firm mailing book (PS Form 3877), with an audit row; no notice is mailed by it. The
clerk then records the batch as mailed (:mod:`server.notices.mailing_record`): only
that moves the notices to ``mailed``, starts their clocks and makes each letter and
article number write-once.
"""

from __future__ import annotations

import hashlib
from dataclasses import replace
from datetime import date
from decimal import Decimal

from geoalchemy2.shape import to_shape
from sqlalchemy import select

from gis.rulebook import Rulebook
from server.core import settings
from server.core.accounts.models import User
from server.core.audit import trail as audit
from server.core.dialects import allocate_serials
from server.core.errors import LateralError
from server.core.extensions import db
from server.network.models import Parcel
from server.notices.article_numbers import SerialRange, build_article_number, human_readable, sticker_number
from server.notices.calendar import fmt
from server.notices.citations import check_violations_open
from server.notices.clock import assumed_service_day, city_day, printed_deadline, rulebook, today
from server.notices.election_calendar import deadline as deadline_on
from server.notices.events import portal_invite
from server.notices.kinds import notice_kind
from server.notices.letter_context import map_features, photo_paths
from server.notices.letter_findings import owner_findings
from server.notices.letters.documents import (
    Addressee,
    DeadlineText,
    MailPiece,
    Municipality,
    NoticeLetter,
    ServiceStepLine,
    money,
)
from server.notices.letters.labels import render_labels
from server.notices.letters.mailing_book import render_mailing_book, return_receipt_rows
from server.notices.letters.notice import render_letter, render_letters
from server.notices.letters.substitute import SubstituteNotice, render_substitute_notice
from server.notices.letters.texts import follows_text
from server.notices.models import MailingBatch, Notice
from server.notices.record import get_notice
from server.notices.service_of_notice import DELIVERY_WORDS, service_record, steps_of
from server.notices.workflow import check_delegation, check_transition


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def addressee(notice: Notice) -> Addressee:
    return Addressee(names=tuple(notice.owner_names), street_lines=(notice.mailing_street,),
                     city=notice.mailing_city, state=notice.mailing_state.upper(), zip_code=notice.mailing_zip)


def reserve_article_numbers(count: int, rb: Rulebook) -> list[str]:
    """``count`` new article numbers from the rulebook's Mailer ID and serial range.

    Raises:
        LateralError: ``article_numbers_exhausted`` when the range has fewer left.
    """
    mail_cfg = rb.section("mail")
    serials = SerialRange.from_mail_config(mail_cfg)
    first = allocate_serials(db.session, str(mail_cfg["mailer_id"]), count, serials.first, serials.last)
    if first is None:
        raise LateralError(
            "article_numbers_exhausted",
            f"the serial range {serials.first}..{serials.last} of Mailer ID {mail_cfg['mailer_id']} has fewer "
            f"than {count} article numbers left; ask USPS for a new range and set serial_first/serial_last "
            "in the rulebook's [mail] table",
            {"requested": count, "serial_first": serials.first, "serial_last": serials.last},
        )
    return [build_article_number(s, mail_cfg) for s in range(first, first + count)]


def build_letter(notice: Notice, deadline, rb: Rulebook, municipality: Municipality,
                 mailed_on: date | None = None, article_number: str | None = None) -> NoticeLetter:
    """The plain letter of a notice about to be mailed (article number already set).

    ``mailed_on`` and ``article_number`` stand in for the notice's own when a letter is
    previewed before it is mailed (:mod:`server.notices.letter_preview`).
    """
    parcel = db.session.get(Parcel, notice.parcel_id)
    mailed_on = mailed_on or notice.mailed_on
    served = assumed_service_day(mailed_on, rb)
    why = ("counted from the day of mailing" if served == mailed_on else
           f"counted from {fmt(served)}, {(served - mailed_on).days} days after mailing; "
           "if the letter is delivered later, from the day of delivery")
    signer = db.session.get(User, notice.approved_by_id) if notice.approved_by_id else None
    return NoticeLetter(
        municipality=municipality, kind=notice.kind, addressee=addressee(notice),
        parcel_number=notice.parcel_number, site_address=notice.site_address or notice.parcel_number,
        findings=owner_findings(notice),
        deadline=DeadlineText(deadline.date, (why, *deadline.steps), deadline.section),
        article_number=article_number or notice.article_number, mailed=mailed_on,
        parcel_geometry=to_shape(parcel.geom) if parcel is not None else None,
        nearby=map_features(parcel) if parcel is not None else (),
        photos=photo_paths(notice),
        signer=(f"{signer.display_name}, {municipality.superintendent_title}" if signer else ""),
        follows=follows_sentence(notice),
    )


def follows_sentence(notice: Notice) -> str:
    """For a follow-up notice, the sentence citing the notice it follows (its mailing
    date, article number and the day it gave), else ""."""
    prior = db.session.get(Notice, notice.follow_up_of_id) if notice.follow_up_of_id else None
    if prior is None or prior.mailed_on is None:
        return ""
    return follows_text(prior.mailed_on, prior.article_number, prior.deadline)


def sticker_numbers(notices: list[Notice], scanned: dict[int, str]) -> list[str]:
    """The PS 3800 sticker numbers the clerk scanned or typed, one per notice, checked.

    Raises:
        LateralError: ``invalid_fields`` naming each notice whose number is missing,
            fails the mod-10 check, or repeats; ``article_number_used`` for a number
            already on another letter.
    """
    errors: dict[str, list[str]] = {}
    numbers, seen = [], set()
    extra = set(scanned) - {n.id for n in notices}
    for notice_id in sorted(extra):
        errors[str(notice_id)] = ["not in this mailing"]
    for n in notices:
        raw = scanned.get(n.id)
        number = sticker_number(raw) if raw else None
        if raw is None:
            errors[str(n.id)] = ["no sticker number: record one for every letter, or none"]
        elif number is None:
            errors[str(n.id)] = [f"{raw!r} is not a valid USPS tracking number (check digit or length)"]
        elif number in seen:
            errors[str(n.id)] = [f"{human_readable(number)} is given for two letters"]
        else:
            seen.add(number)
        numbers.append(number or "")
    if errors:
        raise LateralError("invalid_fields", "the PS 3800 sticker numbers do not match the letters",
                           {"fields": {"stickers": errors}})
    used = db.session.scalars(select(Notice.id).where(Notice.article_number.in_(numbers))).all()
    if used:
        raise LateralError("article_number_used", f"a sticker number is already on notice {used[0]}",
                           {"notice_ids": list(used)})
    return numbers


def check_not_before_approval(notices: list[Notice], mailed_on: date) -> None:
    """A letter cannot have been mailed before the superintendent approved it: a mailing
    date before the approval day would put a false date on the letter, the PS 3877 book
    and every deadline.

    Raises:
        LateralError: ``invalid_date`` naming each notice approved after ``mailed_on``.
    """
    early = {n.id: city_day(n.approved_at) for n in notices
             if n.approved_at is not None and mailed_on < city_day(n.approved_at)}
    if early:
        first = min(early.values())
        raise LateralError("invalid_date",
                           f"mailing date {mailed_on.isoformat()} is before the notices were approved "
                           f"(notice {min(early)} on {first.isoformat()}): record the day they were really mailed",
                           {"fields": {"mailed_on": [f"not before {max(early.values()).isoformat()}"]},
                            "approved_on": {str(k): v.isoformat() for k, v in early.items()}})


def print_notices(notice_ids: list[int], actor, stickers: dict[int, str] | None = None,
                  printed_on: date | None = None) -> MailingBatch:
    """Print approved notices as one batch: each letter, all letters as one PDF, the firm
    mailing book (PS Form 3877), and the article numbers on them. Nothing is mailed: no
    notice changes state and no clock starts until the clerk records the trip to the post
    office (:func:`server.notices.mailing_record.record_mailing`). The letters carry the
    print day as their mailing date; a mailing recorded for a later day prints them again
    with that day. Printing the same notices again makes a new batch that replaces the
    first for them (new article numbers, unless stickers are given).

    ``stickers`` maps each notice to the number of the post office's PS 3800 sticker
    the clerk put on its envelope (scanned or typed); the letter, the mailing book and
    the audit trail then carry that number. Without it, self-issued numbers are
    reserved from the rulebook's serial range. ``printed_on`` is for the demo city's
    history, which prints in the past; the desk and the API print today.

    Raises:
        LateralError: ``not_found`` for an unknown notice, ``invalid_transition`` (a
            notice is not approved), ``forbidden``, ``violations_resolved`` (every
            violation a notice cites was resolved since: it is withdrawn, not mailed),
            ``article_numbers_exhausted``, ``invalid_date`` (before a notice's approval day).
    """
    printed_on = printed_on or today()
    notices = [get_notice(i) for i in sorted(set(notice_ids))]
    if not notices:
        raise LateralError("invalid_fields", "name at least one notice", {"fields": {"notice_ids": ["empty"]}})
    for n in notices:
        check_transition(n, "mail", actor)
    check_delegation()
    check_not_before_approval(notices, printed_on)
    check_violations_open(notices)
    rb = rulebook()
    numbers = sticker_numbers(notices, stickers) if stickers else reserve_article_numbers(len(notices), rb)
    for notice, number in zip(notices, numbers, strict=True):
        notice.article_number = number
    letters_pdf, book_pdf = print_letters(notices, printed_on, rb)
    batch = MailingBatch(printed_on=printed_on, dated_on=printed_on, printed_by_id=getattr(actor, "id", None),
                         notice_ids=[n.id for n in notices], pieces=len(notices),
                         letters_pdf=letters_pdf, letters_sha256=sha256(letters_pdf),
                         mailing_book_pdf=book_pdf, mailing_book_sha256=sha256(book_pdf))
    db.session.add(batch)
    db.session.flush()
    for notice in notices:
        notice.batch_id = batch.id
    audit.record("print", "mailing_batch", batch.id, None, {
        "printed_on": printed_on.isoformat(), "pieces": batch.pieces,
        "notice_ids": batch.notice_ids, "article_numbers": [n.article_number for n in notices],
        "article_numbers_from": "ps3800_stickers" if stickers else "self_issued",
        "letters_sha256": batch.letters_sha256, "mailing_book_sha256": batch.mailing_book_sha256,
    }, actor)
    return batch


def print_letters(notices: list[Notice], dated_on: date, rb: Rulebook) -> tuple[bytes, bytes]:
    """Print each notice's letter as mailed on ``dated_on`` (its PDF and SHA-256 stored on
    the notice), and return all letters as one PDF and the mailing book for that day."""
    mail_cfg, municipality = rb.section("mail"), Municipality.from_rulebook(rb)
    letters = []
    for notice in notices:
        deadline = printed_deadline(notice, dated_on, rb)
        letter = replace(build_letter(notice, deadline, rb, municipality, mailed_on=dated_on),
                         portal=portal_invite(notice))
        pdf = render_letter(letter, rb, settings.current().thumb_dir)
        notice.letter_pdf = pdf
        notice.letter_sha256 = sha256(pdf)
        letters.append(letter)
    letters_pdf = render_letters(letters, rb, settings.current().thumb_dir)
    book_pdf = render_mailing_book([MailPiece.for_letter(x, mail_cfg) for x in letters], municipality, dated_on)
    return letters_pdf, book_pdf


def get_batch(batch_id: int) -> MailingBatch:
    batch = db.session.get(MailingBatch, batch_id)
    if batch is None:
        raise LateralError("not_found", f"no mailing with id {batch_id}")
    return batch


def printed_batches(approved: list[Notice]) -> list[MailingBatch]:
    """The batches printed for ``approved`` notices and not yet recorded as mailed."""
    ids = sorted({n.batch_id for n in approved if n.batch_id is not None})
    if not ids:
        return []
    return list(db.session.scalars(select(MailingBatch)
                                   .where(MailingBatch.id.in_(ids), MailingBatch.mailed_on.is_(None))
                                   .order_by(MailingBatch.id)))


def batch_notices(batch: MailingBatch) -> list[Notice]:
    return db.session.scalars(select(Notice).filter_by(batch_id=batch.id).order_by(Notice.id)).all()


def article_labels(batch: MailingBatch) -> bytes:
    """The batch's article-number labels with their barcodes, in mailing-book order."""
    zero = Decimal("0.00")
    return render_labels([MailPiece(n.article_number or "", addressee(n), zero, zero, zero)
                          for n in batch_notices(batch)])


def return_receipts(batch: MailingBatch) -> list[dict]:
    """PS Form 3811 rows of a batch: 1 article addressed to, 2 article number, 3 service."""
    notices = batch_notices(batch)
    zero = Decimal("0.00")  # 3811 rows carry no fees
    pieces = [MailPiece(n.article_number, addressee(n), zero, zero, zero) for n in notices]
    return [
        {"notice_id": n.id, "article_addressed_to": list(row.article_addressed_to),
         "article_number": row.article_number, "service_type": row.service_type}
        for n, row in zip(notices, return_receipt_rows(pieces), strict=True)
    ]


# ------------------------------------------------------------------ reprints with the record of service


def reprint_letter(notice: Notice) -> bytes:
    """The notice's letter printed again, with how it was served as recorded today.

    The body is the letter as mailed (same article number, mailing date and printed
    deadline); a section "How this notice was served" says what was done: the certified
    mailing, its delivery (per the return receipt or USPS tracking) or its return
    refused or unclaimed and each substitute step with its date, and the day the clock
    started from. The letter as mailed stays stored unchanged (``letter.pdf``).

    Raises:
        LateralError: ``not_mailed``.
    """
    if notice.letter_sha256 is None or notice.mailed_on is None:
        raise LateralError("not_mailed", f"notice {notice.id} has not been mailed; it has no letter yet")
    rb = rulebook()
    deadline = printed_deadline(notice, notice.mailed_on, rb)
    letter = build_letter(notice, deadline, rb, Municipality.from_rulebook(rb))
    if notice.deadline_printed is not None and deadline.date != notice.deadline_printed:
        # The calendar changed since (e.g. a holiday added): print the date the owner was given.
        letter = replace(letter, deadline=replace(letter.deadline, date=notice.deadline_printed))
    letter = replace(letter, service_record=service_record(notice, rb), service_as_of=today(),
                     portal=portal_invite(notice))
    return render_letter(letter, rb, settings.current().thumb_dir)


def substitute_notice(notice: Notice) -> bytes:
    """The notice of substitute service for a certified letter that came back refused or
    unclaimed: one page for the first-class mailing and the posting (the original notice
    named, the dates that now apply, the poster's certificate), and a PS 3817
    certificate of mailing. Printed before the steps (dates to come) or after (their dates).

    Raises:
        LateralError: ``no_substitute_service`` when the certified letter did not come back.
    """
    if notice.delivery_event not in DELIVERY_WORDS or notice.delivery_event_on is None or notice.mailed_on is None:
        raise LateralError("no_substitute_service",
                           f"notice {notice.id}'s certified letter has not come back refused or unclaimed; "
                           "it needs no substitute service")
    rb = rulebook()
    done = {s.step: s.done_on for s in steps_of(notice)}
    kind = notice_kind(notice.kind)
    served = notice.served_on
    appeal_due = deadline_on("APPEAL-10", served, rb).date if served is not None and kind.appeal else None
    return render_substitute_notice(SubstituteNotice(
        municipality=Municipality.from_rulebook(rb), addressee=addressee(notice),
        site_address=notice.site_address or notice.parcel_number, parcel_number=notice.parcel_number,
        title=kind.title, notice_mailed_on=notice.mailed_on, notice_article_number=notice.article_number or "",
        came_back=DELIVERY_WORDS[notice.delivery_event], came_back_on=notice.delivery_event_on,
        remailed_on=done.get("first_class_mailing"), posted_on=done.get("posting"), served_on=served,
        deadline=notice.deadline if served is not None else None,
        appeal_days=int(rb.deadline("APPEAL-10").get("days", 10)) if kind.appeal else None, appeal_due=appeal_due))


def service_step_lines(notices: list[Notice]) -> list[ServiceStepLine]:
    """The substitute steps recorded for ``notices`` (refused or unclaimed), for the book."""
    lines = []
    for notice in notices:
        if notice.delivery_event not in DELIVERY_WORDS or notice.delivery_event_on is None:
            continue
        came_back = f"{DELIVERY_WORDS[notice.delivery_event]} {fmt(notice.delivery_event_on)}"
        for step in steps_of(notice):
            lines.append(ServiceStepLine(step=step.step, done_on=step.done_on, addressee=addressee(notice),
                                         site_address=notice.site_address or notice.parcel_number,
                                         notice_id=notice.id, article_number=notice.article_number or "",
                                         came_back=came_back))
    return lines


def reprint_mailing_book(batch: MailingBatch) -> bytes:
    """The batch's mailing book printed again with the record of substitute service.

    The certified sheets list the batch's letters again (fees from the rulebook's
    ``[mail]`` table); sheets follow for each second mailing by First-Class Mail (marked
    so, not certified) and each posting at the premises recorded since for the batch's
    letters that came back. The book the post office signed stays stored unchanged
    (``mailing-book.pdf``).
    """
    rb = rulebook()
    mail_cfg, municipality = rb.section("mail"), Municipality.from_rulebook(rb)
    notices = batch_notices(batch)
    zero = Decimal("0.00")
    pieces = [MailPiece(n.article_number or "", addressee(n), money(mail_cfg["postage"]),
                        money(mail_cfg["certified_fee"]), money(mail_cfg["return_receipt_fee"])) if n.article_number
              else MailPiece("", addressee(n), zero, zero, zero) for n in notices]
    # Not yet recorded as mailed: the book carries the day it was printed, as when it was.
    return render_mailing_book(pieces, municipality, batch.mailed_on or batch.printed_on,
                               service_steps=service_step_lines(notices))


MAILING_JOB = "mailing"


def run_mailing_job(params: dict, progress) -> dict:
    """A batch printed as a job of the queue (issue #35): a large batch's letters are written
    by the worker, not a web worker. ``params``: ``notice_ids``, ``user_id`` and ``stickers``
    ({notice id: article number} or None). The result names the printed batch
    (``GET /api/v1/mailings/<id>``), which the clerk then records as mailed."""
    actor = db.session.get(User, params["user_id"]) if params.get("user_id") else None
    stickers = {int(k): v for k, v in (params.get("stickers") or {}).items()} or None
    progress("print", 0, len(params["notice_ids"]), None)
    batch = print_notices(list(params["notice_ids"]), actor, stickers)
    return {"batch_id": batch.id, "pieces": batch.pieces, "letters_sha256": batch.letters_sha256,
            "mailing_book_sha256": batch.mailing_book_sha256}
