"""The superintendent's review: finished inspections with their photos and result, and the
sync queue of held field edits (stale versions and proposals) to accept or reject.

Thin routes over :mod:`server.office.review` (reads) and
:func:`server.field.sync.resolve_conflict` (the decision, one write transaction).
Forms carry the desk's per-session token; every route is the superintendent's and the
administrator's (its ``@access``).
"""

from __future__ import annotations

from flask import Blueprint, flash, redirect, render_template, request, url_for

from server.core.access import SUPERVISORS, NavLink, access, pages
from server.core.errors import LateralError, status_of
from server.core.web import csrf
from server.core.web.transaction import write_transaction
from server.field import sync as sync_service
from server.field.models import RESULTS
from server.office import review

bp = Blueprint("review", __name__, template_folder="../templates", url_prefix="/review")
pages(bp, purpose="Reviewing inspections and the sync queue is the superintendent's.")

#: The page's words for the service's decisions.
DECISIONS = {"accept": "apply", "reject": "discard"}


@bp.before_request
def _check_csrf():
    if request.method == "POST" and not csrf.matches(request.form.get("csrf_token")):
        raise csrf.stale_form()


@bp.route("/")
@access(SUPERVISORS, nav=NavLink("Review", 50))
def review_page():
    """Finished inspections (all, passed or failed) and the open sync queue."""
    result = request.args.get("result", "").strip()
    status = 200
    if result and result not in RESULTS:
        flash(f"{result!r} is not a result; showing every inspection.", "error")
        result, status = "", 422
    return render_template("review/review.html", inspections=review.finished_inspections(result or None),
                           result=result, queue=review.open_conflicts()), status


@bp.route("/conflicts/<int:conflict_id>", methods=["POST"])
@access(SUPERVISORS)
def decide(conflict_id: int):
    """Accept (apply on top of the feature as it is now) or reject a held field edit."""
    from server.core.accounts.authenticate import logged_in_user

    decision = DECISIONS.get(request.form.get("decision", ""))
    back = redirect(url_for("review.review_page") + "#queue")
    if decision is None:
        flash("Choose Accept or Reject; nothing was changed.", "error")
        return back
    user = logged_in_user()
    if user is None:  # the gate sends a visitor to the login form first
        raise LateralError("unauthorized", "log in to decide on a held edit")
    try:
        conflict = write_transaction(lambda: sync_service.resolve_conflict(conflict_id, decision, user))()
    except LateralError as exc:
        if status_of(exc.code) == 404:
            raise
        flash(exc.message, "error")
        return back
    words = "accepted and applied" if conflict.status == "applied" else "rejected"
    flash(f"Edit {conflict.id} to {conflict.layer} {conflict.feature_id} is {words}.", "ok")
    return back


def init_app(app) -> None:
    app.register_blueprint(bp)
