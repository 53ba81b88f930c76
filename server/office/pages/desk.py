"""The clerk's notice desk: server-rendered pages over the notice services.

One page lists what needs doing: drafts awaiting the superintendent's approval,
approved notices to print and mail, held notices and why, mailed notices waiting for
their return receipt, and overdue ones. A notice not yet mailed whose violations have
all been resolved since says so on a row of its own, with a Withdraw button for those
who may (:func:`server.notices.citations`). Its forms post to thin routes that
call :mod:`server.notices` / :mod:`server.notices.mailing` in one write
transaction each (:func:`server.core.web.transaction.write_transaction`); a refused
transition comes back as a flash message with the service's own words.

The session cookie is ``SameSite=Lax``; every form also carries a per-session token
(:func:`csrf_token`), checked on each POST.
"""

from __future__ import annotations

import functools
import hmac
from datetime import date
from typing import Any

from flask import Blueprint, flash, redirect, render_template, request, session, url_for

from server.core.access import DESK, MAILROOM, NavLink, access, pages
from server.core.errors import LateralError
from server.core.web import csrf
from server.core.web.transaction import write_transaction
from server.notices import clock as notice_clock
from server.notices import decisions as decision_letters
from server.notices import mailing as mailings
from server.notices import mailing_record
from server.notices.citations import citations
from server.notices.clock import rulebook
from server.notices.due_process import appeals_by_notice, steps_by_notice
from server.notices.record import get_notice, list_notices
from server.notices.service_of_notice import STEP_WORDS, awaiting_receipt, receipt_wait_days, required_steps
from server.notices.workflow import TRANSITIONS, apply_event
from server.office import certificates
from server.office import certification_receipt as survey_certifications
from server.portal.actions import online_appeals

bp = Blueprint("desk", __name__, template_folder="../templates", url_prefix="/desk")
pages(bp, purpose="The notice desk is for the clerk, the superintendent and the administrator.")

RETURN_RECEIPT_EVENTS = {"deliver": "delivered", "refuse": "refused", "unclaimed": "unclaimed"}
#: Events a desk form may send for one notice (mailing goes through a batch).
DESK_EVENTS = frozenset({"approve", "release", "withdraw", "substitute", *RETURN_RECEIPT_EVENTS})
LISTED = 500  # notices per section; a city's backlog is far smaller


def csrf_token() -> str:
    """This session's form token (:mod:`server.core.web.csrf`, made at login)."""
    return csrf.csrf_token()


@bp.app_context_processor
def _inject_csrf():
    return {"csrf_token": csrf_token}


@bp.before_request
def _check_csrf():
    if request.method == "POST":
        sent, expected = request.form.get("csrf_token", ""), session.get("csrf_token", "")
        if not expected or not hmac.compare_digest(sent, expected):
            raise csrf.stale_form()


def desk_user(view):
    """The view, given the logged-in user (the gate let only the desk's roles through)."""

    @functools.wraps(view)
    def wrapper(*args, **kwargs):
        from server.core.accounts.authenticate import logged_in_user

        user = logged_in_user()
        if user is None:
            return redirect(url_for("web.login", next=request.path))
        csrf_token()
        return view(user, *args, **kwargs)

    return wrapper


def _attempt(action) -> Any:
    """Run ``action`` in one write transaction; a refused change becomes a flash message."""
    try:
        return write_transaction(action)()
    except LateralError as exc:
        flash(exc.message, "error")
        return None


def _form_date(name: str) -> date | None:
    """The form's ``name`` date, None when blank; a malformed one is ``invalid_date``."""
    value = request.form.get(name, "").strip()
    if not value:
        return None
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise LateralError("invalid_date", f"{value!r} is not a date (YYYY-MM-DD)") from None


