"""Assign work: the superintendent sends inspectors to parcels from the browser.

One page (``/assign/``): a map to pick parcels (click one, draw a rectangle or polygon,
or select every parcel the filters show), a box for parcel numbers typed by hand, the
checklist, the inspector and the due date; each inspector's load; and the open
assignments, each with a form to send someone else or call it off. The forms post to
thin routes over :mod:`server.field.assignments`, one write transaction each; a
refused request is shown again with the service's words beside the field, and nothing
is written. Who may come is each route's ``@access`` (the superintendent and the
administrator); every POST carries the desk's CSRF token.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from flask import Blueprint, current_app, flash, redirect, render_template, request, url_for
from sqlalchemy import select

from server.core import city, settings
from server.core.access import SUPERVISORS, NavLink, access, pages
from server.core.accounts import service as accounts
from server.core.accounts.models import User
from server.core.errors import LateralError, status_of
from server.core.extensions import db
from server.core.web import csrf
from server.core.web.transaction import write_transaction
from server.field import assignments as service
from server.field import checklist_templates as checklists
from server.field.models import Assignment
from server.network.framing import city_frame
from server.network.models import Parcel
from server.office import survey, survey_filters

bp = Blueprint("assign", __name__, template_folder="../templates", url_prefix="/assign")
pages(bp, purpose="Assigning work to inspectors is the superintendent's (and the administrator's).")

MIN_DATA_ZOOM = 15  # as the survey map: below this the map asks to zoom in
LISTED = 500  # open assignments shown at once; the filter narrows them


@bp.before_request
def _check_csrf():
    if request.method == "POST" and not csrf.matches(request.form.get("csrf_token")):
        raise csrf.stale_form()


def _user():
    from server.core.accounts.authenticate import logged_in_user

    return logged_in_user()


def _int(value: str | None) -> int | None:
    value = (value or "").strip()
    return int(value) if value.isdigit() else None


def _date(name: str) -> date | None:
    """The form's ``name`` date, None when blank; a malformed one is a 422 for that field."""
    value = request.form.get(name, "").strip()
    if not value:
        return None
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise LateralError("invalid_fields", f"{name}: {value!r} is not a date (YYYY-MM-DD)",
                           {"fields": {name: [f"{value!r} is not a date (YYYY-MM-DD)"]}}) from None


def _field_errors(exc: LateralError) -> dict[str, str]:
    fields = (exc.details or {}).get("fields") or {}
    return {name: "; ".join(messages) for name, messages in fields.items()}


def _page(status: int = 200, form: dict | None = None, errors: dict | None = None):
    """The page; after a refused request, with what was sent and what was wrong."""
    inspector_filter = _int(request.args.get("inspector"))
    overdue_only = request.args.get("overdue") == "1"
    rows, total = service.open_rows(inspector_filter, overdue_only, LISTED)
    form = form or {}
    selected_ids = form.get("parcel_ids") or []
    selected = db.session.execute(
        select(Parcel.id, Parcel.parcel_number, Parcel.site_address).where(Parcel.id.in_(selected_ids))
        .order_by(Parcel.parcel_number)).all() if selected_ids else []
    config = {
        # The bulk of the city, not its extent: one stray parcel cannot blank the view.
        "frame": city_frame(),
        "basemap_url": current_app.config.get("LATERAL_BASEMAP_URL"),
        "basemap_attribution": current_app.config.get("LATERAL_BASEMAP_ATTRIBUTION", ""),
        "basemap_pmtiles": url_for("tiles.basemap") if settings.current().basemap_pmtiles else None,
        "min_zoom": MIN_DATA_ZOOM,
        "states": survey.legend(),
    }
    inspectors = service.assignable_inspectors()
    return render_template(
        "assign/assign.html", config=config, loads=service.inspector_loads(), rows=rows, total=total,
        inspectors=inspectors, templates=checklists.current_templates(), filters=survey_filters.options(),
        inspector_filter=inspector_filter, overdue_only=overdue_only, listed=LISTED,
        form=form, errors=errors or {}, selected=selected, keep=_kept(), today=city.current().today(),
        devices=accounts.devices(),
    ), status


