"""Server-rendered pages: login, the home page and the API docs page."""

from __future__ import annotations

from flask import (
    Blueprint,
    abort,
    flash,
    redirect,
    render_template,
    request,
    send_from_directory,
    session,
    url_for,
)
from swagger_ui_bundle import swagger_ui_path

from server.extensions import db
from server.models import User
from server.services import auth as auth_service
from server.web.next_url import local_path

bp = Blueprint("web", __name__, template_folder="templates", static_folder="static", static_url_path="/static/web")


def logged_in_user() -> User | None:
    uid = session.get("user_id")
    user = db.session.get(User, uid) if uid else None
    return user if user is not None and user.active else None


@bp.app_context_processor
def _inject_user():
    return {"user": logged_in_user()}


@bp.route("/")
def home():
    return render_template("home.html")


@bp.route("/login", methods=["GET", "POST"])
def login():
    if request.method == "POST":
        try:
            user = auth_service.check_login(request.form.get("username", ""), request.form.get("password", ""))
        except auth_service.AuthError as exc:
            flash(str(exc), "error")
            return render_template("login.html"), 401
        session.clear()
        session["user_id"] = user.id
        return redirect(local_path(request.args.get("next")) or url_for("web.home"))
    return render_template("login.html")


@bp.route("/logout", methods=["POST"])
def logout():
    session.clear()
    return redirect(url_for("web.login"))


@bp.route("/api/v1/docs")
def api_docs():
    if logged_in_user() is None:
        return redirect(url_for("web.login", next=request.path))
    return render_template("api_docs.html")


@bp.route("/static/swagger-ui/<path:filename>")
def swagger_static(filename: str):
    if not filename.endswith((".js", ".css", ".png")):
        abort(404)
    return send_from_directory(swagger_ui_path, filename)


def init_app(app) -> None:
    from server.web import certify, desk, field, survey

    app.register_blueprint(bp)
    field.init_app(app)
    survey.init_app(app)
    desk.init_app(app)
    certify.init_app(app)
