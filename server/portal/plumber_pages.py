"""The plumbers' pages under ``/portal/plumbers/``: registration (anyone), and a verified
plumber's own page (their license, and whether they may apply for new permits).

A plumber logs in through the staff's login form (``/login?next=/portal/plumbers/``); the
login works once the clerk has verified the license (``/plumbers/`` on the staff side).
Permit applications, inspection requests and CCTV submittals come with the permits domain.
"""

from __future__ import annotations

from datetime import date

from flask import Blueprint, render_template, request

from server.core import city
from server.core.access import PLUMBERS, PUBLIC, access, pages
from server.core.accounts.authenticate import logged_in_user
from server.core.errors import LateralError, status_of
from server.core.web import csrf
from server.core.web.transaction import write_transaction
from server.portal import plumbers

bp = Blueprint("plumber_pages", __name__, template_folder="templates", url_prefix="/portal/plumbers")
pages(bp, purpose="These pages are for licensed plumbers with an account.")


@bp.before_request
def _check_csrf():
    if request.method == "POST" and not csrf.matches(request.form.get("csrf_token")):
        raise csrf.stale_form()


@bp.context_processor
def _inject():
    m = city.current().rulebook.municipality
    return {"csrf_token": csrf.csrf_token, "utility": m["utility"], "phone": m["phone"]}


@bp.route("/register", methods=["GET"])
@access(PUBLIC)
def register_form():
    """Ask for an account: your name, your Wisconsin license and its expiry, a login."""
    return render_template("portal/plumber_register.html", form={}, error=None, done=False)


@bp.route("/register", methods=["POST"])
@access(PUBLIC)
def register():
    f = request.form

    def work():
        try:
            expires = date.fromisoformat(f.get("expires_on", ""))
        except ValueError:
            raise LateralError("invalid_fields", "the license's expiry date",
                               {"fields": {"expires_on": ["a date"]}}) from None
        return plumbers.register(plumbers.Registration(
            username=f.get("username", "")[:80], password=f.get("password", "")[:200], name=f.get("name", "")[:200],
            license_number=f.get("license_number", "")[:20], expires_on=expires, email=f.get("email", "")[:254],
            phone=f.get("phone", "")[:40], company=f.get("company", "")[:200]))

    try:
        write_transaction(work)()
    except LateralError as exc:
        if status_of(exc.code) >= 500:
            raise
        form = {k: v for k, v in f.items() if k not in ("password", "csrf_token")}
        return render_template("portal/plumber_register.html", form=form, error=exc.message,
                               done=False), status_of(exc.code)
    return render_template("portal/plumber_register.html", form={}, error=None, done=True)


@bp.route("/", methods=["GET"])
@access(PLUMBERS)
def home():
    """A plumber's page: the license on file and whether new applications are open to them."""
    user = logged_in_user()
    if user is None:  # the gate let a plumber's session through; it ended since
        raise LateralError("unauthorized", "log in again")
    found = plumbers.license_of(user)
    allowed, why = plumbers.may_apply(user)
    return render_template("portal/plumber_home.html", user=user, lic=found, allowed=allowed, why=why)
