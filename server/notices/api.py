"""Notices, certified mailings and the legal calendar over the API.

Routes parse, authorise and call :mod:`server.notices` /
:mod:`server.notices.mailing`; the transition table there decides who may do what
to a notice in which state (403 for the role, 409 ``invalid_transition`` otherwise), and
each event's route is open to the roles the table lets send it from some state
(:func:`server.notices.workflow.senders`).
"""

from __future__ import annotations

import hashlib

from flask import Response, jsonify, request, url_for
from flask_smorest import Blueprint
from marshmallow import Schema, ValidationError

from gis.rulebook import RulebookError
from server.core.access import SIGNED_IN, SUPERVISORS, access
from server.core.accounts.authenticate import current_user
from server.core.errors import LateralError, invalid_fields
from server.core.queue import service as jobs
from server.core.web.body import load_json
from server.core.web.paging import cursor_field, next_url, page_start
from server.core.web.transaction import write_transaction
from server.notices import decisions as decision_letters
from server.notices import drafts as notice_drafts
from server.notices import election_calendar, mailing_record, reading
from server.notices import mailing as mailings
from server.notices import record as notice_record
from server.notices.schemas import (
    DeadlineOut,
    DeadlineQuery,
    DecideIn,
    DecisionLetterIn,
    DecisionReceiptIn,
    DraftIn,
    EventIn,
    MailingIn,
    MailingOut,
    NoticeOut,
    NoticeQuery,
    RecordMailingIn,
    ReprintQuery,
    ReturnReceiptOut,
    VoidMailingIn,
)
from server.notices.workflow import apply_event, senders

PDF = "application/pdf"

blp = Blueprint("notices", __name__, url_prefix="/api/v1", description="Notices, certified mail, legal calendar")
# The list's query: the schema's filters, and the cursor a ``next`` link carries.
NoticeListQuery = NoticeQuery.from_dict({"cursor": cursor_field()}, name="NoticeListQuery")


def _query(schema: Schema) -> dict:
    try:
        return schema.load(request.args.to_dict())
    except ValidationError as exc:
        raise invalid_fields(exc.messages, prefix="query") from None


def _body(schema: Schema) -> dict:
    """The JSON body through ``schema``; an empty body is an empty object."""
    if request.get_data():
        return load_json(schema)
    try:
        return schema.load({})
    except ValidationError as exc:  # an empty body where the event needs fields
        raise invalid_fields(exc.messages) from None


def _pdf(data: bytes, name: str, sha256: str) -> Response:
    response = Response(data, mimetype=PDF)
    response.headers["Content-Disposition"] = f'inline; filename="{name}"'
    response.headers["ETag"] = f'"{sha256}"'
    response.headers["Digest"] = f"sha-256={sha256}"
    return response


@blp.route("/calendar/deadline", methods=["GET"])
@access(SIGNED_IN)
@blp.doc(parameters=[{"in": "query", "schema": DeadlineQuery}])
@blp.response(200, DeadlineOut)
def calendar_deadline():
    """The last day of a notice period served on a day (Wis. Stat. § 990.001(4)), and the steps."""
    args = _query(DeadlineQuery())
    try:
        return election_calendar.deadline(args["rule"], args["served"])
    except (RulebookError, ValueError) as exc:
        raise invalid_fields({"rule": [str(exc)]}, prefix="query") from None


@blp.route("/notices/draft", methods=["POST"])
@access(SUPERVISORS)
@blp.doc(requestBody={"required": False, "content": {"application/json": {"schema": DraftIn}}})
@blp.response(201, NoticeOut(many=True))
@write_transaction
def draft():
    """Draft notices from open violations (superintendent, admin); drafting twice adds nothing."""
    args = _body(DraftIn())
    notices = notice_drafts.draft_notices(current_user(), args.get("parcel_ids"), args.get("kinds"),
                                    args["clear_water_kind"])
    return reading.read(notices), 201


@blp.route("/notices", methods=["GET"])
@access(SIGNED_IN)
@blp.doc(parameters=[{"in": "query", "schema": NoticeListQuery}])
@blp.response(200, NoticeOut(many=True), headers={"Link": {
    "description": "`<url>; rel=\"next\"` while notices follow this page", "schema": {"type": "string"}}})
def list_notices():
    """Notices by state, kind or parcel, in id order; held ones carry their reason.

    Paged: the `Link` header's `next` URL (with a `cursor`) is there while notices follow.
    """
    args = _query(NoticeListQuery())
    after, limit = page_start(args), args.pop("limit")
    rows = notice_record.list_notices(**args, after=after, limit=limit + 1)  # one more: whether a next page exists
    if len(rows) <= limit:
        return reading.read(rows)
    rows = rows[:limit]
    return reading.read(rows), 200, {"Link": f'<{next_url("notices.list_notices", rows[-1].id, limit)}>; rel="next"'}


