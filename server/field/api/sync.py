"""Field sync routes: push, pull, and the superintendent's conflicts (docs/sync.md)."""

from __future__ import annotations

from flask import current_app, request
from flask_smorest import Blueprint
from marshmallow import Schema, ValidationError

from server.core.access import FIELD, SIGNED_IN, SUPERVISORS, access
from server.core.accounts import service as accounts
from server.core.accounts.authenticate import signed_in_user
from server.core.errors import LateralError, invalid_fields
from server.core.web.body import load_json
from server.core.web.transaction import write_transaction
from server.field import sync as service
from server.field.schemas import (
    ConflictOut,
    ConflictQuery,
    DeviceOut,
    DeviceReadinessIn,
    PullOut,
    PullQuery,
    PushIn,
    PushOut,
    ResolveIn,
)

blp = Blueprint("sync", __name__, url_prefix="/api/v1/sync",
                description="Field sync: push records, pull the assigned area, resolve conflicts")


def query_args(schema: Schema) -> dict:
    """The query string loaded through ``schema`` (unknown parameters are a 422)."""
    try:
        return schema.load(request.args.to_dict())
    except ValidationError as exc:
        raise invalid_fields(exc.messages, prefix="query") from None


@blp.route("/push", methods=["POST"])
@access(FIELD, own="corrections of their own inspections; edits to network features outside "
                   "their assigned parcels are held as proposals (server/field/sync.py)")
@blp.doc(requestBody={"content": {"application/json": {"schema": PushIn}}})
@blp.response(200, PushOut)
@write_transaction
def push():
    """Push inspections and feature edits; one result per record (each stored whole or not at all)."""
    body = load_json(PushIn())
    most = current_app.config["SYNC_PUSH_MAX_RECORDS"]
    if len(body["records"]) > most:
        raise LateralError("too_many_records", f"push at most {most} records at a time",
                           {"max_records": most})
    return {"results": service.push(body["records"], signed_in_user())}


@blp.route("/pull", methods=["GET"])
@access(SIGNED_IN, own="the area of their own assignments (server/field/sync.py)")
@blp.doc(parameters=[{"in": "query", "schema": PullQuery}])
@blp.response(200, PullOut)
def pull():
    """Assignments, templates and the assigned area's features changed since the cursor."""
    args = query_args(PullQuery())
    return service.pull(signed_in_user(), args.get("cursor"), args["limit"],
                        current_app.config["SYNC_AREA_MARGIN_M"])


@blp.route("/device", methods=["POST"])
@access(FIELD, own="the report of the device whose token sends it")
@blp.doc(requestBody={"content": {"application/json": {"schema": DeviceReadinessIn}}})
@blp.response(200, DeviceOut)
@write_transaction
def device_readiness():
    """The end of a sync: can the field app open on this device without signal, and if not, why."""
    body = load_json(DeviceReadinessIn())
    header = request.headers.get("Authorization", "")
    plain = header[7:].strip() if header.startswith("Bearer ") else ""
    return accounts.report_offline_readiness(plain, body["offline_ready"], body.get("reason"))


@blp.route("/devices", methods=["GET"])
@access(SUPERVISORS)
@blp.response(200, DeviceOut(many=True))
def devices():
    """Each device's holder, last use and offline readiness as its last sync reported it."""
    return accounts.devices()


@blp.route("/conflicts", methods=["GET"])
@access(SUPERVISORS)
@blp.doc(parameters=[{"in": "query", "schema": ConflictQuery}])
@blp.response(200, ConflictOut(many=True))
def conflicts():
    """Field edits made from an old version, waiting for a decision."""
    return service.list_conflicts(query_args(ConflictQuery())["status"])


@blp.route("/conflicts/<int:conflict_id>/resolve", methods=["POST"])
@access(SUPERVISORS)
@blp.doc(requestBody={"content": {"application/json": {"schema": ResolveIn}}})
@blp.response(200, ConflictOut)
@write_transaction
def resolve(conflict_id: int):
    """Apply the held edit on top of the current feature, or discard it."""
    decision = load_json(ResolveIn())["decision"]
    return service.resolve_conflict(conflict_id, decision, signed_in_user())
