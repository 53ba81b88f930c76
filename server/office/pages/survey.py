"""The survey map and the progress dashboard: server-rendered pages for logged-in staff."""

from __future__ import annotations

from flask import Blueprint, current_app, render_template, url_for
from sqlalchemy import func, select

from server.core import settings
from server.core.access import SIGNED_IN, NavLink, access, pages
from server.core.extensions import db
from server.network.framing import city_frame
from server.network.layers import styled_layers
from server.office import survey as service
from server.office import survey_filters
from server.permits import record as permit_record
from server.rules.models import Violation

bp = Blueprint("survey_pages", __name__, template_folder="../templates")
pages(bp)

MIN_DATA_ZOOM = 15  # below this the map asks to zoom in rather than fetch a city's parcels


@bp.route("/map")
@access(SIGNED_IN, nav=NavLink("Map", 10))
def survey_map():
    has_violations = db.session.scalar(select(func.count(Violation.id)).where(Violation.status == "open")) > 0
    config = {
        # The bulk of the city, not its extent: one stray parcel cannot blank the view.
        "frame": city_frame(),
        "basemap_url": current_app.config.get("LATERAL_BASEMAP_URL"),
        "basemap_attribution": current_app.config.get("LATERAL_BASEMAP_ATTRIBUTION", ""),
        "basemap_pmtiles": url_for("tiles.basemap") if settings.current().basemap_pmtiles else None,
        "min_zoom": MIN_DATA_ZOOM,
        "states": service.legend(),
        "violations": has_violations,
        "filters": survey_filters.options(),
        # Open permits by state (server/permits/record.py): a layer of their own, with its legend.
        "permit_states": permit_record.map_legend(),
    }
    # The legend is the layer registry's styles, as the map draws them (GET /api/v1/layers).
    legend = [layer.style for layer in styled_layers()]
    return render_template("survey/map.html", config=config, legend=legend)


@bp.route("/dashboard")
@access(SIGNED_IN, nav=NavLink("Dashboard", 20))
def dashboard():
    return render_template("survey/dashboard.html", figures=service.progress())


def init_app(app) -> None:
    app.register_blueprint(bp)
