"""Permits over the API: ``/api/v1/permits`` as GeoJSON features keyed on the parcel.

Routes parse, authorise and call :mod:`server.permits.workflow`; its transition table
decides who may take which step from which state (403 for the role, 409
``invalid_transition`` otherwise), and each step's route is open to the roles the table
lets take it from some state (:func:`server.permits.workflow.staff_senders`: a plumber takes
steps on the portal, on their own permits).
"""

from __future__ import annotations

import json

from flask import Response, request, url_for
from flask_smorest import Blueprint
from marshmallow import Schema, ValidationError

from server.core import settings
from server.core.access import DESK, SIGNED_IN, SUPERVISORS, access
from server.core.accounts.authenticate import current_user
from server.core.errors import invalid_fields
from server.core.web.body import load_json
from server.core.web.paging import cursor_field, next_url, page_start
from server.core.web.transaction import write_transaction
from server.network.geojson import FeatureCollectionOut, FeatureOut, json_default
from server.permits import attachments, collection, inspections, record, workflow
from server.permits.schemas import (
    PERSONAL,
    ApproveIn,
    AssignIn,
    InspectionRequestIn,
    PayIn,
    PermitIn,
    PermitQuery,
    ResultIn,
    ScheduleIn,
    StepIn,
)

GEOJSON = "application/geo+json"

blp = Blueprint("permits", __name__, url_prefix="/api/v1",
                description="Permits for connections, lateral repairs, taps, street excavations and abandonment")
PermitListQuery = PermitQuery.from_dict({"cursor": cursor_field()}, name="PermitListQuery")


def _for_caller(body: dict) -> dict:
    """The owners' personal data only for the office (as the OGC collection serves it,
    :mod:`server.permits.collection`): an inspector's tablet or map gets each permit without it."""
    if getattr(current_user(), "role", None) in collection.VIEWERS:
        return body
    for feature in body.get("features", [body]):
        props = feature.get("properties") or {}
        for name in PERSONAL:
            props.pop(name, None)
        for step in props.get("history") or []:
            if isinstance(step.get("data"), dict):
                step["data"].pop("contact", None)
    return body


def _geojson(body: dict, status: int = 200, headers: dict | None = None) -> Response:
    response = Response(json.dumps(_for_caller(body), default=json_default), status=status, mimetype=GEOJSON)
    response.headers.update(headers or {})
    return response


def _body(schema: Schema) -> dict:
    """The JSON body through ``schema``; an empty body is an empty object."""
    if request.get_data():
        return load_json(schema)
    try:
        return schema.load({})
    except ValidationError as exc:
        raise invalid_fields(exc.messages) from None


@blp.route("/permits", methods=["GET"])
@access(SIGNED_IN)
@blp.doc(parameters=[{"in": "query", "schema": PermitListQuery}],
         responses={200: {"description": "a FeatureCollection page; each geometry is the permit's parcel",
                          "content": {GEOJSON: {"schema": FeatureCollectionOut}}}})
def list_permits():
    """Permits by state, kind, plumber (license number or name) or parcel, in id order; paged."""
    try:
        args = PermitListQuery().load(request.args.to_dict())
    except ValidationError as exc:
        raise invalid_fields(exc.messages, prefix="query") from None
    after, limit = page_start(args), args.pop("limit")
    page = record.list_permits(**args, after=after, limit=limit)
    links = [{"rel": "self", "href": request.url, "type": GEOJSON}]
    headers = {}
    if page.next_after is not None:
        links.append({"rel": "next", "href": next_url("permits.list_permits", page.next_after, limit),
                      "type": GEOJSON})
        headers["Link"] = f'<{links[-1]["href"]}>; rel="next"'
    return _geojson({"type": "FeatureCollection", "numberReturned": len(page.features), "links": links,
                     "features": page.features}, headers=headers)


@blp.route("/permits", methods=["POST"])
@access(workflow.APPLIERS)
@blp.doc(requestBody={"required": True, "content": {"application/json": {"schema": PermitIn}}},
         responses={201: {"description": "the permit, applied", "content": {GEOJSON: {"schema": FeatureOut}}}})
