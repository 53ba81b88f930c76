"""The portal's API under ``/api/v1/portal/``: a lookup and the notice it opened, and a
plumber's permits.

``POST /api/v1/portal/lookup`` (``code``, ``parcel_number``) answers with the notice as the
portal shows it and keeps the code holder in the session cookie; ``GET
/api/v1/portal/notice`` reads it again with that cookie. No staff route takes the cookie as
a login, nor any owner's route here a login.

A verified plumber (a token, or the session with its CSRF header) applies for a permit
(``POST /api/v1/portal/permits``, multipart with the owner's consent), reads their own
permits and asks for inspections (``/api/v1/portal/permits/<id>/inspection``); another
plumber's permit is 404.
"""

from __future__ import annotations

from flask import g, request
from flask_smorest import Blueprint
from marshmallow import Schema, fields, validate

from server.core.access import CODE_HOLDER, PLUMBERS, PUBLIC, access
from server.core.accounts.authenticate import current_user
from server.core.errors import LateralError
from server.core.web.body import load_json
from server.core.web.transaction import write_transaction
from server.portal import lookup, plumber_permits

blp = Blueprint("portal", __name__, url_prefix="/api/v1/portal", description="The owners' portal")


class LookupIn(Schema):
    code = fields.String(required=True, validate=validate.Length(max=64))
    parcel_number = fields.String(required=True, validate=validate.Length(max=64))


@blp.route("/lookup", methods=["POST"])
@access(PUBLIC)
def lookup_notice():
    """Open a notice with the code on its letter and the parcel's number (throttled)."""
    data = load_json(LookupIn())
    who = lookup.lookup(data["code"], data["parcel_number"])
    lookup.enter(who)
    return lookup.notice_view(lookup.notice_of(who))


@blp.route("/notice", methods=["GET"])
@access(CODE_HOLDER)
def notice():
    """The notice the session's code opened."""
    return lookup.notice_view(lookup.notice_of(g.caller))


# ------------------------------------------------------------------ plumbers

OWN = "their own permits (server/portal/plumber_permits.py)"


class InspectionRequestIn(Schema):
    earliest = fields.AwareDateTime(required=True, metadata={"description": "the earliest time the trench is ready"})
    contact = fields.String(required=True, validate=validate.Length(min=1, max=200),
                            metadata={"description": "who the inspector calls on site, and the phone number"})


def _plumber():
    user = current_user()
    if user is None:
        raise LateralError("unauthorized", "log in again")
    return user


@blp.route("/permits/fees", methods=["GET"])
@access(PLUMBERS)
def permit_fees():
    """Each kind of permit's fees from the rulebook (§ 315-11H), before applying."""
    return plumber_permits.fees()


@blp.route("/permits", methods=["GET"])
@access(PLUMBERS, own=OWN, own_roles=PLUMBERS)
def my_permits():
    """The calling plumber's permits, newest first (no one else's)."""
    return {"permits": [plumber_permits.view(p) for p, _parcel in plumber_permits.permits_of(_plumber())]}


@blp.route("/permits", methods=["POST"])
@access(PLUMBERS)
@blp.doc(requestBody={"required": True, "content": {"multipart/form-data": {"schema": {
    "type": "object", "required": ["parcel_number", "kind", "connection_size_in", "wastes"],
    "properties": {"parcel_number": {"type": "string"}, "kind": {"type": "string"},
                   "connection_kind": {"type": "string"}, "connection_size_in": {"type": "number"},
                   "wastes": {"type": "string"}, "work_description": {"type": "string"},
                   "plumber_is_owner": {"type": "string", "enum": ["yes", "no"]},
                   "owner_name": {"type": "string"}, "consent_signed_on": {"type": "string", "format": "date"},
                   "consent": {"type": "string", "format": "binary"},
                   "inside_limits": {"type": "string", "enum": ["yes", "no"]},
                   "connected_by_cutoff": {"type": "string", "enum": ["yes", "no"]}}}}}})
@write_transaction
def apply_for_permit():
    """Apply for a permit as the calling plumber, with the owner's signed consent (PDF, JPEG or PNG) when
    the plumber is not the owner. Refused with nothing written: an expired license, no consent, a parcel
    outside the limits."""
    permit = plumber_permits.apply_for_permit(_plumber(),
                                              plumber_permits.application_from(request.form, request.files))
    return plumber_permits.view(permit), 201


@blp.route("/permits/<int:permit_id>", methods=["GET"])
@access(PLUMBERS, own=OWN, own_roles=PLUMBERS)
def my_permit(permit_id: int):
    """One of the calling plumber's permits with its inspection results; another's is 404."""
    return plumber_permits.view(plumber_permits.permit_of(_plumber(), permit_id))


@blp.route("/permits/<int:permit_id>/inspection", methods=["POST"])
@access(PLUMBERS, own=OWN, own_roles=PLUMBERS)
@write_transaction
def request_inspection(permit_id: int):
    """Ask for the inspection before backfill, or the reinspection after a failed one."""
    data = load_json(InspectionRequestIn())
    permit = plumber_permits.request_inspection(_plumber(), permit_id, data["earliest"], data["contact"])
    return plumber_permits.view(permit)