@blp.route("/notices/<int:notice_id>", methods=["GET"])
@access(SIGNED_IN)
@blp.response(200, NoticeOut)
def get_notice(notice_id: int):
    """One notice: state, deadline and how it was computed, article number, letter hash."""
    return reading.read_one(notice_record.get_notice(notice_id))


def _event_route(event: str, schema: type[Schema], doc: str):
    @write_transaction
    def view(notice_id: int):
        data = _body(schema())
        notice = apply_event(notice_record.get_notice(notice_id), event, current_user(), **data)
        return reading.read_one(notice)

    view.__name__ = f"notice_{event}"
    view.__doc__ = doc
    blp.route(f"/notices/<int:notice_id>/{event}", methods=["POST"], endpoint=view.__name__)(
        access(senders(event))(
            blp.doc(requestBody={"required": False, "content": {"application/json": {"schema": schema}}})(
                blp.response(200, NoticeOut)(view))))


for _event, _schema, _doc in (
    ("approve", EventIn, "Approve a draft for mailing (superintendent)."),
    ("withdraw", EventIn, "Withdraw a notice not yet mailed (superintendent, admin)."),
    ("release", EventIn, "Re-read a held notice's address from the tax roll; draft again if usable."),
    ("deliver", EventIn, "Record delivery from the return receipt, `on` = date of delivery (clerk, admin)."),
    ("refuse", EventIn, "Record refused mail (clerk, admin); the clock falls back to mailing + N days."),
    ("unclaimed", EventIn, "Record unclaimed mail (clerk, admin); the clock falls back to mailing + N days."),
    ("comply", EventIn, "Comply a notice by hand (superintendent), the reason in `note`; a passing "
                       "reinspection complies it on its own."),
    ("escalate", EventIn, "Escalate an overdue notice (superintendent, admin); starts a per-day penalty."),
    ("appeal", EventIn, "Record the owner's written appeal with its filing date `on`, `note` = its facts (clerk, "
                        "admin); one received after its 10 days is recorded and flagged `late` (the owner's "
                        "reason in `late_reason`), and the decision says whether it was `heard`."),
    ("decide", DecideIn, "Record the Commission's (or Council's) decision, `on` = the meeting date (clerk, admin)."),
    ("substitute", EventIn, "Record a substitute-service step after refused or unclaimed mail, `step` and `on` "
                            "(clerk, admin); the clock starts from the last step the rulebook requires."),
):
    _event_route(_event, _schema, _doc)


@blp.route("/notices/<int:notice_id>/decision-letter", methods=["POST"])
@access(senders("mail_decision"))
@blp.doc(requestBody={"required": True, "content": {"application/json": {"schema": DecisionLetterIn}}})
@blp.response(200, NoticeOut)
@write_transaction
def mail_decision(notice_id: int):
    """Mail the decision letter on the notice's appeal (clerk, admin), signed by the named officer of the
    deciding body (`signed_by`); upheld or modified sets the new deadline."""
    args = _body(DecisionLetterIn())
    notice = decision_letters.mail_decision(notice_record.get_notice(notice_id), current_user(), args.get("mailed_on"),
                                            args.get("signed_by"))
    return reading.read_one(notice)


@blp.route("/notices/<int:notice_id>/appeals/<int:appeal_id>/letter.pdf", methods=["GET"])
@access(SIGNED_IN)
@blp.doc(responses={200: {"description": "the decision letter as mailed", "content": {PDF: {}}}})
def decision_letter_pdf(notice_id: int, appeal_id: int):
    """The decision letter exactly as mailed; its SHA-256 is the ETag and is in the audit trail."""
    appeal = decision_letters.get_appeal(notice_record.get_notice(notice_id), appeal_id)
    if appeal.letter_sha256 is None:
        raise LateralError("not_mailed", f"the decision on appeal {appeal_id} has not been mailed")
    return _pdf(appeal.letter_pdf or b"", f"decision-{notice_id}-{appeal_id}.pdf", appeal.letter_sha256)


@blp.route("/notices/<int:notice_id>/appeals/<int:appeal_id>/receipt", methods=["POST"])
@access(senders("deliver"))
@blp.doc(requestBody={"required": True, "content": {"application/json": {"schema": DecisionReceiptIn}}})
@blp.response(200, NoticeOut)
@write_transaction
def decision_receipt(notice_id: int, appeal_id: int):
    """Record the decision letter's return receipt (clerk, admin): `delivered`, `refused` or `unclaimed` on `on`.
    The Council appeal's 10 days and an upheld or modified notice's new deadline count from the letter's service."""
    args = load_json(DecisionReceiptIn())
    notice = notice_record.get_notice(notice_id)
    decision_letters.record_letter_receipt(notice, decision_letters.get_appeal(notice, appeal_id), args["event"],
                                           args.get("on"), current_user())
    return reading.read_one(notice)