@write_transaction
def apply():
    """Take an application (clerk, superintendent, admin). Refused with nothing written: a plumber
    unlicensed or expired, the owner's consent missing, a parcel outside the corporate limits."""
    permit = workflow.apply(current_user(), **load_json(PermitIn()))
    return _geojson(record.feature(permit), 201,
                    {"Location": url_for("permits.get_permit", permit_id=permit.id, _external=True)})


@blp.route("/permits/<int:permit_id>", methods=["GET"])
@access(SIGNED_IN)
@blp.doc(responses={200: {"description": "the permit with its dated history",
                          "content": {GEOJSON: {"schema": FeatureOut}}}})
def get_permit(permit_id: int):
    """One permit, with each step dated on the city's calendar."""
    return _geojson(record.feature(record.get_permit(permit_id)))


def _step_route(event: str, schema: type[Schema], doc: str):
    @write_transaction
    def view(permit_id: int):
        data = _body(schema())
        permit = workflow.step(record.get_permit(permit_id), event, current_user(), **data)
        return _geojson(record.feature(permit))

    view.__name__ = f"permit_{event}"
    view.__doc__ = doc
    blp.route(f"/permits/<int:permit_id>/{event}", methods=["POST"], endpoint=view.__name__)(
        access(workflow.staff_senders(event))(
            blp.doc(requestBody={"required": False, "content": {"application/json": {"schema": schema}}},
                    responses={200: {"description": "the permit after the step",
                                     "content": {GEOJSON: {"schema": FeatureOut}}}})(view)))


for _event, _schema, _doc in (
    ("review", StepIn, "Take an application under review (clerk, superintendent, admin)."),
    ("approve", ApproveIn, "Record the approval (§ 315-11E(3)): the Commission's meeting date (clerk), or the "
                           "superintendent's approval under the Commission's delegation."),
    ("reject", StepIn, "Reject an application with the `reason` (§ 315-11E(3))."),
    ("pay", PayIn, "Record the payment of the permit's fees (Clerk-Treasurer)."),
    ("issue", StepIn, "Issue a paid permit (409 `not_paid` before)."),
    ("schedule", ScheduleIn, "Set the day of the work; a street opening for a tap in frozen ground is refused "
                             "(TAP-FROZEN) unless the superintendent overrides it with a reason."),
    ("pass", ResultIn, "Record a passed inspection (inspector, superintendent)."),
    ("fail", ResultIn, "Record a failed inspection with its `corrections` (section and measured value)."),
    ("connect", StepIn, "Record the connection made under supervision (CONNECT-SUPERVISED, § 315-13E)."),
    ("close", StepIn, "Close a permit whose work is done."),
    ("expire", StepIn, "Record that an approved or issued permit lapsed unused."),
    ("withdraw", StepIn, "Withdraw an application or an unused permit, with the `reason`."),
):
    _step_route(_event, _schema, _doc)


@blp.route("/permits/<int:permit_id>/request_inspection", methods=["POST"])
@access(workflow.staff_senders("request_inspection"))
@blp.doc(requestBody={"required": True, "content": {"application/json": {"schema": InspectionRequestIn}}},
         responses={200: {"description": "the permit, its inspection requested",
                          "content": {GEOJSON: {"schema": FeatureOut}}}})
@write_transaction
def request_inspection(permit_id: int):
    """The holder's request for the inspection before backfill (LATERAL-INSPECT, § 315-13C(2)): the
    earliest time and a contact; with `inspector_id`, assigned at once."""
    data = load_json(InspectionRequestIn())
    permit = inspections.request(record.get_permit(permit_id), current_user(), **data)
    return _geojson(record.feature(permit))


@blp.route("/permits/<int:permit_id>/assign", methods=["POST"])
@access(SUPERVISORS)
@blp.doc(requestBody={"required": True, "content": {"application/json": {"schema": AssignIn}}},
         responses={200: {"description": "the permit with its inspection's assignment",
                          "content": {GEOJSON: {"schema": FeatureOut}}}})
