"""Owners' replies from the portal, for the superintendent: proofs of correction to accept
(the notice complied, the reason recorded) or answer with a reinspection, and the visits
owners asked for. Thin routes over :mod:`server.portal.actions`; forms carry the session's
token; every route is the superintendent's and the administrator's.
"""

from __future__ import annotations

from flask import Blueprint, Response, flash, redirect, render_template, request, url_for

from server.core.access import SUPERVISORS, NavLink, access, pages
from server.core.accounts.authenticate import logged_in_user
from server.core.errors import LateralError
from server.core.web import csrf
from server.core.web.transaction import write_transaction
from server.portal import actions, notify

bp = Blueprint("owner_replies", __name__, template_folder="../templates", url_prefix="/review/owners")
pages(bp, purpose="Reviewing owners' proofs of correction is the superintendent's.")


@bp.before_request
def _check_csrf():
    if request.method == "POST" and not csrf.matches(request.form.get("csrf_token")):
        raise csrf.stale_form()


@bp.route("/")
@access(SUPERVISORS, nav=NavLink("Owner replies", 52))
def queue():
    """Proofs waiting for a decision, and visits asked for."""
    waiting = actions.proofs_waiting()
    visits = actions.visits_asked()
    notices = actions.notices_of([*waiting, *visits])
    return render_template("owner_replies/queue.html", waiting=waiting, visits=visits, notices=notices,
                           files=actions.files_of([a.id for a in waiting]))


@bp.route("/<int:action_id>", methods=["POST"])
@access(SUPERVISORS)
def decide(action_id: int):
    """Accept the proof, or ask for a reinspection, with the reason."""
    user = logged_in_user()
    try:
        action = write_transaction(lambda: actions.review_proof(action_id, request.form.get("decision", ""),
                                                                request.form.get("reason", ""), user))()
    except LateralError as exc:
        flash(exc.message, "error")
    else:
        flash("Recorded." + (" The owner was told by email." if notify.reviewed(action) else ""), "ok")
    return redirect(url_for("owner_replies.queue"))


@bp.route("/files/<int:file_id>")
@access(SUPERVISORS)
def file(file_id: int):
    """A file an owner sent, shown in the browser (a photo) or downloaded (a PDF)."""
    row, stream = actions.open_file(file_id)
    with stream:
        data = stream.read()
    disposition = "inline" if row.media_type.startswith("image/") else "attachment"
    return Response(data, mimetype=row.media_type,
                    headers={"Content-Disposition": f'{disposition}; filename="file-{row.id}"'})


def init_app(app) -> None:
    app.register_blueprint(bp)