@blp.route("/notices/<int:notice_id>/appeals/<int:appeal_id>/mailing-book.pdf", methods=["GET"])
@access(SIGNED_IN)
@blp.doc(responses={200: {"description": "the decision letter's PS Form 3877 line", "content": {PDF: {}}}})
def decision_mailing_book_pdf(notice_id: int, appeal_id: int):
    """The decision letter's firm mailing book (PS Form 3877): it goes by certified mail like a notice,
    and the clocks that follow it run from its mailing."""
    notice = notice_record.get_notice(notice_id)
    data = decision_letters.decision_mailing_book(notice, decision_letters.get_appeal(notice, appeal_id))
    return _pdf(data, f"decision-{notice_id}-{appeal_id}-mailing-book.pdf", hashlib.sha256(data).hexdigest())


@blp.route("/notices/<int:notice_id>/letter.pdf", methods=["GET"])
@access(SIGNED_IN)
@blp.doc(parameters=[{"in": "query", "schema": ReprintQuery}],
         responses={200: {"description": "the letter as mailed (or reprinted)", "content": {PDF: {}}}})
def letter_pdf(notice_id: int):
    """The letter exactly as mailed; its SHA-256 is the ETag and is in the audit trail.

    With ``reprint=true``: the letter printed again with how it was served, as recorded
    today (certified mail delivered, or refused or unclaimed and each substitute step with
    its date, and the day the clock started from)."""
    reprint = _query(ReprintQuery())["reprint"]
    notice = notice_record.get_notice(notice_id)
    if reprint:
        data = mailings.reprint_letter(notice)
        return _pdf(data, f"notice-{notice.id}-{notice.article_number}-reprint.pdf", hashlib.sha256(data).hexdigest())
    if notice.letter_sha256 is None:
        raise LateralError("not_mailed", f"notice {notice_id} has not been mailed; it has no letter yet")
    return _pdf(notice.letter_pdf, f"notice-{notice.id}-{notice.article_number}.pdf", notice.letter_sha256)


@blp.route("/notices/<int:notice_id>/substitute-notice.pdf", methods=["GET"])
@access(SIGNED_IN)
@blp.doc(responses={200: {"description": "the notice of substitute service", "content": {PDF: {}}}})
def substitute_notice_pdf(notice_id: int):
    """After certified mail came back refused or unclaimed: the one-page notice sent by first-class mail
    and posted at the premises (the original notice named, the dates that now apply, the poster's
    certificate), and a PS Form 3817 certificate of mailing."""
    notice = notice_record.get_notice(notice_id)
    data = mailings.substitute_notice(notice)
    return _pdf(data, f"notice-{notice.id}-substitute-service.pdf", hashlib.sha256(data).hexdigest())


def _batch_view(batch) -> dict:
    notices = mailings.batch_notices(batch)
    return {"id": batch.id, "state": "mailed" if batch.mailed_on else "printed", "printed_on": batch.printed_on,
            "dated_on": batch.dated_on, "mailed_on": batch.mailed_on, "recorded_at": batch.recorded_at,
            "voided_at": batch.voided_at, "void_reason": batch.void_reason, "pieces": batch.pieces,
            "letters_sha256": batch.letters_sha256, "mailing_book_sha256": batch.mailing_book_sha256,
            "notice_ids": [n.id for n in notices], "article_numbers": [n.article_number for n in notices]}


@blp.route("/mailings", methods=["POST"])
@access(senders("mail"))
@blp.doc(requestBody={"content": {"application/json": {"schema": MailingIn}}})
@blp.response(201, MailingOut)
@write_transaction
def print_batch():
    """Print approved notices as one batch (clerk, admin): article numbers, letters, mailing book.

    Nothing is mailed: record the batch as mailed (``POST /mailings/<id>/record``) once the
    letters are at the post office. Print again as often as needed."""
    args = load_json(MailingIn())
    stickers = {s["notice_id"]: s["article_number"] for s in args.get("stickers") or []}
    batch = mailings.print_notices(args["notice_ids"], current_user(), stickers or None)
    return _batch_view(batch), 201


@blp.route("/mailings/jobs", methods=["POST"])
@access(senders("mail"))
@blp.doc(requestBody={"content": {"application/json": {"schema": MailingIn}}},
         responses={202: {"description": "the printing job; its result names the printed batch once it is done"}})
