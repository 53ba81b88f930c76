"""The Permits page (``/permits/``) for the clerk and the superintendent.

The register by state with the fees collected (and its CSV), what is overdue, an
application taken over the counter, and each permit with its history and a form for each
step its state allows; the inspection requests with an inspector to send. The forms post
to thin routes over :mod:`server.permits.workflow` and :mod:`server.permits.inspections`,
one write transaction each; a refusal is shown with the service's words and nothing is
written. Every POST carries the desk's CSRF token.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from flask import Blueprint, Response, current_app, flash, redirect, render_template, request, url_for
from sqlalchemy import select

from server.core import city
from server.core.access import DESK, SUPERVISORS, NavLink, access, pages
from server.core.errors import LateralError, status_of
from server.core.extensions import db
from server.core.web import csrf
from server.core.web.transaction import write_transaction
from server.field import assignments
from server.network.models import Parcel
from server.permits import card, inspections, record, register, workflow
from server.permits.models import KINDS, STATES, PermitFile

bp = Blueprint("permits_pages", __name__, template_folder="templates", url_prefix="/permits")
pages(bp, purpose="Permits are the clerk's and the superintendent's (and the administrator's).")
LISTED = 50  # a page of the register; the CSV holds them all
SHORT = 20  # the oldest overdue permits and unassigned requests shown

#: The fields each step's form sends, beside ``note``.
STEP_FIELDS = {"approve": ("commission_meeting_on",), "reject": ("reason",), "pay": ("receipt_number",),
               "schedule": ("work_on", "frozen_override_reason"), "request_inspection": ("earliest", "contact"),
               "withdraw": ("reason",), "fail": (), "pass": ()}
_DATES = ("commission_meeting_on", "work_on", "owner_consent_on", "plumber_license_expires")


@bp.before_request
def _check_csrf():
    if request.method == "POST" and not csrf.matches(request.form.get("csrf_token")):
        raise csrf.stale_form()


def _user():
    from server.core.accounts.authenticate import logged_in_user

    return logged_in_user()


def _value(name: str, raw: str) -> Any:
    raw = raw.strip()
    if not raw:
        return None
    try:
        if name in _DATES:
            return date.fromisoformat(raw)
        if name == "earliest":
            moment = datetime.fromisoformat(raw)
            return moment if moment.tzinfo else moment.replace(tzinfo=city.current().time_zone)
        if name in ("parcel_id", "inspector_id", "lateral_id"):
            return int(raw)
        if name == "connection_size_in":
            return float(raw)
    except ValueError:
        raise LateralError("invalid_fields", f"{name}: {raw!r} is not valid",
                           {"fields": {name: [f"{raw!r} is not valid"]}}) from None
    return raw


@bp.route("/")
@access(DESK, nav=NavLink("Permits", 35))
def permits_page():
    state = request.args.get("state") or None
    kind = request.args.get("kind") or None
    rows = register.page(state if state in STATES else None, kind if kind in KINDS else None, LISTED)
    return render_template("permits/permits.html", rows=rows, totals=register.totals(),
                           overdue=register.overdue(limit=SHORT), states=STATES, kinds=KINDS, state=state, kind=kind,
                           listed=LISTED, requested=register.unassigned_requests(SHORT),
                           inspectors=assignments.assignable_inspectors())


@bp.route("/register.csv")
@access(DESK)
def register_csv():
    """The register as CSV (by state and kind when asked)."""
    state, kind = request.args.get("state") or None, request.args.get("kind") or None
    response = Response(register.csv_text(state if state in STATES else None, kind if kind in KINDS else None),
                        mimetype="text/csv")
    response.headers["Content-Disposition"] = 'attachment; filename="permit-register.csv"'
    return response


@bp.route("/new")
@access(DESK)
def new_page():
    return render_template("permits/new.html", kinds=KINDS, form={}, errors={})


APPLICATION_FIELDS = ("parcel_number", "kind", "applicant_name", "applicant_phone", "applicant_email",
                      "owner_consent_by", "owner_consent_on", "plumber_name", "plumber_license",
                      "plumber_license_expires", "wastes", "connection_kind", "connection_size_in", "work_description")


@bp.route("/new", methods=["POST"])
@access(workflow.APPLIERS)
def apply():
    """Take an application over the counter."""
    form = {name: request.form.get(name, "") for name in APPLICATION_FIELDS}
    try:
        data = {name: _value(name, form[name]) for name in APPLICATION_FIELDS if name != "parcel_number"}
        data = {k: v for k, v in data.items() if v is not None}
        parcel_id = db.session.scalar(select(Parcel.id).where(Parcel.parcel_number == form["parcel_number"].strip()))
        if parcel_id is None:
            raise LateralError("unknown_parcel", f"no parcel numbered {form['parcel_number'].strip()!r}",
                               {"fields": {"parcel_number": ["no parcel with this number"]}})
        for required in ("applicant_name", "plumber_name", "wastes", "connection_size_in"):
            if required not in data:
                raise LateralError("invalid_fields", f"{required}: required",
                                   {"fields": {required: ["required"]}})
        data.update(parcel_id=parcel_id, applicant_is_owner=request.form.get("applicant_is_owner") == "yes",
                    inside_limits=request.form.get("inside_limits") != "no",
                    connected_by_cutoff=request.form.get("connected_by_cutoff") == "yes",
                    plumber_license=data.get("plumber_license", ""))
        permit = write_transaction(lambda: workflow.apply(_user(), **data))()
    except LateralError as exc:
        flash(f"The application was not taken: {exc.message}", "error")
        errors = {n: "; ".join(m) for n, m in ((exc.details or {}).get("fields") or {}).items()}
        return render_template("permits/new.html", kinds=KINDS, form=form, errors=errors), status_of(exc.code)
    flash(f"Permit {permit.number} applied for.", "ok")
    return redirect(url_for("permits_pages.permit_page", permit_id=permit.id))


@bp.route("/<int:permit_id>")
@access(DESK)
def permit_page(permit_id: int):
    permit = record.get_permit(permit_id)
    parcel = db.session.get(Parcel, permit.parcel_id)
    return render_template("permits/permit.html", permit=permit, parcel=parcel, history=record.history(permit.id),
                           events=[e for e in workflow.allowed_events(permit.state) if e in STEP_FIELDS
                                   or e in ("review", "issue", "connect", "close", "expire")],
                           step_fields=STEP_FIELDS, inspectors=assignments.assignable_inspectors(),
                           conditions=card.conditions(permit), printable=permit.state in card.PRINTABLE,
                           files=record.files_of(permit.id))


@bp.route("/<int:permit_id>/files/<int:file_id>")
@access(DESK)
def permit_file(permit_id: int, file_id: int):
    """A file kept with the permit (the owner's consent a plumber attached online)."""
    row = db.session.get(PermitFile, file_id)
    store = current_app.extensions.get("lateral_blobs")
    if row is None or row.permit_id != permit_id or store is None:
        raise LateralError("not_found", f"no file {file_id} on permit {permit_id}")
    with store.open(row.sha256) as stream:
        data = stream.read()
    disposition = "inline" if row.media_type.startswith("image/") else "attachment"
    return Response(data, mimetype=row.media_type,
                    headers={"Content-Disposition": f'{disposition}; filename="consent-{permit_id}-{row.id}"'})


@bp.route("/<int:permit_id>/step/<event>", methods=["POST"])
@access(DESK)
def step(permit_id: int, event: str):
    """Take one step (the transition table decides who may, from which state)."""
    permit = record.get_permit(permit_id)
    try:
        data = {name: _value(name, request.form.get(name, "")) for name in (*STEP_FIELDS.get(event, ()), "note")}
        data = {k: v for k, v in data.items() if v is not None}
        write_transaction(lambda: workflow.step(permit, event, _user(), **data))()
    except LateralError as exc:
        flash(f"Nothing was changed: {exc.message}", "error")
        return redirect(url_for("permits_pages.permit_page", permit_id=permit_id)), 303
    flash(f"Permit {permit.number}: {event.replace('_', ' ')} recorded.", "ok")
    return redirect(url_for("permits_pages.permit_page", permit_id=permit_id))


@bp.route("/<int:permit_id>/assign", methods=["POST"])
@access(SUPERVISORS)
def assign(permit_id: int):
    """Send an inspector to a requested inspection (the superintendent's; the service checks)."""
    permit = record.get_permit(permit_id)
    try:
        inspector_id = _value("inspector_id", request.form.get("inspector_id", ""))
        write_transaction(lambda: inspections.assign(permit, inspector_id, _user()))()
    except LateralError as exc:
        flash(f"Nothing was assigned: {exc.message}", "error")
        return redirect(request.referrer or url_for("permits_pages.permits_page")), 303
    flash(f"Permit {permit.number}: the inspection is assigned.", "ok")
    return redirect(request.referrer or url_for("permits_pages.permits_page"))


@bp.route("/<int:permit_id>/card.pdf")
@access(DESK)
def card_pdf(permit_id: int):
    """The permit card to post at the site, with a QR code of the permit's URL."""
    permit = record.get_permit(permit_id)
    url = url_for("permits_pages.permit_page", permit_id=permit.id, _external=True)
    parcel = db.session.get(Parcel, permit.parcel_id)
    if parcel is None:  # parcel_id is NOT NULL with a foreign key: only a broken database
        raise LateralError("not_found", f"permit {permit.number}'s parcel is gone")
    pdf = card.render(permit, parcel, url)
    response = Response(pdf, mimetype="application/pdf")
    response.headers["Content-Disposition"] = f'inline; filename="permit-{permit.number}.pdf"'
    return response
