"""The ordinance rules engine over the API: run it, list what it found, waive a finding.

Saves of network features are checked as they happen (the feature API's write hook,
registered here); these routes are for the whole network and the violations it keeps.
"""

from __future__ import annotations

import functools

from flask import Response, current_app, request, url_for
from flask_smorest import Blueprint
from marshmallow import ValidationError, fields, validate

from server.core.access import SIGNED_IN, SUPERVISORS, access
from server.core.accounts.authenticate import current_user
from server.core.errors import invalid_fields
from server.core.queue import service as jobs
from server.core.queue.schemas import JobOut
from server.core.web.body import load_json
from server.core.web.paging import cursor_field, page_start
from server.core.web.transaction import write_transaction
from server.network import features as features_service
from server.network.api.features import GEOJSON, BBox, page_response
from server.network.geojson import FeatureCollectionOut, FeatureOut
from server.network.layers import LAYERS
from server.rules import run as rules_service
from server.rules import violations as service
from server.rules.schemas import RuleOut, RunIn, ViolationQuery, WaiverIn

blp = Blueprint("rules", __name__, url_prefix="/api/v1", description="Ordinance rules and the violations they find")


@functools.lru_cache(maxsize=4)
def _query_schema(page_max: int) -> type:
    return ViolationQuery.from_dict({
        "bbox": BBox(metadata={"description": "evidence intersects minLon,minLat,maxLon,maxLat (WGS 84)"}),
        "limit": fields.Integer(validate=validate.Range(min=1, max=page_max)),
        "cursor": cursor_field(),
        "after": fields.Integer(metadata={
            "description": "the id after which the page starts (older clients; the `next` link carries `cursor`)"}),
    }, name="ViolationListQuery")


@blp.route("/rules", methods=["GET"])
@access(SIGNED_IN)
@blp.response(200, RuleOut(many=True))
def list_rules():
    """The registered field rules: id, section cited, statement and the rulebook's parameters."""
    return service.rule_registry()


@blp.route("/rules/run", methods=["POST"])
@access(SUPERVISORS)
@blp.doc(requestBody={"required": False, "content": {"application/json": {"schema": RunIn}}})
@blp.response(202, JobOut)
def run():
    """Check the whole network (superintendent, admin) in the job queue: the job, whose
    ``result`` holds the counts opened, kept and resolved once it is ``done``
    (``GET /api/v1/jobs/<id>``, the ``Location`` header)."""
    args = load_json(RunIn()) if request.get_data() else {}
    try:
        rules = rules_service.check_rule_ids(args.get("rules"))
    except rules_service.UnknownRule as exc:
        raise invalid_fields({"rules": [str(exc)]}) from None
    user = current_user()
    job = jobs.submit(rules_service.JOB_KIND, {"rules": rules, "user_id": getattr(user, "id", None)}, user)
    return jobs.view(job), 202, {"Location": url_for("jobs.get_job", job_id=job.id)}


@blp.route("/violations", methods=["GET"])
@access(SIGNED_IN)
@blp.doc(parameters=[{"in": "query", "schema": _query_schema(5000)}],
         responses={200: {"description": "a FeatureCollection page; geometry is the evidence",
                          "content": {GEOJSON: {"schema": FeatureCollectionOut}}}})
def list_violations():
    """Violations as GeoJSON, filtered by status, rule, parcel, subject or bbox; paged."""
    page_default = current_app.config["LATERAL_PAGE_DEFAULT"]
    schema = _query_schema(current_app.config["LATERAL_PAGE_MAX"])
    try:
        args = schema().load(request.args.to_dict())
    except ValidationError as exc:
        raise invalid_fields(exc.messages, prefix="query") from None
    limit = args.pop("limit", page_default)
    after, bbox = page_start(args), args.pop("bbox", None)
    page = service.list_violations(bbox=bbox, filters=args, limit=limit, after=after)
    return page_response(page, "rules.list_violations", limit)


@blp.route("/violations/<int:vid>", methods=["GET"])
@access(SIGNED_IN)
@blp.doc(responses={200: {"description": "one violation; ETag carries its version",
                          "content": {GEOJSON: {"schema": FeatureOut}}}})
def get_violation(vid: int):
    """One violation as a GeoJSON Feature."""
    text, version = service.violation_text(vid)
    return _feature(text, version)


@blp.route("/violations/<int:vid>/waive", methods=["POST"])
@access(service.WAIVER_ROLES)
@blp.doc(requestBody={"content": {"application/json": {"schema": WaiverIn}}},
         responses={200: {"description": "the waived violation", "content": {GEOJSON: {"schema": FeatureOut}}}})
@write_transaction
def waive(vid: int):
    """Waive an open violation (superintendent only; a reason is required)."""
    body = load_json(WaiverIn())
    text, version = service.waive(vid, body["reason"], current_user())
    return _feature(text, version)


def _feature(text: str, version: int) -> Response:
    response = Response(text, mimetype=GEOJSON)
    response.set_etag(str(version))
    return response


def register(api, app) -> None:
    """The blueprint, and the check of every saved network feature."""
    api.register_blueprint(blp)
    checked = [layer.name for layer in LAYERS.values() if layer.checked_on_save]
    features_service.add_write_hook(app, checked, rules_service.violations_on_save)
    jobs.register_kind(app, rules_service.JOB_KIND, rules_service.run_job)

