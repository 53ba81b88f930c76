"""Inspections, checklist templates and assignments over the API."""

from __future__ import annotations

from flask_smorest import Blueprint

from server.api.sync import query_args
from server.errors import ApiError
from server.kernel.auth import current_user, require_role
from server.kernel.body import load_json
from server.kernel.transaction import write_transaction
from server.schemas.sync import AssignmentIn, AssignmentOut, AssignmentQuery, InspectionQuery
from server.services import assignments as assignment_service
from server.services import checklists as checklist_service
from server.services import inspections as service

blp = Blueprint("inspections", __name__, url_prefix="/api/v1",
                description="Field inspections, checklist templates and assignments")
# A 200 whose body no schema describes yet (it is not an error shape).
JSON_OBJECT = {"content": {"application/json": {"schema": {"type": "object"}}}}

ASSIGNERS = ("superintendent", "admin")


@blp.route("/inspections", methods=["GET"])
@blp.doc(responses={"200": {"description": "inspections and the next_after cursor", **JSON_OBJECT}})
@blp.doc(parameters=[{"in": "query", "schema": InspectionQuery}])
def list_inspections():
    """Inspections in receipt order (inspectors: their own), filtered by parcel, inspector, template."""
    args = query_args(InspectionQuery())
    rows = service.list_inspections(viewer=current_user(), **args)
    return {"inspections": [service.inspection_out(i) for i in rows],
            "next_after": rows[-1].id if len(rows) == args["limit"] else None}


@blp.route("/inspections/<uuid>", methods=["GET"])
def get_inspection(uuid: str):
    """One inspection: answers, evaluation, photos and whether all of them arrived."""
    return service.inspection_out(service.get_inspection(uuid, current_user()))


@blp.route("/templates", methods=["GET"])
@blp.doc(responses={"200": {"description": "the current checklist templates", **JSON_OBJECT}})
def list_templates():
    """The latest version of every checklist template."""
    return {"templates": [checklist_service.template_out(t) for t in checklist_service.current_templates()]}


@blp.route("/templates/<template_id>/<int:version>", methods=["GET"])
def get_template(template_id: str, version: int):
    """One version of a template (old versions stay, as inspections point at them)."""
    row = checklist_service.get_template(template_id, version)
    if row is None:
        raise ApiError(404, "not_found", f"no checklist {template_id!r} version {version}")
    return checklist_service.template_out(row)


@blp.route("/assignments", methods=["GET"])
@blp.doc(parameters=[{"in": "query", "schema": AssignmentQuery}])
@blp.response(200, AssignmentOut(many=True))
def list_assignments():
    """Assignments (inspectors: their own)."""
    args = query_args(AssignmentQuery())
    return assignment_service.list_assignments(current_user(), args.get("status"), args.get("inspector_id"))


@blp.route("/assignments", methods=["POST"])
@blp.doc(requestBody={"content": {"application/json": {"schema": AssignmentIn}}})
@blp.response(201, AssignmentOut)
@require_role(*ASSIGNERS)
@write_transaction
def create_assignment():
    """Send an inspector to a parcel with a checklist (superintendent, admin)."""
    return assignment_service.create_assignment(load_json(AssignmentIn()), current_user()), 201
