"""Wire contracts of the rules engine's endpoints: violations, waivers, runs, the registry."""

from __future__ import annotations

from marshmallow import RAISE, Schema, fields, validate

from server.core.wire import UtcDateTime
from server.rules.models import SOURCES, STATUSES


class ViolationSummary(Schema):
    """What a save returns for each violation it touched (the ``violations`` member)."""

    id = fields.Integer()
    rule_id = fields.String()
    section = fields.String()
    message = fields.String()
    measured = fields.Float(allow_none=True)
    limit = fields.Float(allow_none=True)
    unit = fields.String(allow_none=True)
    status = fields.String()
    waiver_reason = fields.String(allow_none=True, metadata={
        "description": "why a waived one is waived; 'Pre-dates the rule: …' for a feature built before it"})


class ViolationProperties(ViolationSummary):
    """Properties of a violation Feature (its geometry is the evidence)."""

    key = fields.String(metadata={"description": "rule|aspect|subjects: stable across re-runs"})
    source = fields.String()
    subject_type = fields.String()
    subject_id = fields.Integer(allow_none=True)
    subjects = fields.List(fields.Tuple((fields.String(), fields.Raw())),
                           metadata={"description": "[layer, id] pairs, primary first"})
    parcel_id = fields.Integer(allow_none=True)
    opened_at = UtcDateTime()
    resolved_at = UtcDateTime(allow_none=True)
    resolved_by_inspection_id = fields.Integer(
        allow_none=True, metadata={"description": "the later inspection that found the breach gone"})
    waived_at = UtcDateTime(allow_none=True)
    waived_by_id = fields.Integer(allow_none=True)
    waiver_reason = fields.String(allow_none=True)
    version = fields.Integer()
    created_at = UtcDateTime()
    updated_at = UtcDateTime()


class ViolationQuery(Schema):
    """Query string of ``GET /api/v1/violations`` (bbox, limit and after are added)."""

    class Meta:
        unknown = RAISE

    status = fields.String(validate=validate.OneOf(STATUSES))
    source = fields.String(validate=validate.OneOf(SOURCES))
    rule_id = fields.String(validate=validate.Length(min=1, max=40))
    parcel_id = fields.Integer()
    subject_type = fields.String(validate=validate.Length(min=1, max=20))
    subject_id = fields.Integer()


class WaiverIn(Schema):
    class Meta:
        unknown = RAISE

    reason = fields.String(required=True, validate=validate.Regexp(r"\S", error="give the reason for the waiver"),
                           metadata={"description": "why the superintendent accepts this breach"})


class RunIn(Schema):
    class Meta:
        unknown = RAISE

    rules = fields.List(fields.String(), validate=validate.Length(min=1),
                        metadata={"description": "rule ids to run; all rules when absent"})


class RunOut(Schema):
    scope = fields.String()
    rules = fields.List(fields.String(), allow_none=True)
    features = fields.Integer(metadata={"description": "features checked"})
    found = fields.Integer()
    opened = fields.Integer()
    kept = fields.Integer()
    resolved = fields.Integer()
    waived_skipped = fields.Integer(metadata={"description": "reported again but waived"})
    seconds = fields.Dict(keys=fields.String(), values=fields.Float())


class RuleOut(Schema):
    id = fields.String()
    section = fields.String()
    statement = fields.String()
    parameters = fields.Dict()
    effective = fields.Date(allow_none=True, metadata={
        "description": "the day the rule took effect; features built before it are not in violation"})
