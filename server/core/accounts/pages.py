"""Users: the administrator lists, adds, disables, re-enables and resets logins.

Thin routes over :mod:`server.core.accounts.service` (which checks the password policy and
audits every change), one write transaction each, with the desk's CSRF token on every
POST. A password is typed twice and never shown again: no page puts one back into a
field, and a refused form comes back with the policy's words and empty password fields.
Every route is the administrator's (its ``@access``).
"""

from __future__ import annotations

from flask import Blueprint, flash, redirect, render_template, request, url_for
from marshmallow import ValidationError
from sqlalchemy import select

from server.core.access import ADMIN, CLERK, INSPECTOR, PLUMBER, ROLES, SUPERINTENDENT, NavLink, access, pages
from server.core.accounts import service
from server.core.accounts.models import User
from server.core.accounts.users_api import UserIn
from server.core.errors import LateralError
from server.core.extensions import db
from server.core.web import csrf
from server.core.web.transaction import write_transaction

bp = Blueprint("user_pages", __name__, template_folder="templates", url_prefix="/users")
pages(bp, purpose="Users are managed by the administrator.")

#: What each role may do, as the list says it (the routes' ``@access`` decide).
ROLE_WORDS = {
    INSPECTOR: "field inspections on assigned parcels",
    SUPERINTENDENT: "assigns work, runs the rules, approves notices",
    CLERK: "mails notices, records receipts",
    ADMIN: "manages users",
    PLUMBER: "a licensed plumber on the portal (registers there; the clerk verifies the license)",
}


@bp.before_request
def _check_csrf():
    if request.method == "POST" and not csrf.matches(request.form.get("csrf_token")):
        raise csrf.stale_form()


def _me() -> User:
    from server.core.accounts.authenticate import logged_in_user

    user = logged_in_user()
    assert user is not None  # the gate let only a logged-in admin through
    return user


def _target(user_id: int) -> User:
    user = db.session.get(User, user_id)
    if user is None:
        raise LateralError("not_found", f"no user with id {user_id}")
    return user


def _list(status: int = 200, form: dict | None = None, errors: dict | None = None):
    users = db.session.scalars(select(User).order_by(User.active.desc(), User.username)).all()
    return render_template("users/users.html", users=users, roles=ROLES, role_words=ROLE_WORDS,
                           form=form or {}, errors=errors or {}, me=_me()), status


@bp.route("/")
@access(ADMIN, nav=NavLink("Users", 70))
def users_page():
    return _list()


@bp.route("/", methods=["POST"])
@access(ADMIN)
def create():
    """Add a login; the password passes the policy and is typed twice."""
    f = request.form
    form = {"username": f.get("username", "").strip(), "display_name": f.get("display_name", "").strip(),
            "role": f.get("role", "")}
    if f.get("password", "") != f.get("confirm_password", ""):
        flash("No user was added: the two passwords differ.", "error")
        return _list(422, form, {"confirm_password": "the two passwords differ"})
    try:
        data = UserIn().load({**{k: v for k, v in form.items() if v}, "password": f.get("password", "")})
    except ValidationError as exc:
        errors = {k: "; ".join(v) if isinstance(v, list) else str(v) for k, v in exc.normalized_messages().items()}
        if "username" in errors:
            errors["username"] = "2 to 80 characters: lower-case letters, digits, dot, dash or underscore"
        flash("No user was added: " + "; ".join(f"{k}: {v}" for k, v in errors.items()), "error")
        return _list(422, form, errors)
    try:
        user = write_transaction(lambda: service.create_user(
            data["username"], data["role"], data["password"], data.get("display_name"), _me()))()
    except service.AuthError as exc:
        field = "username" if exc.code == "username_taken" else "password"
        flash(f"No user was added: {exc}", "error")
        return _list(409 if exc.code == "username_taken" else 422, form, {field: str(exc)})
    flash(f"{user.display_name} ({user.username}) can now log in as {user.role}.", "ok")
    return redirect(url_for("user_pages.users_page"))


@bp.route("/<int:user_id>/active", methods=["POST"])
@access(ADMIN)
def set_active(user_id: int):
    """Disable a login (their sessions end at once) or enable it again."""
    user = _target(user_id)
    value = request.form.get("active")
    if value not in ("0", "1"):
        raise LateralError("bad_request", "active must be 0 or 1")
    try:
        write_transaction(lambda: service.update_user(user, {"active": value == "1"}, _me()))()
    except service.AuthError as exc:
        flash(f"{user.username} was not changed: {exc}", "error")
        return _list(422)
    flash(f"{user.username} {'may log in again' if user.active else 'is disabled; their sessions have ended'}.", "ok")
    return redirect(url_for("user_pages.users_page"))


@bp.route("/<int:user_id>/password")
@access(ADMIN)
def password_page(user_id: int):
    user = _target(user_id)
    if user.id == _me().id:  # one's own password is changed with the old one
        return redirect(url_for("web.account_password"))
    return render_template("users/password.html", target=user, errors={})


@bp.route("/<int:user_id>/password", methods=["POST"])
@access(ADMIN)
def reset_password(user_id: int):
    """Give a user a new password; their sessions and GIS logins end."""
    user = _target(user_id)
    if user.id == _me().id:
        return redirect(url_for("web.account_password"))
    new, again = request.form.get("new_password", ""), request.form.get("confirm_password", "")
    if new != again:
        flash("The password was not changed: the two passwords differ.", "error")
        return render_template("users/password.html", target=user,
                               errors={"confirm_password": "the two passwords differ"}), 422
    try:
        write_transaction(lambda: service.set_password(user, new, _me()))()
    except service.AuthError as exc:
        flash(f"The password was not changed: {exc}", "error")
        return render_template("users/password.html", target=user, errors={"new_password": str(exc)}), 422
    flash(f"The password of {user.username} is set; their sessions and GIS logins have ended. "
          "Give them the new password in person.", "ok")
    return redirect(url_for("user_pages.users_page"))


def init_app(app) -> None:
    app.register_blueprint(bp)
