"""``/survey/certify``: the survey certification PDF for the Utility Commission."""

from __future__ import annotations

from flask import Blueprint, Response, redirect, request, url_for

from server.core.access import SUPERVISORS, access, pages
from server.notices.clock import today
from server.office import certification

bp = Blueprint("certify", __name__, template_folder="../templates")
pages(bp, purpose="The survey certification is the superintendent's.")


@bp.route("/survey/certify")
@access(SUPERVISORS)
def certify():
    """The certification as it stands today, signed by the logged-in superintendent."""
    from server.core.accounts.authenticate import logged_in_user

    user = logged_in_user()
    if user is None:
        return redirect(url_for("web.login", next=request.path))
    on = today()
    pdf = certification.certify(user.display_name or user.username, on)
    response = Response(pdf, mimetype="application/pdf")
    response.headers["Content-Disposition"] = f'inline; filename="survey-certification-{on.isoformat()}.pdf"'
    return response


def init_app(app) -> None:
    app.register_blueprint(bp)