def print_batch_job():
    """Print a large batch as a job of the queue (clerk, admin): the same as ``POST /mailings``,
    written by the job worker; ``GET /api/v1/jobs/<id>`` follows it."""
    args = load_json(MailingIn())
    stickers = {str(s["notice_id"]): s["article_number"] for s in args.get("stickers") or []}
    user = current_user()
    job = jobs.submit(mailings.MAILING_JOB, {
        "notice_ids": args["notice_ids"], "user_id": getattr(user, "id", None), "stickers": stickers or None}, user)
    return jsonify(jobs.view(job)), 202, {"Location": url_for("jobs.get_job", job_id=job.id)}


@blp.route("/mailings/<int:batch_id>/record", methods=["POST"])
@access(senders("mail"))
@blp.doc(requestBody={"content": {"application/json": {"schema": RecordMailingIn}}})
@blp.response(200, MailingOut)
@write_transaction
def record_batch(batch_id: int):
    """Record a printed batch as mailed on `mailed_on` (clerk, admin), with the clerk's `count` of the
    letters: the notices are mailed, their deadlines printed and their clocks started. Not before the
    day the batch was printed; a later day prints its letters and book again with that day."""
    args = load_json(RecordMailingIn())
    batch = mailing_record.record_mailing(mailings.get_batch(batch_id), current_user(), args.get("mailed_on"),
                                          args["count"])
    return _batch_view(batch)


@blp.route("/mailings/<int:batch_id>/void", methods=["POST"])
@access(senders("mail"))
@blp.doc(requestBody={"content": {"application/json": {"schema": VoidMailingIn}}})
@blp.response(200, MailingOut)
@write_transaction
def void_batch(batch_id: int):
    """Void a mailing recorded by mistake (clerk, admin), on the day it was recorded, with a `reason`:
    its notices are approved again, their deadlines cleared; the batch may be recorded again."""
    args = load_json(VoidMailingIn())
    batch = mailing_record.void_mailing(mailings.get_batch(batch_id), current_user(), args["reason"])
    return _batch_view(batch)


@blp.route("/mailings/<int:batch_id>", methods=["GET"])
@access(SIGNED_IN)
@blp.response(200, MailingOut)
def get_batch(batch_id: int):
    """One mailing: its notices, article numbers and the SHA-256 of its PDFs."""
    return _batch_view(mailings.get_batch(batch_id))


@blp.route("/mailings/<int:batch_id>/letters.pdf", methods=["GET"])
@access(SIGNED_IN)
@blp.doc(responses={200: {"description": "every letter of the batch", "content": {PDF: {}}}})
def batch_letters(batch_id: int):
    """All letters of the batch in one PDF, for printing."""
    batch = mailings.get_batch(batch_id)
    return _pdf(batch.letters_pdf, f"mailing-{batch.id}-letters.pdf", batch.letters_sha256)


@blp.route("/mailings/<int:batch_id>/mailing-book.pdf", methods=["GET"])
@access(SIGNED_IN)
@blp.doc(parameters=[{"in": "query", "schema": ReprintQuery}],
         responses={200: {"description": "firm mailing book (PS Form 3877 layout)", "content": {PDF: {}}}})
def batch_mailing_book(batch_id: int):
    """The firm mailing book the post office signs as the receipt for the batch.

    With ``reprint=true``: printed again with sheets for the substitute service recorded
    since (second mailings by First-Class Mail, postings at the premises)."""
    reprint = _query(ReprintQuery())["reprint"]
    batch = mailings.get_batch(batch_id)
    if reprint:
        data = mailings.reprint_mailing_book(batch)
        return _pdf(data, f"mailing-{batch.id}-book-reprint.pdf", hashlib.sha256(data).hexdigest())
    return _pdf(batch.mailing_book_pdf, f"mailing-{batch.id}-book.pdf", batch.mailing_book_sha256)


@blp.route("/mailings/<int:batch_id>/labels.pdf", methods=["GET"])
@access(SIGNED_IN)
@blp.doc(responses={200: {"description": "article-number labels with the IMpb barcode, 10 to a sheet",
                          "content": {PDF: {}}}})
def batch_labels(batch_id: int):
    """Labels for the envelopes: the same self-issued article numbers as the letters and the book."""
    data = mailings.article_labels(mailings.get_batch(batch_id))
    return _pdf(data, f"mailing-{batch_id}-labels.pdf", hashlib.sha256(data).hexdigest())


@blp.route("/mailings/<int:batch_id>/return-receipts", methods=["GET"])
@access(SIGNED_IN)
@blp.response(200, ReturnReceiptOut(many=True))
def batch_return_receipts(batch_id: int):
    """What to write on each PS Form 3811: addressee, article number, service type."""
    return mailings.return_receipts(mailings.get_batch(batch_id))


def register_jobs(app) -> None:
    """The kinds of job this domain runs in the queue's worker."""
    jobs.register_kind(app, mailings.MAILING_JOB, mailings.run_mailing_job)
