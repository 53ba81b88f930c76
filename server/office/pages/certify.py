"""``/survey/certify``: the superintendent issues the survey certification for the Commission.

Each certification is kept as issued (:mod:`server.office.certificates`): the page lists
them, a form issues a new one as the survey stands today, and each has a page with the
status of every parcel it lists and its stored PDF.
"""

from __future__ import annotations

from flask import Blueprint, Response, flash, redirect, render_template, request, url_for

from server.core.access import DESK, SUPERVISORS, access, pages
from server.core.errors import LateralError
from server.core.web import csrf
from server.core.web.transaction import write_transaction
from server.office import certificates

bp = Blueprint("certify", __name__, template_folder="../templates")
pages(bp, purpose="The survey certification is the superintendent's.")


@bp.before_request
def _check_csrf():
    if request.method == "POST" and not csrf.matches(request.form.get("csrf_token")):
        raise csrf.stale_form()


def _user():
    from server.core.accounts.authenticate import logged_in_user

    return logged_in_user()


@bp.route("/survey/certify")
@access(SUPERVISORS)
def certify():
    """The certifications issued, and the form that issues one as the survey stands today."""
    if _user() is None:
        return redirect(url_for("web.login", next=request.path))
    return render_template("certify/certifications.html", issued=certificates.issued(),
                           csrf_token=csrf.csrf_token)


@bp.route("/survey/certify", methods=["POST"])
@access(SUPERVISORS)
def issue():
    """Issue and keep the certification of the survey as it stands today, signed by the logged-in user."""
    user = _user()
    if user is None:
        return redirect(url_for("web.login", next=request.path))
    try:
        row = write_transaction(lambda: certificates.issue(user))()
    except LateralError as exc:
        flash(exc.message, "error")
        return redirect(url_for("certify.certify"))
    flash(f"Certification {row.id} issued and kept (SHA-256 {row.pdf_sha256[:16]}…). Print it for the Commission.",
          "ok")
    return redirect(url_for("certify.certification", certification_id=row.id))


@bp.route("/survey/certifications/<int:certification_id>")
@access(DESK)
def certification(certification_id: int):
    """One certification: its stored PDF and where each parcel it lists stands now."""
    if _user() is None:
        return redirect(url_for("web.login", next=request.path))
    cert = certificates.get(certification_id)
    return render_template("certify/certification.html", cert=cert, listed=certificates.listed_parcels(cert))


@bp.route("/survey/certifications/<int:certification_id>/certification.pdf")
@access(DESK)
def certification_pdf(certification_id: int):
    """The certification exactly as issued; its SHA-256 is the ETag and is in the audit trail."""
    cert = certificates.get(certification_id)
    response = Response(cert.pdf, mimetype="application/pdf")
    response.headers["Content-Disposition"] = (
        f'inline; filename="survey-certification-{cert.id}-{cert.certified_on.isoformat()}.pdf"')
    response.headers["ETag"] = f'"{cert.pdf_sha256}"'
    return response


def init_app(app) -> None:
    app.register_blueprint(bp)
