"""The plumbers' pages under ``/portal/plumbers/``: registration (anyone), and a verified
plumber's own pages: their license and their permits, an application for a permit with the
owner's consent and the fees shown first, each permit with its inspection results and
correction orders, its card once issued, and the request for the inspection.

A plumber logs in through the staff's login form (``/login?next=/portal/plumbers/``); the
login works once the clerk has verified the license (``/plumbers/`` on the staff side).
The services are :mod:`.plumbers` and :mod:`.plumber_permits`; a permit that is not the
plumber's is the same 404 as one that does not exist.
"""

from __future__ import annotations

from datetime import date

from flask import Blueprint, Response, redirect, render_template, request, url_for

from server.core import city
from server.core.access import PLUMBERS, PUBLIC, access, pages
from server.core.accounts.authenticate import logged_in_user
from server.core.accounts.models import User
from server.core.errors import LateralError, status_of
from server.core.extensions import db
from server.core.web import csrf
from server.core.web.transaction import write_transaction
from server.network.models import Parcel
from server.permits import card
from server.permits.models import CONNECTION_KINDS, KINDS
from server.portal import plumber_notify, plumber_permits, plumbers

OWN = "their own permits (server/portal/plumber_permits.py)"

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


def _plumber() -> User:
    user = logged_in_user()
    if user is None:  # the gate let a plumber's session through; it ended since
        raise LateralError("unauthorized", "log in again")
    return user


@bp.route("/", methods=["GET"])
@access(PLUMBERS, own=OWN, own_roles=PLUMBERS)
def home():
    """A plumber's page: the license on file, whether new applications are open to them, and their permits."""
    user = _plumber()
    found = plumbers.license_of(user)
    allowed, why = plumbers.may_apply(user)
    return render_template("portal/plumber_home.html", user=user, lic=found, allowed=allowed, why=why,
                           permits=plumber_permits.permits_of(user))


def _apply_page(form: dict, error: str | None = None, fields: dict | None = None, status: int = 200):
    user = _plumber()
    allowed, why = plumbers.may_apply(user)
    return render_template("portal/plumber_apply.html", form=form, error=error, fields=fields or {},
                           allowed=allowed, why=why, fees=plumber_permits.fees(), kinds=KINDS,
                           connection_kinds=CONNECTION_KINDS, sizes=plumber_permits.connection_sizes(),
                           connected_by=plumber_permits.connected_by()), status


@bp.route("/apply", methods=["GET"])
@access(PLUMBERS)
def apply_form():
    """Apply for a permit: the parcel, the work, the connection, the wastes, the owner's consent; the fees first."""
    return _apply_page({"connection_kind": "gravity", "plumber_is_owner": "no", "inside_limits": "yes"})


@bp.route("/apply", methods=["POST"])
@access(PLUMBERS)
def apply():
    form = {k: v for k, v in request.form.items() if k != "csrf_token"}
    try:
        application = plumber_permits.application_from(request.form, request.files)
        permit = write_transaction(lambda: plumber_permits.apply_for_permit(_plumber(), application))()
    except LateralError as exc:
        if status_of(exc.code) >= 500:
            raise
        fields = {n: "; ".join(m) for n, m in ((exc.details or {}).get("fields") or {}).items()}
        return _apply_page(form, exc.message, fields, status_of(exc.code))
    return redirect(url_for("plumber_pages.permit_page", permit_id=permit.id, sent="application"))


@bp.route("/permits/<int:permit_id>", methods=["GET"])
@access(PLUMBERS, own=OWN, own_roles=PLUMBERS)
def permit_page(permit_id: int):
    """One of the plumber's permits: its state, the fees due or paid, the card once issued, the
    inspection results and correction orders, and the request for the inspection."""
    return _permit_page(permit_id)


def _permit_page(permit_id: int, error: str | None = None, status: int = 200):
    user = _plumber()
    permit = plumber_permits.permit_of(user, permit_id)
    parcel = db.session.get(Parcel, permit.parcel_id)
    return render_template("portal/plumber_permit.html", permit=permit, parcel=parcel,
                           results=plumber_permits.results(permit), scheduled_on=plumber_permits.scheduled_on(permit),
                           earliest=plumber_permits.in_city(permit.inspection_earliest),
                           consent=plumber_permits.consent_file(permit), printable=permit.state in card.PRINTABLE,
                           may_request=plumber_permits.may_request_inspection(permit), error=error,
                           sent=request.args.get("sent")), status


@bp.route("/permits/<int:permit_id>/card.pdf", methods=["GET"])
@access(PLUMBERS, own=OWN, own_roles=PLUMBERS)
def card_pdf(permit_id: int):
    """The permit card to post at the site, once the permit is issued."""
    permit = plumber_permits.permit_of(_plumber(), permit_id)
    if permit.state not in card.PRINTABLE:
        raise LateralError("not_found", "the permit card is printed once the permit is issued")
    parcel = db.session.get_one(Parcel, permit.parcel_id)
    pdf = card.render(permit, parcel, url_for("permits_pages.permit_page", permit_id=permit.id, _external=True))
    return Response(pdf, mimetype="application/pdf",
                    headers={"Content-Disposition": f'inline; filename="permit-{permit.number}.pdf"'})


@bp.route("/permits/<int:permit_id>/inspection", methods=["POST"])
@access(PLUMBERS, own=OWN, own_roles=PLUMBERS)
def request_inspection(permit_id: int):
    """Ask for the inspection before backfill (or the reinspection): the earliest time, a contact."""
    try:
        earliest = plumber_permits.earliest_from(request.form.get("earliest", ""))
        contact = request.form.get("contact", "")
        write_transaction(lambda: plumber_permits.request_inspection(_plumber(), permit_id, earliest, contact))()
    except LateralError as exc:
        if status_of(exc.code) >= 500 or exc.code == "not_found":
            raise
        return _permit_page(permit_id, exc.message, status_of(exc.code))
    return redirect(url_for("plumber_pages.permit_page", permit_id=permit_id, sent="inspection"))


@bp.route("/stop/<token>", methods=["GET"])
@access(PUBLIC)
def stop_form(token: str):
    """The link in every email to a plumber: a button to stop them (a mail scanner's GET changes nothing)."""
    plumber_notify.license_for_stop(token)
    return render_template("portal/plumber_stop.html", token=token, done=False)


@bp.route("/stop/<token>", methods=["POST"])
@access(PUBLIC)
def stop(token: str):
    write_transaction(lambda: plumber_notify.stop(token))()
    return render_template("portal/plumber_stop.html", token=token, done=True)
