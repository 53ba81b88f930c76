"""The owners' pages under ``/portal/``: the lookup form, the notice it opens, and what the
owner may do with it (appeal, proof of correction, a visit; :mod:`server.portal.actions`).

Phone first, no staff navigation, no login. Every form carries the session's token
(:mod:`server.core.web.csrf`), checked on each POST before anything else runs.
"""

from __future__ import annotations

import hmac
from datetime import date

from flask import Blueprint, Response, g, redirect, render_template, request, send_file, session, url_for

from server.core import city, mail, settings
from server.core.access import CODE_HOLDER, PUBLIC, access, pages
from server.core.errors import LateralError, status_of
from server.core.web import csrf
from server.core.web.transaction import write_transaction
from server.portal import actions, lookup, notify
from server.portal.i18n import _
from server.portal.models import PortalAction

bp = Blueprint("portal_pages", __name__, template_folder="templates", url_prefix="/portal")
pages(bp, purpose="These pages are for the owner of a property that received a notice.")


@bp.app_context_processor
def _inject_csrf():
    return {"csrf_token": csrf.csrf_token}


@bp.context_processor
def _utility():
    m = city.current().rulebook.municipality
    return {"utility": m["utility"], "phone": m["phone"], "mail_on": mail.enabled(), "max_files": actions.MAX_FILES}


@bp.before_request
def _check_csrf():
    if request.endpoint == "portal_pages.proof":
        # Photos from a phone are larger than any other form's body (LATERAL_MAX_BODY_BYTES).
        request.max_content_length = settings.current().portal_file_max_bytes * actions.MAX_FILES + 65536
    if request.method == "POST":
        sent, expected = request.form.get("csrf_token", ""), session.get("csrf_token", "")
        if not expected or not hmac.compare_digest(sent, expected):
            raise csrf.stale_form()


@bp.route("/", methods=["GET"])
@access(PUBLIC)
def start():
    """The lookup form (the letter's QR code fills in the code from the address's ``#code=``)."""
    csrf.csrf_token()
    return render_template("portal/start.html", error=None, parcel_number="")


@bp.route("/", methods=["POST"])
@access(PUBLIC)
def open_notice():
    """Check the code and parcel number; open the notice, or say what to check."""
    parcel_number = request.form.get("parcel_number", "")[:64]
    try:
        who = lookup.lookup(request.form.get("code", "")[:64], parcel_number)
    except LateralError as exc:
        if exc.code not in ("invalid_fields", "lookup_failed", "too_many_lookups"):
            raise
        return render_template("portal/start.html", error=exc.message,
                               parcel_number=parcel_number), status_of(exc.code), exc.headers or {}
    lookup.enter(who)
    return redirect(url_for("portal_pages.notice"))


@bp.route("/notice", methods=["GET"])
@access(CODE_HOLDER)
def notice():
    """The notice, as the owner reads it."""
    notice = lookup.notice_of(g.caller)
    return render_template("portal/notice.html", n=lookup.notice_view(notice), can=actions.choices(notice),
                           sent=request.args.get("sent"))


@bp.route("/notice/photos/<int:n>", methods=["GET"])
@access(CODE_HOLDER)
def photo(n: int):
    """A photo the city shares with the owner (the letter's), shrunk."""
    return send_file(lookup.shared_photo(lookup.notice_of(g.caller), n), mimetype="image/jpeg", max_age=0)


@bp.route("/leave", methods=["POST"])
@access(CODE_HOLDER)
def leave():
    """Close the notice on this device (a shared computer)."""
    lookup.leave()
    return redirect(url_for("portal_pages.start"))


# ------------------------------------------------------------------ what the owner does


def _attempt(work, template: str, **context):
    """Run ``work`` in one write transaction; a refusal re-shows the form with its words."""
    try:
        return write_transaction(work)()
    except LateralError as exc:
        if status_of(exc.code) >= 500 and exc.code != "service_unavailable":
            raise
        n = lookup.notice_view(lookup.notice_of(g.caller))
        return render_template(template, n=n, error=exc.message, form=request.form,
                               can=actions.choices(lookup.notice_of(g.caller)), **context), status_of(exc.code)