@write_transaction
def assign_inspection(permit_id: int):
    """Send an inspector to a requested inspection before backfill, with the permit's checklist."""
    permit = record.get_permit(permit_id)
    inspections.assign(permit, load_json(AssignIn())["inspector_id"], current_user())
    return _geojson(record.feature(permit))


# ------------------------------------------------------------------ scanned forms

ATTACHMENT_OUT = {"type": "object", "properties": {
    "id": {"type": "integer"}, "filename": {"type": "string"}, "media_type": {"type": "string"},
    "size": {"type": "integer"}, "sha256": {"type": "string"}, "description": {"type": "string", "nullable": True},
    "attached_at": {"type": "string", "format": "date-time"}, "attached_by_id": {"type": "integer", "nullable": True}}}


def upload_limit() -> int:
    """A request of scanned forms may carry every file at its largest, and the form's fields."""
    return settings.current().permit_file_max_bytes * attachments.MAX_FILES + 65536


@blp.before_request
def _scan_sized_bodies():
    if request.endpoint == "permits.attach":
        request.max_content_length = upload_limit()


@blp.route("/permits/<int:permit_id>/attachments", methods=["POST"])
@access(DESK)
@blp.doc(requestBody={"required": True, "content": {"multipart/form-data": {"schema": {
    "type": "object", "properties": {
        "files": {"type": "array", "items": {"type": "string", "format": "binary"},
                  "description": "1 to 10 scanned forms: PDF, JPEG or PNG, each at most PERMIT_FILE_MAX_BYTES"},
        "description": {"type": "string", "maxLength": 200}}}}}},
         responses={201: {"description": "the files kept, in the order sent",
                          "content": {"application/json": {"schema": {"type": "array", "items": ATTACHMENT_OUT}}}}})
@write_transaction
def attach(permit_id: int):
    """Attach scanned forms to a permit (clerk, superintendent, admin). Each file is checked by
    its content and size, an image decoded in the photos' sandbox; one refused file keeps none."""
    permit = record.get_permit(permit_id)
    uploads = [attachments.Upload(f.filename or "", f.read()) for f in request.files.getlist("files")]
    rows = attachments.attach(permit, uploads, current_user(), request.form.get("description"))
    return [attachments.out(r) for r in rows], 201


@blp.route("/permits/<int:permit_id>/attachments", methods=["GET"])
@access(DESK)
@blp.doc(responses={200: {"description": "the permit's scanned forms, oldest first",
                          "content": {"application/json": {"schema": {"type": "array", "items": ATTACHMENT_OUT}}}}})
def list_attachments(permit_id: int):
    """A permit's scanned forms (the office's: they carry the owner's signature)."""
    record.get_permit(permit_id)
    return [attachments.out(r) for r in attachments.of_permit(permit_id)]


@blp.route("/permits/<int:permit_id>/attachments/<int:attachment_id>", methods=["GET"])
@access(DESK)
@blp.doc(responses={200: {"description": "the file as attached, byte for byte",
                          "content": {t: {"schema": {"type": "string", "format": "binary"}}
                                      for t in ("application/pdf", "image/jpeg", "image/png")}}})
def download_attachment(permit_id: int, attachment_id: int):
    """One scanned form, as attached."""
    return send_attachment(permit_id, attachment_id)


EXTENSIONS = {"application/pdf": ".pdf", "image/jpeg": ".jpg", "image/png": ".png"}


def send_attachment(permit_id: int, attachment_id: int) -> Response:
    """A scanned form as its stored bytes: an image shown, a PDF downloaded; never sniffed."""
    row, stream = attachments.open_attachment(permit_id, attachment_id)
    with stream:
        data = stream.read()
    disposition = "inline" if row.media_type.startswith("image/") else "attachment"
    response = Response(data, mimetype=row.media_type)
    name = f"permit-{permit_id}-file-{row.id}{EXTENSIONS[row.media_type]}"
    response.headers["Content-Disposition"] = f'{disposition}; filename="{name}"'
    response.headers["Cache-Control"] = "private, no-store"
    return response
