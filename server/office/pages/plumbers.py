"""Plumbers who asked for an account on the portal, for the clerk to verify each license
with the state (Wisconsin DSPS credential lookup) before the login works. Thin routes over
:mod:`server.portal.plumbers`; forms carry the session's token."""

from __future__ import annotations

from flask import Blueprint, flash, redirect, render_template, request, url_for

from server.core.access import MAILROOM, NavLink, access, pages
from server.core.accounts.authenticate import logged_in_user
from server.core.errors import LateralError
from server.core.web import csrf
from server.core.web.transaction import write_transaction
from server.portal import plumbers

bp = Blueprint("plumbers", __name__, template_folder="../templates", url_prefix="/plumbers")
pages(bp, purpose="Verifying plumbers' licenses is the clerk's.")


@bp.before_request
def _check_csrf():
    if request.method == "POST" and not csrf.matches(request.form.get("csrf_token")):
        raise csrf.stale_form()


@bp.route("/")
@access(MAILROOM, nav=NavLink("Plumbers", 35))
def waiting():
    """Registrations waiting for the clerk."""
    return render_template("plumbers/waiting.html", waiting=plumbers.waiting())


@bp.route("/<int:user_id>/verify", methods=["POST"])
@access(MAILROOM)
def verify(user_id: int):
    """The license was checked with the state: the plumber's login works from now on."""
    user = logged_in_user()
    try:
        write_transaction(lambda: plumbers.verify(user_id, user))()
    except LateralError as exc:
        flash(exc.message, "error")
    else:
        flash("Verified: the plumber can log in.", "ok")
    return redirect(url_for("plumbers.waiting"))


def init_app(app) -> None:
    app.register_blueprint(bp)
