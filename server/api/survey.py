"""The survey map's data: parcels by survey state, one parcel's panel, search, progress."""

from __future__ import annotations

from flask import Response, current_app, request
from flask_smorest import Blueprint
from marshmallow import RAISE, Schema, ValidationError, fields, validate

from server.api.auth import check_role
from server.api.features import BBox
from server.errors import invalid_fields
from server.schemas.geojson import collection_text
from server.services import survey as service

# Everyone who works the survey may look at it.
SURVEY_VIEWERS = ("inspector", "superintendent", "clerk", "admin")

blp = Blueprint("survey", __name__, url_prefix="/api/v1", description="The survey map: states, search, progress")


class SearchQuery(Schema):
    class Meta:
        unknown = RAISE

    q = fields.String(required=True, validate=validate.Length(min=1, max=100),
                      metadata={"description": "start of a parcel number, or part of a site address"})
    limit = fields.Integer(load_default=10, validate=validate.Range(min=1, max=50))


class SurveyParcelsQuery(Schema):
    class Meta:
        unknown = RAISE

    bbox = BBox(required=True, metadata={"description": "minLon,minLat,maxLon,maxLat (WGS 84)"})
    limit = fields.Integer(validate=validate.Range(min=1, max=20000))


def _load(schema: Schema) -> dict:
    try:
        return schema.load(request.args.to_dict())
    except ValidationError as exc:
        raise invalid_fields(exc.messages, prefix="query") from None


@blp.route("/search", methods=["GET"])
@blp.doc(parameters=[{"in": "query", "schema": SearchQuery}])
def search():
    """Parcels by parcel number or site address: id, number, address, owner and bbox."""
    check_role(SURVEY_VIEWERS)
    args = _load(SearchQuery())
    return {"results": service.search(args["q"], args["limit"])}


@blp.route("/survey/parcels", methods=["GET"])
@blp.doc(parameters=[{"in": "query", "schema": SurveyParcelsQuery}])
def survey_parcels():
    """Parcels in a bbox as GeoJSON with `survey_state` (see `/survey/summary` for the legend)."""
    check_role(SURVEY_VIEWERS)
    args = _load(SurveyParcelsQuery())
    features, more = service.parcels_text(args["bbox"], args.get("limit", current_app.config["LATERAL_PAGE_MAX"]))
    text = collection_text(features, [{"rel": "self", "href": request.url, "type": "application/geo+json"}])
    response = Response(text, mimetype="application/geo+json")
    response.headers["X-More-Features"] = "true" if more else "false"
    return response


@blp.route("/survey/parcels/<int:pid>", methods=["GET"])
def survey_parcel(pid: int):
    """One parcel's owner, address, survey state, findings and violations."""
    check_role(SURVEY_VIEWERS)
    return service.parcel_survey(pid)


@blp.route("/survey/summary", methods=["GET"])
def summary():
    """Survey progress: parcels by state (with legend colours), findings by source, violations by rule."""
    check_role(SURVEY_VIEWERS)
    return service.progress()


def register(api, app) -> None:
    api.register_blueprint(blp)
