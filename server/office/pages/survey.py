"""The survey map and the progress dashboard: server-rendered pages for logged-in staff."""

from __future__ import annotations

import functools

from flask import Blueprint, current_app, redirect, render_template, request, url_for
from sqlalchemy import func, select

from server.core.dialects import extent
from server.core.extensions import db
from server.network.layers import styled_layers
from server.network.models import Parcel
from server.office import survey as service
from server.office import survey_filters
from server.office.api import SURVEY_VIEWERS
from server.rules.models import Violation

bp = Blueprint("survey_pages", __name__, template_folder="../templates")

MIN_DATA_ZOOM = 15  # below this the map asks to zoom in rather than fetch a city's parcels


def staff_page(view):
    """Logged-in staff only; others go to the login form and come back."""

    @functools.wraps(view)
    def wrapper(*args, **kwargs):
        from server.core.accounts.authenticate import logged_in_user

        user = logged_in_user()
        if user is None:
            return redirect(url_for("web.login", next=request.path))
        if user.role not in SURVEY_VIEWERS:
            return render_template("survey/forbidden.html"), 403
        return view(*args, **kwargs)

    return wrapper


@bp.route("/map")
@staff_page
def survey_map():
    has_violations = db.session.scalar(select(func.count(Violation.id)).where(Violation.status == "open")) > 0
    config = {
        "extent": extent(db.session, Parcel),
        "basemap_url": current_app.config.get("LATERAL_BASEMAP_URL"),
        "basemap_attribution": current_app.config.get("LATERAL_BASEMAP_ATTRIBUTION", ""),
        "min_zoom": MIN_DATA_ZOOM,
        "states": service.legend(),
        "violations": has_violations,
        "filters": survey_filters.options(),
    }
    # The legend is the layer registry's styles, as the map draws them (GET /api/v1/layers).
    legend = [layer.style for layer in styled_layers()]
    return render_template("survey/map.html", config=config, legend=legend)


@bp.route("/dashboard")
@staff_page
def dashboard():
    return render_template("survey/dashboard.html", figures=service.progress())


def init_app(app) -> None:
    app.register_blueprint(bp)
