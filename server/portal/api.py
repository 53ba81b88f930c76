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

from flask import Response, g, request, url_for
from flask_smorest import Blueprint
from marshmallow import Schema, fields, validate

from server.core.access import CODE_HOLDER, PLUMBERS, PUBLIC, access
from server.core.accounts.authenticate import current_user
from server.core.errors import LateralError
from server.core.web.body import load_json
from server.core.web.transaction import write_transaction
from server.portal import cctv, lookup, plumber_permits

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


# ------------------------------------------------------------------ plumbers' CCTV submittals

OWN_CCTV = "their own submittals (server/portal/cctv.py)"


class _Value(fields.Field):
    """A value of the report as text or a number: the same checks as the form's text
    (:func:`server.portal.lacp.check`) then name what is wrong."""

    def _deserialize(self, value, attr, data, **kwargs):
        if isinstance(value, bool) or not isinstance(value, str | int | float):
            raise self.make_error("invalid")
        return str(value)[:600]

    default_error_messages = {"invalid": "text or a number"}


class ObservationIn(Schema):
    code = _Value(load_default="", metadata={"type": "string", "description": "the NASSCO LACP/PACP condition code"})
    distance_ft = _Value(load_default="", metadata={"type": "number", "description": "feet from the cleanout, to "
                                                                                   "a tenth"})
    clock = _Value(load_default="", metadata={"type": "integer", "description": "the clock position, 1 to 12"})
    grade = _Value(load_default="", metadata={"type": "integer", "description": "the grade, 1 to 5"})
    seconds = _Value(load_default="", metadata={"type": "number", "description": "where in the video, in seconds"})
    remark = _Value(load_default="", metadata={"type": "string"})


class CctvSubmittalIn(Schema):
    parcel_number = fields.String(required=True, validate=validate.Length(max=40))
    inspected_on = fields.String(required=True, validate=validate.Length(max=20),
                                 metadata={"format": "date", "description": "the day of the camera inspection"})
    permit_number = fields.String(load_default="", validate=validate.Length(max=20),
                                  metadata={"description": "one of your permits for this parcel, if any"})
    notice_id = fields.String(load_default="", validate=validate.Length(max=12),
                              metadata={"description": "the notice of this parcel it answers, if any"})
    note = fields.String(load_default="", validate=validate.Length(max=4001))
    observations = fields.List(fields.Nested(ObservationIn), required=True,
                               validate=validate.Length(max=200),
                               metadata={"description": "the report's coded observations, at least one"})


def _cctv_view(s, parcel) -> dict:
    """A submittal as its plumber reads it: where it stands, what it recorded, the decision,
    and the certificate's address once issued."""
    plain = lambda v: v.isoformat() if v is not None else None  # noqa: E731
    certificate = cctv.certificate_of(s)
    return {
        "id": s.id, "state": s.state, "parcel_number": parcel.parcel_number, "site_address": parcel.site_address,
        "permit_number": cctv.permit_number(s), "notice_id": s.notice_id, "inspected_on": plain(s.inspected_on),
        "note": s.note, "created_at": plain(plumber_permits.in_city(s.created_at)),
        "video": ({"filename": s.video_filename, "media_type": s.video_media_type, "size": s.video_size,
                   "sha256": s.video_sha256, "received_at": plain(plumber_permits.in_city(s.received_at))}
                  if s.video_sha256 else None),
        "upload": {"endpoint": url_for("cctv_uploads.collection"), "metadata": {"submittal_id": str(s.id)}}
        if s.state == "awaiting_video" else None,
        "observations": [{"position": o.position, "code": o.code, "distance_ft": o.distance_ft, "clock": o.clock,
                          "grade": o.grade, "seconds": o.seconds, "remark": o.remark}
                         for o in cctv.observations_of(s)],
        "decision": ({"state": s.state, "on": plain(plumber_permits.in_city(s.reviewed_at)), "note": s.review_note,
                      "repair_notice_id": s.repair_notice_id} if s.reviewed_at is not None else None),
        "certificate": ({"issued_on": plain(certificate.issued_on), "sha256": certificate.sha256,
                         "url": url_for("portal.my_certificate", submittal_id=s.id)}
                        if certificate is not None else None),
    }


@blp.route("/cctv", methods=["GET"])
@access(PLUMBERS, own=OWN_CCTV, own_roles=PLUMBERS)
def my_submittals():
    """The calling plumber's CCTV submittals, newest first (no one else's)."""
    mine = cctv.of_plumber(_plumber())
    parcels = cctv.parcels_of(mine)
    return {"submittals": [_cctv_view(s, parcels[s.parcel_id]) for s in mine]}


@blp.route("/cctv", methods=["POST"])
@access(PLUMBERS)
@blp.doc(requestBody={"required": True, "content": {"application/json": {"schema": CctvSubmittalIn}}})
@write_transaction
def submit_cctv():
    """Send a CCTV inspection's report: the parcel, your permit or the notice, the coded
    observations. It then waits for its video, sent over tus to ``/api/v1/portal/cctv/uploads``
    with ``submittal_id`` in ``Upload-Metadata``. A bad value is named
    (``observations.<n>.<field>``, n from 1) and nothing is written."""
    data = load_json(CctvSubmittalIn())
    submission = cctv.Submission(parcel_number=data["parcel_number"], inspected_on=data["inspected_on"],
                                 permit_number=data["permit_number"], notice_id=data["notice_id"], note=data["note"],
                                 observations=data["observations"])
    submittal = cctv.submit(_plumber(), submission)
    return _cctv_view(submittal, cctv.parcels_of([submittal])[submittal.parcel_id]), 201


@blp.route("/cctv/<int:submittal_id>", methods=["GET"])
@access(PLUMBERS, own=OWN_CCTV, own_roles=PLUMBERS)
def my_submittal(submittal_id: int):
    """One of the calling plumber's submittals: its state, observations, decision and
    certificate; another's is 404."""
    found = cctv.own(_plumber(), submittal_id)
    return _cctv_view(found, cctv.parcels_of([found])[found.parcel_id])


@blp.route("/cctv/<int:submittal_id>/certificate.pdf", methods=["GET"])
@access(PLUMBERS, own=OWN_CCTV, own_roles=PLUMBERS)
@blp.doc(responses={"200": {"description": "the certificate", "content": {"application/pdf": {}}}})
def my_certificate(submittal_id: int):
    """The certificate of compliance of one of the calling plumber's submittals (PDF)."""
    found = cctv.certificate_of(cctv.own(_plumber(), submittal_id))
    if found is None:
        raise LateralError("not_found", "no certificate for this submittal")
    return Response(found.pdf, mimetype="application/pdf",
                    headers={"Content-Disposition": f'attachment; filename="certificate-CCTV-{submittal_id}.pdf"'})
