"""The survey map's data: parcels by survey state, one parcel's panel, search, progress."""

from __future__ import annotations

from flask import Response, current_app, request, url_for
from flask_smorest import Blueprint
from marshmallow import RAISE, Schema, ValidationError, fields, validate, validates_schema

from server.core.access import SIGNED_IN, access
from server.core.accounts.authenticate import current_user
from server.core.errors import invalid_fields
from server.core.web.paging import cursor_field, next_url
from server.network.api.features import BBox
from server.network.geojson import collection_text
from server.office import survey as service
from server.office.survey_filters import SurveyFilter
from server.permits import record as permit_record

blp = Blueprint("survey", __name__, url_prefix="/api/v1", description="The survey map: states, search, progress")
# A 200 whose body no schema describes yet (it is not an error shape).
JSON_OBJECT = {"content": {"application/json": {"schema": {"type": "object"}}}}


class SearchQuery(Schema):
    class Meta:
        unknown = RAISE

    q = fields.String(required=True, validate=validate.Length(min=1, max=100),
                      metadata={"description": "start of a parcel number, or part of a site address"})
    limit = fields.Integer(load_default=10, validate=validate.Range(min=1, max=50))
    cursor = cursor_field(service.SEARCH_KEY)


class SearchHitOut(Schema):
    id = fields.Integer()
    parcel_number = fields.String()
    site_address = fields.String(allow_none=True)
    owner_name = fields.String(allow_none=True)
    bbox = fields.List(fields.Float(), metadata={"description": "the parcel's minLon, minLat, maxLon, maxLat"})


class StreetHitOut(Schema):
    name = fields.String(metadata={"description": "as addresses write it: W Jackson St"})
    block = fields.Integer(allow_none=True, metadata={
        "description": "the hundred block a house number in `q` falls in (200 for 200–299); null: the whole street"})
    bbox = fields.List(fields.Float(),
                       metadata={"description": "the street's (or block's) minLon, minLat, maxLon, maxLat"})


class SearchPageOut(Schema):
    """A page of ``GET /api/v1/search``."""

    streets = fields.List(fields.Nested(StreetHitOut), metadata={
        "description": "streets, or one block of each, whose name contains `q`'s street words (first page only)"})

    results = fields.List(fields.Nested(SearchHitOut), metadata={
        "description": "the page's parcels by site address (none first), then id"})
    next = fields.String(allow_none=True, metadata={
        "description": "the next page's URL (its `cursor`, `limit` and this page's `q`) while parcels match "
                       "after this page; null on the last page. Follow it as given"})


class StateList(fields.Field):
    """Survey state keys, comma-separated: ``notice_overdue,finding_open``."""

    def _deserialize(self, value, attr, data, **kwargs):
        keys = [k.strip() for k in str(value).split(",")]
        known = [s.key for s in service.SURVEY_STATES]
        unknown = [k for k in keys if k not in known]
        if unknown:
            raise ValidationError(f"unknown survey state {', '.join(map(repr, unknown))}; "
                                  f"one or more of {', '.join(known)}, comma-separated")
        return tuple(dict.fromkeys(keys))


class SurveyParcelsQuery(Schema):
    """The parcels layer's bbox and the map's filters; a parcel must match every filter given."""

    class Meta:
        unknown = RAISE

    bbox = BBox(required=True, metadata={"description": "minLon,minLat,maxLon,maxLat (WGS 84)"})
    limit = fields.Integer(validate=validate.Range(min=1, max=20000))
    state = StateList(metadata={"description": "survey states, comma-separated (see /survey/summary)"})
    rule = fields.String(validate=validate.Regexp(r"^[A-Z0-9][A-Z0-9-]{0,39}$",
                                                  error="a rule id such as TAP-SPACING-24IN"),
                         metadata={"description": "parcels with an open violation of this rule"})
    visited_from = fields.Date(metadata={"description": "first day (YYYY-MM-DD) of a visit: an inspection "
                                                        "finished or a clear-water finding observed"})
    visited_to = fields.Date(metadata={"description": "last day of that visit (inclusive)"})
    inspector = fields.String(validate=validate.Length(min=1, max=120),
                              metadata={"description": "who made that visit (their display name)"})

    @validates_schema
    def _range(self, data, **kwargs):
        start, end = data.get("visited_from"), data.get("visited_to")
        if start and end and start > end:
            raise ValidationError(f"the range ends ({end.isoformat()}) before it starts ({start.isoformat()})",
                                  "visited_to")

    @staticmethod
    def survey_filter(args: dict) -> SurveyFilter:
        return SurveyFilter(states=args.get("state", ()), rule=args.get("rule"),
                            visited_from=args.get("visited_from"), visited_to=args.get("visited_to"),
                            inspector=args.get("inspector"))