@bp.route("/")
@access(DESK, nav=NavLink("Notices", 30))
@desk_user
def desk(user):
    def listed(*states):
        return [n for s in states for n in list_notices(state=s, limit=LISTED)]

    drafts, approved, held = listed("draft"), listed("approved"), listed("held")
    mailed, came_back = listed("mailed"), listed("refused", "unclaimed")
    appealed, decided = listed("appealed"), listed("decided")
    today, rb = notice_clock.today(), rulebook()
    return render_template(
        "desk/desk.html",
        drafts=drafts, approved=approved, held=held, printed=mailings.printed_batches(approved),
        mailed=mailed, overdue=listed("overdue", "escalated"),
        no_receipt={n.id for n in mailed if awaiting_receipt(n, today, rb)},
        receipt_wait_days=receipt_wait_days(rb),
        came_back=[n for n in came_back if n.deadline is None], steps=steps_by_notice(came_back),
        step_words={k: STEP_WORDS[k] for k in required_steps(rb)},
        appeals=appeals_by_notice([*appealed, *decided]), appealed=appealed,
        online=online_appeals([n.id for n in appealed]),
        to_notify=[n for n in decided if _letter_due(n, appeals_by_notice([n]))],
        letter_receipts=[(n, a) for n in [*decided, *appealed] for a in appeals_by_notice([n]).get(n.id, [])
                         if a.letter_mailed_on is not None and a.letter_delivery_event is None],
        notify=survey_certifications.notify_clock(), certifications=certificates.issued(),
        cited=citations([*drafts, *approved, *held]),
        today=today, can_approve=user.role in TRANSITIONS[("draft", "approve")].roles,
        can_mail=user.role in MAILROOM,
        can_withdraw=user.role in TRANSITIONS[("approved", "withdraw")].roles,
    )


def _letter_due(notice, appeals: dict) -> bool:
    """A decision recorded whose letter has not been mailed."""
    mine = appeals.get(notice.id, [])
    return bool(mine) and mine[-1].decision is not None and mine[-1].letter_mailed_on is None


@bp.route("/survey-receipt", methods=["POST"])
@access(DESK)
@desk_user
def survey_receipt(user):
    """Record the day the Commission received an issued certification (starts SURVEY-NOTIFY-5)."""
    certification_id, received = request.form.get("certification_id", type=int), _form_date("received_on")
    if certification_id is None or received is None:
        flash("Choose the certification the Commission received and give the day it received it.", "error")
        return redirect(url_for("desk.desk"))
    row = _attempt(lambda: survey_certifications.record_receipt(certification_id, received, None, user))
    if row is not None:
        flash(f"Recorded: the Commission received the certified survey on {row.received_on}; "
              f"owners in violation are to be notified by {row.notify_by}.", "ok")
    return redirect(url_for("desk.desk"))


@bp.route("/notices/<int:notice_id>/decision-letter", methods=["POST"])
@access(DESK)
@desk_user
def decision_letter(user, notice_id: int):
    """Mail the decision letter on an appeal (clerk)."""
    notice = _attempt(lambda: decision_letters.mail_decision(get_notice(notice_id), user,
                                                             _form_date("mailed_on"),
                                                             request.form.get("signed_by")))
    if notice is not None:
        flash(f"Decision letter for notice {notice.id} ({notice.parcel_number}) mailed.", "ok")
    return redirect(url_for("desk.desk"))


@bp.route("/notices/<int:notice_id>/appeals/<int:appeal_id>/receipt", methods=["POST"])
@access(DESK)
@desk_user
def decision_receipt(user, notice_id: int, appeal_id: int):
    """Record the decision letter's return receipt: delivered, refused or unclaimed, with its date."""
    event = request.form.get("event", "")

    def action():
        notice = get_notice(notice_id)
        return decision_letters.record_letter_receipt(notice, decision_letters.get_appeal(notice, appeal_id), event,
                                                      _form_date("on"), user)

    appeal = _attempt(action)
    if appeal is not None:
        flash(f"Decision letter for notice {notice_id}: {appeal.letter_delivery_event} on "
              f"{appeal.letter_delivery_event_on}; its clocks count from {appeal.letter_served_on}.", "ok")
    return redirect(url_for("desk.desk"))


