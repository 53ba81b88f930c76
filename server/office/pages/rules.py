"""The superintendent's rules pages: run the ordinance's rules, list and filter the violations,
open one with its evidence on a map, waive it with a reason, and draft notices with a preview
of each letter.

Thin routes over :mod:`server.rules.run`, :mod:`server.rules.violations`,
:mod:`server.notices.drafts` and :mod:`server.notices.letter_preview`; each write
is one transaction (:func:`server.core.web.transaction.write_transaction`) and a refused one
comes back as a flash message in the service's words, having written nothing. Forms carry
the desk's per-session token (:mod:`server.core.web.csrf`). Who may open each route is its
``@access``: the superintendent and the administrator, and waiving the superintendent alone.
"""

from __future__ import annotations

import json
import time

from flask import (
    Blueprint,
    Response,
    current_app,
    flash,
    jsonify,
    redirect,
    render_template,
    request,
    url_for,
)

from server.core.access import SUPERVISORS, NavLink, access, pages
from server.core.errors import LateralError, status_of
from server.core.extensions import db
from server.core.queue import service as jobs
from server.core.queue.models import Job
from server.core.web import csrf
from server.core.web.transaction import write_transaction
from server.notices import letter_preview
from server.notices.drafts import draft_notices
from server.notices.kinds import CLEAR_WATER_KINDS, notice_kind
from server.notices.record import get_notice
from server.office import review
from server.office.pages.filters import plural
from server.rules import run as rules_service
from server.rules import violations as violation_service

bp = Blueprint("rules_pages", __name__, template_folder="../templates", url_prefix="/rules")
pages(bp, purpose="Running the rules, the violations and drafting notices are the superintendent's.")


@bp.before_request
def _check_csrf():
    if request.method == "POST" and not csrf.matches(request.form.get("csrf_token")):
        raise csrf.stale_form()


def _user():
    from server.core.accounts.authenticate import logged_in_user

    return logged_in_user()


JSON, NDJSON = "application/json", "application/x-ndjson"


@bp.route("/")
@access(SUPERVISORS, nav=NavLink("Rules", 40))
def violations():
    """The run form and the violations, filtered by rule, state, street or parcel, and date."""
    f = review.parse_filters(request.args)
    rows, total = ([], 0) if f.errors else review.search(f)
    status = 422 if f.errors else 200
    return render_template("rules/violations.html", filters=f, rows=rows, total=total,
                           listed=review.LISTED, rule_ids=review.rule_ids(),
                           rules=violation_service.rule_registry()), status


def _outcome_sentence(counts: dict) -> str:
    return (f"Checked {counts['features']} features: {counts['found']} breaches found, "
            f"{counts['opened']} violations opened, {counts['kept']} still open, "
            f"{counts['resolved']} resolved, in {counts['seconds'].get('total', 0):.1f} s.")


@bp.route("/run", methods=["POST"])
@access(SUPERVISORS)
def run():
    """Check the whole network (or the ticked rules) in the job queue (server/core/queue/).

    The page's script asks for ``application/x-ndjson`` and reads the job's progress as it
    goes, one JSON line per stage and rule (:func:`_streamed_job`); ``application/json``
    gets the counts at the end; without the script the form posts and the page comes back
    with them. The run itself is the worker's: this request only waits for it and reads
    it. An unknown rule is refused before anything is queued.
    """
    try:
        only = rules_service.check_rule_ids(request.form.getlist("rule") or None)
    except rules_service.UnknownRule as exc:
        message = f"no rule {exc}; choose rules from the list"
        if request.accept_mimetypes.best in (JSON, NDJSON):
            raise LateralError("unknown_rule", message) from None
        flash(message, "error")
        return redirect(url_for("rules_pages.violations"))
    user = _user()
    job = jobs.submit(rules_service.JOB_KIND, {"rules": only, "user_id": getattr(user, "id", None)}, user)
    if request.accept_mimetypes.best == NDJSON:
        return _streamed_job(job.id)
    finished = _finished(job.id)
    if finished.state != "done":
        message = _failure_sentence(finished)
        if request.accept_mimetypes.best == JSON:
            raise LateralError("job_failed", message, {"job": finished.id})
        flash(message, "error")
        return redirect(url_for("rules_pages.violations"))
    counts = finished.result
    if request.accept_mimetypes.best == JSON:
        return jsonify({**counts, "message": _outcome_sentence(counts), "job": finished.id})
    flash(_outcome_sentence(counts), "ok")
    return redirect(url_for("rules_pages.violations"))