def _load(schema: Schema) -> dict:
    try:
        return schema.load(request.args.to_dict())
    except ValidationError as exc:
        raise invalid_fields(exc.messages, prefix="query") from None


@blp.route("/search", methods=["GET"])
@access(SIGNED_IN)  # everyone who works the survey may look at it
@blp.doc(parameters=[{"in": "query", "schema": SearchQuery}])
@blp.response(200, SearchPageOut, description="matching parcels", headers={"Link": {
    "description": "`<url>; rel=\"next\"` while parcels match after this page", "schema": {"type": "string"}}})
def search():
    """Parcels by parcel number or site address: id, number, address, owner and bbox; and streets.

    `streets` (on the first page) names the streets, or the block of each, that `q` names:
    "W Jackson St" frames the street, "200 W Jackson St" its 200 block.

    In site-address order (parcels without one first), then id. Paged: `next` (also the
    `Link` header's `rel="next"` URL, with a `cursor`) is there exactly while parcels follow.
    """
    args = _load(SearchQuery())
    results, last = service.search(args["q"], args["limit"], args.get("cursor"))
    streets = [] if args.get("cursor") else service.search_streets(args["q"])
    url = None if last is None else next_url("survey.search", last, args["limit"])
    link = {} if url is None else {"Link": f'<{url}>; rel="next"'}
    return {"results": results, "streets": streets, "next": url}, 200, link


@blp.route("/survey/parcels", methods=["GET"])
@access(SIGNED_IN)
@blp.doc(parameters=[{"in": "query", "schema": SurveyParcelsQuery}])
def survey_parcels():
    """Parcels in a bbox as GeoJSON with `survey_state` (see `/survey/summary` for the legend).

    Filters leave out the parcels that do not match: survey states, an open violation of a
    rule, a visit (inspection or finding) in a date range and/or by an inspector.
    """
    args = _load(SurveyParcelsQuery())
    features, more = service.parcels_text(args["bbox"], args.get("limit", current_app.config["LATERAL_PAGE_MAX"]),
                                          SurveyParcelsQuery.survey_filter(args))
    text = collection_text(features, [{"rel": "self", "href": request.url, "type": "application/geo+json"}])
    response = Response(text, mimetype="application/geo+json")
    response.headers["X-More-Features"] = "true" if more else "false"
    return response


@blp.route("/survey/parcels/<int:pid>", methods=["GET"])
@access(SIGNED_IN, own="the parcel's inspections: their own (server/office/survey.py)")
def survey_parcel(pid: int):
    """One parcel's owner, address, survey state, findings, violations, inspections with
    their photos (inspectors see their own), notices with their deadlines and its permits."""
    panel = service.parcel_survey(pid, current_user())
    panel["permits"] = permit_record.parcel_history(pid)
    for inspection in panel["inspections"]:
        for photo in inspection["photos"]:
            photo.update(_photo_links(photo) if photo["stored"] else {})
    return panel


def _photo_links(photo: dict) -> dict:
    """Where the photos API serves a stored photo's thumbnail and display image."""
    return {variant: url_for(f"photos.{variant}", sha256=photo["sha256"])
            for variant in ("thumbnail", "display", "original")}


@blp.route("/survey/summary", methods=["GET"])
@access(SIGNED_IN)
@blp.doc(responses={"200": {"description": "survey progress", **JSON_OBJECT}})
def summary():
    """Survey progress: parcels by state (with legend colours), findings by source, violations by
    rule, notices by state, deadlines in the next 14 days and notices past their deadline."""
    return service.progress()


def register(api, app) -> None:
    api.register_blueprint(blp)
