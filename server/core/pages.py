"""Server-rendered pages: login, logout, one's own password, the home page and the API docs page;
and what every page's header shows (the user, the nav)."""

from __future__ import annotations

from flask import (
    Blueprint,
    current_app,
    flash,
    redirect,
    render_template,
    request,
    send_from_directory,
    session,
    url_for,
)
from swagger_ui_bundle import swagger_ui_path

from server.core.access import PAGE, PUBLIC, SIGNED_IN, NavLink, access, declare, pages
from server.core.access.nav import may_open, nav_links
from server.core.accounts import authenticate as kernel_auth
from server.core.accounts import service as auth_service
from server.core.accounts.authenticate import logged_in_user
from server.core.errors import LateralError, status_of
from server.core.web import csrf
from server.core.web.next_url import local_path
from server.core.web.transaction import write_transaction

bp = Blueprint("web", __name__, template_folder="templates", static_folder="static", static_url_path="/static/web")
pages(bp)


@bp.app_context_processor
def _inject_user():
    user = logged_in_user()

    def can_open(endpoint: str) -> bool:
        """For a link shown only to those the page lets in."""
        return user is not None and may_open(current_app, user.role, endpoint)

    return {"user": user, "csrf_token": csrf.csrf_token, "demo_database": auth_service.is_demo_database(),
            "nav_links": nav_links(current_app, user.role) if user is not None else [], "can_open": can_open}


def _form_csrf_ok() -> bool:
    return csrf.matches(request.form.get("csrf_token"))


@bp.route("/")
@access(PUBLIC)
def home():
    return render_template("home.html")


@bp.route("/login", methods=["GET", "POST"])
@access(PUBLIC)
def login():
    if request.method == "POST":
        try:
            user = kernel_auth.password_login(request.form.get("username", ""), request.form.get("password", ""),
                                              may_change_password=True)
        except LateralError as exc:
            flash(exc.message, "error")
            return render_template("login.html"), status_of(exc.code), exc.headers
        kernel_auth.start_session(user)
        if auth_service.must_set_password(user):
            flash("This login still has its published password. Set a new one to go on.", "error")
            return redirect(url_for("web.account_password"))
        return redirect(local_path(request.args.get("next")) or url_for("web.home"))
    return render_template("login.html")


@bp.route("/logout", methods=["POST"])
@access(PUBLIC)
@write_transaction
def logout():
    """End this login on the server too: the user's session version moves on.

    A stale form token (a tab left open past a new login) still ends the session: it is
    the user's own, and a foreign page that forges the post can do no more than log
    them out. Answering "logged out" while the cookie kept working elsewhere would be worse.
    """
    user = logged_in_user()
    if user is not None:
        auth_service.end_sessions(user)
    session.clear()
    return redirect(url_for("web.login"))


@bp.route("/account/password", methods=["GET", "POST"])
@access(SIGNED_IN)  # one's own password
def account_password():
    """Change one's own password (the current one is asked again)."""
    user = logged_in_user()
    if user is None:
        return redirect(url_for("web.login", next=request.path))
    if request.method == "GET":
        return render_template("password.html")
    if not _form_csrf_ok():
        raise csrf.stale_form()
    form = request.form
    if form.get("new_password", "") != form.get("confirm_password", ""):
        flash("the two new passwords differ", "error")
        return render_template("password.html"), 422
    try:
        with kernel_auth.password_attempt(user.username):
            write_transaction(lambda: auth_service.set_password(
                user, form.get("new_password", ""), user, old_password=form.get("current_password", "")))()
    except LateralError as exc:  # a wrong password, a weak new one, or too many wrong ones
        flash(exc.message, "error")
        return render_template("password.html"), status_of(exc.code), exc.headers
    # The change ended every session of the user, this one included: start a fresh one.
    kernel_auth.start_session(user)
    flash("your password is changed; other browsers and GIS clients must log in again", "ok")
    return redirect(url_for("web.home"))


@bp.route("/api/v1/docs")
@access(SIGNED_IN, nav=NavLink("API", 90))
def api_docs():
    if logged_in_user() is None:
        return redirect(url_for("web.login", next=request.path))
    return render_template("api_docs.html")


@bp.route("/static/swagger-ui/<path:filename>")
@access(PUBLIC)
def swagger_static(filename: str):
    if not filename.endswith((".js", ".css", ".png")):
        raise LateralError("not_found", f"no Swagger UI file {filename!r}")
    return send_from_directory(swagger_ui_path, filename)


def init_app(app) -> None:
    app.register_blueprint(bp)
    # Static files are Flask's own views: declared by endpoint.
    declare(app, "web.static", PUBLIC)
    declare(app, "static", PUBLIC, login=PAGE)