POLL_SECONDS = 0.25
WAIT_SECONDS = 3600


def _failure_sentence(job: Job) -> str:
    if job.state == "failed":
        return f"the run failed (job {job.id}); nothing was changed"
    return f"the run (job {job.id}) is still going; its result will be on this page when it ends"


def _following(job_id: int):
    """Each step job ``job_id`` tells, as it comes; then the job itself, once it is done or
    failed (or the wait ran out)."""
    deadline, sent = time.monotonic() + WAIT_SECONDS, 0
    while True:
        db.session.rollback()  # a fresh snapshot of the job's row
        job = db.session.get(Job, job_id)
        steps = jobs.progress(job_id)
        yield from (step for step in steps[sent:] if step["stage"] != "done")
        sent = len(steps)
        if job is None or job.state in ("done", "failed") or time.monotonic() > deadline:
            yield job
            return
        time.sleep(POLL_SECONDS)


def _finished(job_id: int) -> Job:
    *_, job = _following(job_id)
    return job


def _streamed_job(job_id: int) -> Response:
    """Stream what the job reports: ``{"stage": "load"}``, ``{"stage": "check", "done",
    "total", "rule"}`` before each rule, ``{"stage": "reconcile"}``, then ``{"stage": "done",
    counts, "message"}`` or ``{"stage": "error", "message"}`` (its transaction rolled back)."""
    app = current_app._get_current_object()  # type: ignore[attr-defined]

    def stream():
        with app.app_context():
            try:
                for item in _following(job_id):
                    if isinstance(item, dict):
                        yield json.dumps({"stage": item["stage"], "done": item["done"], "total": item["total"],
                                          "rule": item["detail"]}) + "\n"
                    elif item is not None and item.state == "done":
                        yield json.dumps({"stage": "done", **item.result,
                                          "message": _outcome_sentence(item.result)}) + "\n"
                    else:
                        yield json.dumps({"stage": "error", "message": _failure_sentence(item)}) + "\n"
            finally:
                db.session.remove()

    return Response(stream(), mimetype=NDJSON, headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})


@bp.route("/violations/<int:vid>")
@access(SUPERVISORS)
def violation(vid: int):
    """One violation: the map with the feature and the parcel, the measurement, the section
    cited, the inspection and its photos, the notices, and the waiver form."""
    ev = review.evidence(vid)
    user = _user()
    shapes = {"evidence": ev.evidence_shape, "parcel": ev.parcel_shape}
    return render_template("rules/violation.html", ev=ev, v=ev.violation, shapes=shapes,
                           can_waive=user is not None and user.role in violation_service.WAIVER_ROLES)


@bp.route("/violations/<int:vid>/waive", methods=["POST"])
@access(violation_service.WAIVER_ROLES)
def waive(vid: int):
    """Waive an open violation with the superintendent's reason."""
    user = _user()
    reason = request.form.get("reason", "").strip()
    back = redirect(url_for("rules_pages.violation", vid=vid))
    if user is None or user.role not in violation_service.WAIVER_ROLES:
        flash("Only the superintendent waives a violation.", "error")
        return back
    if not reason:
        flash("Give the reason for the waiver; nothing was changed.", "error")
        return back
    if len(reason) > 2000:
        flash("Keep the reason under 2,000 characters; nothing was changed.", "error")
        return back
    try:
        write_transaction(lambda: violation_service.waive(vid, reason, user))()
    except LateralError as exc:
        if status_of(exc.code) == 404:
            raise
        flash(exc.message, "error")
        return back
    flash(f"Violation {vid} is waived: {reason}", "ok")
    return back