@bp.route("/")
@access(SUPERVISORS, nav=NavLink("Assign", 60))
def assign_page():
    return _page()


@bp.route("/", methods=["POST"])
@access(SUPERVISORS)
def assign():
    """Send one inspector to the parcels chosen, with a checklist and a due date."""
    user = _user()
    form: dict[str, Any] = {
        "parcel_ids": [i for i in (_int(v) for v in request.form.getlist("parcel_id")) if i is not None],
        "parcel_numbers": request.form.get("parcel_numbers", ""),
        "inspector_id": _int(request.form.get("inspector_id")),
        "template_id": request.form.get("template_id", "").strip(),
        "due_on": request.form.get("due_on", "").strip(),
        "reason": request.form.get("reason", "").strip()[:500],
    }
    try:
        result = write_transaction(lambda: service.assign_parcels(
            form["parcel_ids"], re.split(r"[\s,;]+", form["parcel_numbers"]), form["inspector_id"],
            form["template_id"], _date("due_on"), form["reason"], user))()
    except LateralError as exc:
        flash(f"Nothing was assigned: {exc.message}", "error")
        return _page(status_of(exc.code), form, _field_errors(exc))
    who = a_name(result.created[0]) if result.created else "the inspector"
    due = f", due {form['due_on']}" if form["due_on"] else ""
    n = len(result.created)
    flash(f"{n} parcel{'s' if n != 1 else ''} assigned to {who} ({form['template_id']}){due}.", "ok")
    if result.already:
        listed = "; ".join(f"{number} ({name})" for number, name in result.already[:10])
        more = f" and {len(result.already) - 10} more" if len(result.already) > 10 else ""
        flash(f"{len(result.already)} already had an open {form['template_id']} assignment and were left "
              f"as they were: {listed}{more}.", "ok")
    return redirect(url_for("assign.assign_page"))


def _kept() -> dict[str, Any]:
    """The list's filter, carried through a row's form and back."""
    return {k: v for k in ("inspector", "overdue") if (v := request.args.get(k, "")).isdigit()}


def _back():
    return redirect(url_for("assign.assign_page", **_kept()))


@bp.route("/<int:assignment_id>/reassign", methods=["POST"])
@access(SUPERVISORS)
def reassign(assignment_id: int):
    """Send another inspector, or set another due date, on an open assignment."""
    user = _user()
    try:
        a = write_transaction(lambda: service.reassign(
            db.session.get(Assignment, assignment_id), _int(request.form.get("inspector_id")),
            _date("due_on"), user))()
    except LateralError as exc:
        flash(f"Assignment {assignment_id} was not changed: {exc.message}", "error")
        return _page(status_of(exc.code))
    flash(f"Assignment {a.id} now goes to {a_name(a)}"
          f"{', due ' + a.due_on.isoformat() if a.due_on else ''}.", "ok")
    return _back()


def a_name(a: Assignment) -> str:
    u = db.session.get(User, a.inspector_id)
    return (u.display_name or u.username) if u else "?"


@bp.route("/<int:assignment_id>/unassign", methods=["POST"])
@access(SUPERVISORS)
def unassign(assignment_id: int):
    """Call an open assignment off."""
    user = _user()
    try:
        a = write_transaction(lambda: service.unassign(db.session.get(Assignment, assignment_id), user))()
    except LateralError as exc:
        flash(f"Assignment {assignment_id} was not called off: {exc.message}", "error")
        return _page(status_of(exc.code))
    flash(f"Assignment {a.id} is called off; it leaves the inspector's Today list at their next sync.", "ok")
    return _back()


def init_app(app) -> None:
    app.register_blueprint(bp)