@bp.route("/notices/<int:notice_id>/<event>", methods=["POST"])
@access(DESK)
@desk_user
def notice_event(user, notice_id: int, event: str):
    """Approve, release, withdraw, or record a return receipt (delivered / refused / unclaimed)."""
    if event not in DESK_EVENTS:
        raise LateralError("not_found", f"no notice event {event!r} at the desk")

    def action():
        data: dict[str, Any] = {"on": _form_date("on")} if event in (*RETURN_RECEIPT_EVENTS, "substitute") else {}
        if event == "withdraw":
            data["note"] = request.form.get("note") or None
        if event == "substitute":
            data["step"] = request.form.get("step")
        if event == "deliver" and request.form.get("source") == "usps_tracking":
            data["source"] = "usps_tracking"
        return apply_event(get_notice(notice_id), event, user, **data)

    notice = _attempt(action)
    if notice is not None:
        flash(f"Notice {notice.id} ({notice.parcel_number}) is now {notice.state}.", "ok")
    return redirect(url_for("desk.desk"))


@bp.route("/mailings", methods=["POST"])
@access(DESK)
@desk_user
def print_mailing(user):
    """Print the ticked approved notices as one batch (letters, mailing book), then offer it
    for recording as mailed. Printing marks nothing as mailed."""
    ids = request.form.getlist("notice_id", type=int)
    if not ids:
        flash("Tick at least one approved notice to print.", "error")
        return redirect(url_for("desk.desk"))
    # A PS 3800 sticker number scanned or typed beside a letter: then one for each.
    stickers = {i: v.strip() for i in ids if (v := request.form.get(f"sticker_{i}", "")).strip()}
    batch = _attempt(lambda: mailings.print_notices(ids, user, stickers or None))
    if batch is None:
        return redirect(url_for("desk.desk"))
    flash(f"Mailing {batch.id}: {batch.pieces} {'letter' if batch.pieces == 1 else 'letters'} printed with the "
          "mailing book. Nothing is mailed yet: record it below once the letters are at the post office.", "ok")
    return redirect(url_for("desk.mailing", batch_id=batch.id))


@bp.route("/mailings/<int:batch_id>/record", methods=["POST"])
@access(DESK)
@desk_user
def record_mailing(user, batch_id: int):
    """Record a printed batch as mailed on the date given, once the clerk confirms the count."""
    counted = request.form.get("confirm_count", "").strip()
    if not counted.isdigit():
        flash("Count the letters you are taking to the post office and enter that number. Nothing was recorded.",
              "error")
        return redirect(url_for("desk.mailing", batch_id=batch_id))
    batch = _attempt(lambda: mailing_record.record_mailing(mailings.get_batch(batch_id), user,
                                                           _form_date("mailed_on"), int(counted)))
    if batch is not None:
        flash(f"Mailing {batch.id}: {batch.pieces} {'letter' if batch.pieces == 1 else 'letters'} recorded as "
              f"mailed on {batch.mailed_on}; their deadlines run.", "ok")
    return redirect(url_for("desk.mailing", batch_id=batch_id))


@bp.route("/mailings/<int:batch_id>/void", methods=["POST"])
@access(DESK)
@desk_user
def void_mailing(user, batch_id: int):
    """Void a mailing recorded by mistake, the same day, with the reason."""
    batch = _attempt(lambda: mailing_record.void_mailing(mailings.get_batch(batch_id), user,
                                                         request.form.get("reason")))
    if batch is not None:
        flash(f"Mailing {batch.id} voided: its notices are approved again and no deadline runs.", "ok")
    return redirect(url_for("desk.mailing", batch_id=batch_id))


@bp.route("/mailings/<int:batch_id>")
@access(DESK)
@desk_user
def mailing(user, batch_id: int):
    batch = mailings.get_batch(batch_id)
    recorded_today = batch.recorded_at is not None and notice_clock.city_day(batch.recorded_at) == notice_clock.today()
    return render_template("desk/mailing.html", batch=batch, notices=mailings.batch_notices(batch),
                           today=notice_clock.today(), can_mail=user.role in MAILROOM, can_void=recorded_today)


def init_app(app) -> None:
    app.register_blueprint(bp)