# ---------------------------------------------------------------- notices

def _clear_water_kind(value: str | None) -> str | None:
    value = (value or "").strip()
    if not value:
        return CLEAR_WATER_KINDS[0]
    return value if value in CLEAR_WATER_KINDS else None


@bp.route("/notices")
@access(SUPERVISORS)
def drafting():
    """Open violations waiting for a notice, by parcel, to tick and draft; then the drafts,
    each with its letter's preview, and the way to the desk where they are approved."""
    kind = _clear_water_kind(request.args.get("clear_water_kind")) or CLEAR_WATER_KINDS[0]
    kinds = {k: notice_kind(k).title for k in CLEAR_WATER_KINDS}
    return render_template("rules/drafting.html", waiting=review.draftable(kind), drafts=review.draft_and_held(),
                           clear_water_kind=kind, clear_water_kinds=kinds, kind_title=_kind_title)


def _kind_title(kind: str) -> str:
    try:
        return notice_kind(kind).title
    except KeyError:
        return kind


@bp.route("/notices", methods=["POST"])
@access(SUPERVISORS)
def draft():
    """Draft notices for the ticked parcels (one per parcel and kind)."""
    back = redirect(url_for("rules_pages.drafting"))
    try:
        parcel_ids = [int(v) for v in request.form.getlist("parcel_id")]
    except ValueError:
        flash("The parcels ticked are not parcel ids; nothing was drafted.", "error")
        return back
    if not parcel_ids:
        flash("Tick at least one parcel to draft its notices; nothing was drafted.", "error")
        return back
    kind = _clear_water_kind(request.form.get("clear_water_kind"))
    if kind is None:
        flash(f"Choose a clear-water notice among {', '.join(CLEAR_WATER_KINDS)}; nothing was drafted.", "error")
        return back
    user = _user()
    try:
        notices = write_transaction(lambda: draft_notices(user, parcel_ids, clear_water_kind=kind))()
    except LateralError as exc:
        flash(exc.message, "error")
        return back
    if not notices:
        flash("Nothing to draft: the parcels ticked have no open violation without a notice.", "error")
        return back
    held = [n for n in notices if n.state == "held"]
    flash(f"Drafted {plural(len(notices), 'notice')} ({', '.join(str(n.id) for n in notices)})"
          + (f"; {len(held)} held for want of a usable mailing address" if held else "")
          + ". Preview each letter below, then approve them on the notice desk.", "ok")
    return back


@bp.route("/notices/<int:notice_id>/preview")
@access(SUPERVISORS)
def preview(notice_id: int):
    """The letter's text as it would print today, with a link to the PDF itself."""
    notice = get_notice(notice_id)
    try:
        letter = letter_preview.preview(notice)
    except LateralError as exc:
        return render_template("rules/preview.html", notice=notice, letter=None, problem=exc.message), 409
    return render_template("rules/preview.html", notice=notice, letter=letter, problem=None,
                           title=_kind_title(notice.kind))


@bp.route("/notices/<int:notice_id>/preview.pdf")
@access(SUPERVISORS)
def preview_pdf(notice_id: int):
    """The letter as the mailing would print it today (a sample article number)."""
    try:
        pdf = letter_preview.preview_pdf(get_notice(notice_id))
    except LateralError as exc:
        if status_of(exc.code) == 404:
            raise
        return Response(exc.message, status=status_of(exc.code), mimetype="text/plain")
    response = Response(pdf, mimetype="application/pdf")
    response.headers["Content-Disposition"] = f'inline; filename="notice-{notice_id}-preview.pdf"'
    response.headers["Cache-Control"] = "no-store"
    return response


def init_app(app) -> None:
    app.register_blueprint(bp)
