"""Wire contracts of permits: an application, each step's fields, the list's query and
the permit as a GeoJSON feature keyed on its parcel."""

from __future__ import annotations

from marshmallow import RAISE, Schema, fields, validate

from server.network.api.features import BBox
from server.permits.models import CONNECTION_KINDS, KINDS, STATES

_NAME = validate.Length(min=1, max=200)
_TEXT = validate.Length(max=4000)


class Strict(Schema):
    class Meta:
        unknown = RAISE


class PermitIn(Strict):
    """An application (§ 315-11E(1)), as the clerk takes it over the counter or a plumber sends it."""

    parcel_id = fields.Integer(required=True, validate=validate.Range(min=1))
    kind = fields.String(required=True, validate=validate.OneOf(KINDS))
    lateral_id = fields.Integer(validate=validate.Range(min=1), metadata={
        "description": "the lateral repaired or abandoned, where there is one"})
    applicant_name = fields.String(required=True, validate=_NAME)
    applicant_phone = fields.String(validate=validate.Length(max=40))
    applicant_email = fields.Email(validate=validate.Length(max=200))
    applicant_is_owner = fields.Boolean(load_default=True)
    owner_consent_by = fields.String(validate=_NAME, metadata={
        "description": "the owner who signed the written consent (required when the applicant is not the owner)"})
    owner_consent_on = fields.Date(metadata={"description": "the day the owner signed it"})
    plumber_name = fields.String(required=True, validate=_NAME)
    plumber_license = fields.String(required=True, validate=validate.Length(max=20), metadata={
        "description": "the plumber's Wisconsin license (credential) number (§ 315-11B)"})
    plumber_license_expires = fields.Date(required=True)
    wastes = fields.String(required=True, validate=validate.Length(min=1, max=4000), metadata={
        "description": "the wastes to be discharged (§ 315-11E(1))"})
    connection_kind = fields.String(load_default="gravity", validate=validate.OneOf(CONNECTION_KINDS))
    connection_size_in = fields.Float(required=True, validate=validate.Range(min=1, max=24), metadata={
        "description": "the connection's size in inches: the tap must match it (§ 315-13B(1))"})
    work_description = fields.String(validate=_TEXT)
    inside_limits = fields.Boolean(load_default=True, metadata={
        "description": "the parcel lies inside the corporate limits (§ 315-11E(2))"})
    connected_by_cutoff = fields.Boolean(load_default=False, metadata={
        "description": "outside the limits: a connection existed on the rulebook's day (2009-06-01 in Arcadia)"})


class StepIn(Strict):
    """Fields a step may carry; each step reads the ones it needs."""

    on = fields.Date(metadata={"description": "the day it happened (default today, on the city's calendar)"})
    note = fields.String(validate=_TEXT)
    reason = fields.String(validate=_TEXT, metadata={"description": "reject (required), withdraw"})


class ApproveIn(StepIn):
    commission_meeting_on = fields.Date(metadata={
        "description": "the Commission's meeting that approved it; without it, the superintendent approves "
                       "under the Commission's delegation"})
    delegation = fields.String(validate=_NAME, metadata={"description": "the delegation (default the rulebook's)"})


class PayIn(StepIn):
    receipt_number = fields.String(validate=validate.Length(max=40))


class ScheduleIn(StepIn):
    work_on = fields.Date(required=True, metadata={"description": "the day the work (the street opening) is set for"})
    frozen_override_reason = fields.String(validate=_TEXT, metadata={
        "description": "the superintendent's reason for opening the street in frozen ground (TAP-FROZEN)"})


class InspectionRequestIn(StepIn):
    earliest = fields.AwareDateTime(required=True, metadata={"description": "the earliest time the trench is ready"})
    contact = fields.String(required=True, validate=_NAME, metadata={"description": "who to call on site, and how"})
    inspector_id = fields.Integer(validate=validate.Range(min=1), metadata={
        "description": "assign the inspection to this inspector at once (superintendent)"})


