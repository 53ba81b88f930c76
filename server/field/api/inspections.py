"""Inspections, checklist templates and assignments over the API."""

from __future__ import annotations

from flask_smorest import Blueprint

from server.core.access import SIGNED_IN, SUPERVISORS, access
from server.core.accounts.authenticate import signed_in_user
from server.core.errors import LateralError
from server.core.web.body import load_json
from server.core.web.paging import cursor_field, next_url, page_start
from server.core.web.transaction import write_transaction
from server.field import assignments as assignment_service
from server.field import checklist_templates as checklist_service
from server.field import inspections as service
from server.field.api.sync import query_args
from server.field.schemas import AssignmentIn, AssignmentOut, AssignmentQuery, InspectionPageOut, InspectionQuery

blp = Blueprint("inspections", __name__, url_prefix="/api/v1",
                description="Field inspections, checklist templates and assignments")
# A 200 whose body no schema describes yet (it is not an error shape).
JSON_OBJECT = {"content": {"application/json": {"schema": {"type": "object"}}}}

#: What an inspector sees of the inspections: their own (the service holds them to it).
OWN_INSPECTIONS = "their own inspections (server/field/inspections.py)"
# The list's query: the schema's filters, and the cursor a ``next`` link carries.
InspectionListQuery = InspectionQuery.from_dict({"cursor": cursor_field()}, name="InspectionListQuery")


@blp.route("/inspections", methods=["GET"])
@access(SIGNED_IN, own=OWN_INSPECTIONS)
@blp.doc(parameters=[{"in": "query", "schema": InspectionListQuery}])
@blp.response(200, InspectionPageOut, headers={"Link": {
    "description": "`<url>; rel=\"next\"` while inspections follow this page", "schema": {"type": "string"}}})
def list_inspections():
    """Inspections in receipt order (inspectors: their own), filtered by parcel, inspector, template.

    Paged: `next` (also the `Link` header's `rel="next"` URL, with a `cursor`) is there
    exactly while inspections follow; `after` is still taken from older clients.
    """
    args = query_args(InspectionListQuery())
    after, limit = page_start(args), args.pop("limit")
    rows, next_after = service.list_inspections(viewer=signed_in_user(), **args, limit=limit, after=after)
    url = None if next_after is None else next_url("inspections.list_inspections", next_after, limit)
    body = {"inspections": [service.inspection_out(i) for i in rows], "next": url, "next_after": next_after}
    return body, 200, ({} if url is None else {"Link": f'<{url}>; rel="next"'})


@blp.route("/inspections/<uuid>", methods=["GET"])
@access(SIGNED_IN, own=OWN_INSPECTIONS)
def get_inspection(uuid: str):
    """One inspection: answers, evaluation, photos and whether all of them arrived."""
    return service.inspection_out(service.get_inspection(uuid, signed_in_user()))


@blp.route("/templates", methods=["GET"])
@access(SIGNED_IN)
@blp.doc(responses={"200": {"description": "the current checklist templates", **JSON_OBJECT}})
def list_templates():
    """The latest version of every checklist template."""
    return {"templates": [checklist_service.template_out(t) for t in checklist_service.current_templates()]}


@blp.route("/templates/<template_id>/<int:version>", methods=["GET"])
@access(SIGNED_IN)
def get_template(template_id: str, version: int):
    """One version of a template (old versions stay, as inspections point at them)."""
    row = checklist_service.get_template(template_id, version)
    if row is None:
        raise LateralError("not_found", f"no checklist {template_id!r} version {version}")
    return checklist_service.template_out(row)


@blp.route("/assignments", methods=["GET"])
@access(SIGNED_IN, own="their own assignments (server/field/assignments.py)")
@blp.doc(parameters=[{"in": "query", "schema": AssignmentQuery}])
@blp.response(200, AssignmentOut(many=True))
def list_assignments():
    """Assignments (inspectors: their own)."""
    args = query_args(AssignmentQuery())
    return assignment_service.list_assignments(signed_in_user(), args.get("status"), args.get("inspector_id"))


@blp.route("/assignments", methods=["POST"])
@access(SUPERVISORS)
@blp.doc(requestBody={"content": {"application/json": {"schema": AssignmentIn}}})
@blp.response(201, AssignmentOut)
@write_transaction
def create_assignment():
    """Send an inspector to a parcel with a checklist (superintendent, admin)."""
    return assignment_service.create_assignment(load_json(AssignmentIn()), signed_in_user()), 201