def _form_page(template: str):
    notice = lookup.notice_of(g.caller)
    return render_template(template, n=lookup.notice_view(notice), error=None, form={},
                           can=actions.choices(notice))


@bp.route("/appeal", methods=["GET"])
@access(CODE_HOLDER)
def appeal_form():
    """The § 315-21H written appeal: the facts, the fee, a way to hear back."""
    return _form_page("portal/appeal.html")


@bp.route("/appeal", methods=["POST"])
@access(CODE_HOLDER)
def appeal():
    def work():
        return actions.file_appeal(g.caller, request.form.get("facts", ""), request.form.get("fee") == "yes",
                                   request.form.get("email"))

    done = _attempt(work, "portal/appeal.html")
    if not isinstance(done, PortalAction):
        return done
    notify.received(done)
    return redirect(url_for("portal_pages.appeal_received", action_id=done.id))


@bp.route("/appeal/<int:action_id>", methods=["GET"])
@access(CODE_HOLDER)
def appeal_received(action_id: int):
    """The confirmation: what was filed, when, and what happens next."""
    action = actions.action_of(g.caller, action_id)
    return render_template("portal/appeal_received.html", r=actions.appeal_receipt(action), action=action)


@bp.route("/appeal/<int:action_id>/receipt.pdf", methods=["GET"])
@access(CODE_HOLDER)
def appeal_receipt(action_id: int):
    pdf = actions.receipt_pdf(actions.action_of(g.caller, action_id))
    return Response(pdf, mimetype="application/pdf",
                    headers={"Content-Disposition": f'attachment; filename="appeal-receipt-P-{action_id}.pdf"'})


@bp.route("/proof", methods=["GET"])
@access(CODE_HOLDER)
def proof_form():
    """Send proof the work is done: photos, the plumber's invoice, a note."""
    return _form_page("portal/proof.html")


@bp.route("/proof", methods=["POST"])
@access(CODE_HOLDER)
def proof():
    uploads = [actions.Upload(f.filename or "file", f.read(settings.current().portal_file_max_bytes + 1))
               for f in request.files.getlist("files")]

    def work():
        return actions.submit_proof(g.caller, request.form.get("note", ""), uploads, request.form.get("email"))

    done = _attempt(work, "portal/proof.html")
    if not isinstance(done, PortalAction):
        return done
    notify.received(done)
    return redirect(url_for("portal_pages.notice", sent="proof"))


@bp.route("/visit", methods=["GET"])
@access(CODE_HOLDER)
def visit_form():
    """Ask for the reinspection (or survey) visit, on the days that suit."""
    return _form_page("portal/visit.html")


@bp.route("/visit", methods=["POST"])
@access(CODE_HOLDER)
def visit():
    def work():
        days = []
        for raw in request.form.getlist("day"):
            if raw.strip():
                try:
                    days.append(date.fromisoformat(raw.strip()))
                except ValueError:
                    raise LateralError("invalid_fields", _("%(text)s is not a day", text=raw[:20]),
                                       {"fields": {"days": ["a date"]}}) from None
        return actions.ask_for_visit(g.caller, days, request.form.get("note"), request.form.get("email"))

    done = _attempt(work, "portal/visit.html")
    if not isinstance(done, PortalAction):
        return done
    notify.received(done)
    return redirect(url_for("portal_pages.notice", sent="visit"))


@bp.route("/stop/<token>", methods=["GET"])
@access(PUBLIC)
def stop_form(token: str):
    """The link in every email: a button to stop them (a mail scanner's GET changes nothing)."""
    notify.action_for_stop(token)
    return render_template("portal/stop.html", token=token, done=False)


@bp.route("/stop/<token>", methods=["POST"])
@access(PUBLIC)
def stop(token: str):
    write_transaction(lambda: notify.stop(token))()
    return render_template("portal/stop.html", token=token, done=True)