class AssignIn(Strict):
    inspector_id = fields.Integer(required=True, validate=validate.Range(min=1))


class CorrectionIn(Strict):
    item = fields.String(required=True, validate=_NAME)
    section = fields.String(required=True, validate=validate.Length(min=1, max=40))
    measured = fields.String(validate=validate.Length(max=80))
    note = fields.String(validate=_TEXT)


class ResultIn(StepIn):
    inspection_id = fields.Integer(validate=validate.Range(min=1))
    corrections = fields.List(fields.Nested(CorrectionIn), metadata={"description": "fail: what to correct"})


class PermitQuery(Strict):
    state = fields.String(validate=validate.OneOf(STATES))
    kind = fields.String(validate=validate.OneOf(KINDS))
    plumber = fields.String(validate=validate.Length(min=1, max=200), metadata={
        "description": "the plumber's license number or name"})
    parcel_id = fields.Integer(validate=validate.Range(min=1))
    bbox = BBox(metadata={"description": "only permits whose parcel intersects minLon,minLat,maxLon,maxLat (WGS 84)"})
    is_open = fields.Boolean(data_key="open", metadata={
        "description": "true: only permits still open (not rejected, closed, expired or withdrawn); false: only those"})
    limit = fields.Integer(load_default=100, validate=validate.Range(min=1, max=1000))
    after = fields.Integer(metadata={"description": "the id after which the page starts (the `next` link's cursor)"})


_D = {"format": "date"}


class PermitProperties(Schema):
    """A permit as a feature's properties (``/api/v1/permits`` and the OGC collection ``permits``).

    The owners' personal data (:data:`PERSONAL`) is the office's: other callers of the OGC
    collection get the permit without those properties."""

    number = fields.String()
    kind = fields.String(validate=validate.OneOf(KINDS))
    state = fields.String(validate=validate.OneOf(STATES))
    parcel_id = fields.Integer()
    parcel_number = fields.String()
    site_address = fields.String(allow_none=True)
    lateral_id = fields.Integer(allow_none=True)
    applied_on = fields.Date()
    applicant_name = fields.String(metadata={"description": "personal: the office's roles only"})
    applicant_phone = fields.String(allow_none=True, metadata={"description": "personal: the office's roles only"})
    applicant_email = fields.String(allow_none=True, metadata={"description": "personal: the office's roles only"})
    applicant_is_owner = fields.Boolean()
    owner_consent_by = fields.String(allow_none=True, metadata={"description": "personal: the office's roles only"})
    owner_consent_on = fields.Date(allow_none=True, metadata={"description": "personal: the office's roles only"})
    plumber_name = fields.String()
    plumber_license = fields.String()
    plumber_license_expires = fields.Date()
    wastes = fields.String()
    connection_kind = fields.String(validate=validate.OneOf(CONNECTION_KINDS))
    connection_size_in = fields.Float()
    work_description = fields.String(allow_none=True)
    inside_limits = fields.Boolean()
    surcharged = fields.Boolean()
    fee_total = fields.String()
    paid = fields.Boolean()
    approved_on = fields.Date(allow_none=True)
    issued_on = fields.Date(allow_none=True)
    expires_on = fields.Date(allow_none=True)
    work_on = fields.Date(allow_none=True)
    inspection_contact = fields.String(allow_none=True, metadata={"description": "personal: the office's roles only"})
    inspection_requested_on = fields.Date(allow_none=True)
    inspected_on = fields.Date(allow_none=True)
    inspection_id = fields.Integer(allow_none=True)
    connected_on = fields.Date(allow_none=True)
    closed_on = fields.Date(allow_none=True)
    version = fields.Integer()


#: What a permit says of people other than the licensed plumber: only the office reads it.
PERSONAL = ("applicant_name", "applicant_phone", "applicant_email", "owner_consent_by", "owner_consent_on",
            "inspection_contact")
