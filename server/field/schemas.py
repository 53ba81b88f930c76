"""Wire contracts of field sync: push records, pull pages, conflicts, inspections."""

from __future__ import annotations

from marshmallow import RAISE, Schema, ValidationError, fields, validate, validates_schema

from server.core.wire import UtcDateTime
from server.field.models import PUSH_KINDS

SHA256 = validate.Regexp(r"^[0-9a-f]{64}$", error="must be a SHA-256 digest: 64 lower-case hex characters")


class Strict(Schema):
    class Meta:
        unknown = RAISE


class PushRecordIn(Strict):
    uuid = fields.UUID(required=True)
    kind = fields.String(required=True, validate=validate.OneOf(PUSH_KINDS),
                         metadata={"description": "one of the record kinds services/sync.RECORD_KINDS takes"})
    data = fields.Dict(required=True)


class PushIn(Strict):
    records = fields.List(fields.Nested(PushRecordIn), required=True)


class PhotoRef(Strict):
    sha256 = fields.String(required=True, validate=SHA256)
    item_id = fields.String(required=True, validate=validate.Length(min=1, max=120))
    filename = fields.String(allow_none=True, validate=validate.Length(max=255))


class InspectionData(Strict):
    template_id = fields.String(required=True, validate=validate.Length(min=1, max=60))
    template_version = fields.Integer(required=True, strict=True, validate=validate.Range(min=1))
    parcel_id = fields.Integer(required=True, strict=True)
    location = fields.Dict(required=True, metadata={"description": "GeoJSON Point where it was taken"})
    started_at = fields.AwareDateTime(required=True)
    finished_at = fields.AwareDateTime(required=True)
    answers = fields.Dict(required=True)
    photos = fields.List(fields.Nested(PhotoRef), load_default=list)
    replaces = fields.UUID(allow_none=True, load_default=None)

    @validates_schema
    def _times(self, data, **_):
        if data["finished_at"] < data["started_at"]:
            raise ValidationError("must not be before started_at", "finished_at")


class FeatureEditData(Strict):
    """An edit of a pulled feature; :func:`feature_edit_schema` limits ``layer``."""

    layer = fields.String(required=True)
    id = fields.Integer(required=True, strict=True)
    base_version = fields.Integer(required=True, strict=True, validate=validate.Range(min=1))
    properties = fields.Dict(load_default=None, allow_none=True)
    geometry = fields.Dict(load_default=None, allow_none=True)

    @validates_schema
    def _something(self, data, **_):
        if not data.get("properties") and data.get("geometry") is None:
            raise ValidationError("an edit changes properties, geometry or both", "properties")


class PushResult(Schema):
    uuid = fields.String()
    status = fields.Integer()
    code = fields.String()
    message = fields.String()
    server_id = fields.Integer(allow_none=True)
    missing_photos = fields.List(fields.String())
    conflict_id = fields.Integer()
    current_version = fields.Integer()
    version = fields.Integer()
    outcome = fields.String()
    result = fields.String(metadata={"description": "an inspection's evaluation: pass or fail"})
    details = fields.Dict()


class PushOut(Schema):
    results = fields.List(fields.Nested(PushResult))


class PullQuery(Strict):
    cursor = fields.String()
    limit = fields.Integer(validate=validate.Range(min=1, max=5000), load_default=500)


class AssignmentIn(Strict):
    inspector_id = fields.Integer(required=True, strict=True)
    parcel_id = fields.Integer(required=True, strict=True)
    template_id = fields.String(required=True, validate=validate.Length(min=1, max=60))
    due_on = fields.Date(allow_none=True, load_default=None)
    reason = fields.String(allow_none=True, validate=validate.Length(max=2000), load_default=None)


class AssignmentOut(Schema):
    id = fields.Integer()
    inspector_id = fields.Integer()
    parcel_id = fields.Integer()
    template_id = fields.String()
    due_on = fields.Date(allow_none=True)
    reason = fields.String(allow_none=True)
    status = fields.String()
    created_at = UtcDateTime()
    completed_by_inspection_id = fields.Integer(allow_none=True)


class AssignmentQuery(Strict):
    status = fields.String(validate=validate.OneOf(("open", "done", "cancelled")))
    inspector_id = fields.Integer()


class ViolationBriefOut(Schema):
    """A violation as the tablet shows it."""

    id = fields.Integer()
    rule_id = fields.String()
    rule_title = fields.String(allow_none=True)
    section = fields.String()
    status = fields.String()
    message = fields.String()
    measured = fields.Float(allow_none=True)
    limit = fields.Float(allow_none=True)
    unit = fields.String(allow_none=True)
    opened_at = fields.String(allow_none=True)


class NoticeBriefOut(Schema):
    """A notice as the tablet shows it."""

    id = fields.Integer()
    kind = fields.String()
    title = fields.String()
    state = fields.String()
    deadline = fields.String(allow_none=True)
    article_number = fields.String(allow_none=True)
    mailed_on = fields.String(allow_none=True)


class ReinspectionNoticeOut(NoticeBriefOut):
    rules = fields.List(fields.String(), metadata={"description": "the rules it cites, its open violations' first"})


class PermitConditionOut(Schema):
    rule = fields.String()
    section = fields.String()
    text = fields.String()


class PermitConditionsOut(Schema):
    """The permit an inspection before backfill is made under, as the tablet shows it
    (``server/permits/inspections.py:conditions``)."""

    id = fields.Integer()
    number = fields.String()
    kind = fields.String()
    state = fields.String()
    connection_kind = fields.String()
    connection_size_in = fields.Float()
    earliest = fields.String(allow_none=True, metadata={"description": "ISO time: the earliest the trench is ready"})
    contact = fields.String(allow_none=True)
    plumber_name = fields.String()
    plumber_license = fields.String()
    conditions = fields.List(fields.Nested(PermitConditionOut))


class PulledAssignmentOut(Schema):
    """An open assignment as pulled (``assignment_out``)."""

    id = fields.Integer()
    inspector_id = fields.Integer()
    parcel_id = fields.Integer()
    template_id = fields.String()
    due_on = fields.String(allow_none=True, metadata={"description": "ISO date"})
    reason = fields.String(allow_none=True)
    status = fields.String()
    completed_by_inspection_id = fields.Integer(allow_none=True)
    notice = fields.Nested(ReinspectionNoticeOut, allow_none=True,
                           metadata={"description": "a reinspection's: the notice it checks"})
    permit = fields.Nested(PermitConditionsOut, allow_none=True,
                           metadata={"description": "an inspection before backfill's: the permit and its conditions"})


class ResultOut(Schema):
    """One of the caller's inspections as the server evaluated it."""

    uuid = fields.String()
    parcel_id = fields.Integer(allow_none=True)
    template_id = fields.String()
    result = fields.String(metadata={"description": "pass or fail"})
    failures = fields.List(fields.Dict(), metadata={"description": "[{item, rule_id, message}]"})
    received_at = fields.String(allow_none=True)
    violations_opened = fields.List(fields.Nested(ViolationBriefOut))
    violations_resolved = fields.List(fields.Nested(ViolationBriefOut))


class ParcelBriefOut(Schema):
    id = fields.Integer()
    site_address = fields.String(allow_none=True)
    parcel_number = fields.String()
    owner_name = fields.String(allow_none=True)
    user_class = fields.String()


class InspectionBriefOut(Schema):
    uuid = fields.String()
    template_id = fields.String()
    result = fields.String()
    finished_at = fields.String(allow_none=True)
    received_at = fields.String(allow_none=True)


class ParcelDetailsOut(Schema):
    """A parcel's page as pulled: open violations, notices, the caller's own inspections."""

    parcel = fields.Nested(ParcelBriefOut)
    violations = fields.List(fields.Nested(ViolationBriefOut))
    notices = fields.List(fields.Nested(NoticeBriefOut))
    inspections = fields.List(fields.Nested(InspectionBriefOut))


class PullOut(Schema):
    cursor = fields.String()
    more = fields.Boolean()
    reset = fields.Boolean()
    assignments = fields.List(fields.Nested(PulledAssignmentOut),
                              metadata={"description": "the caller's open assignments"})
    results = fields.List(fields.Nested(ResultOut), metadata={
        "description": "on the last page: the caller's latest inspections with their results"})
    parcels = fields.Dict(keys=fields.String(), values=fields.Nested(ParcelDetailsOut), metadata={
        "description": "on the last page: by parcel id, the assigned or inspected parcels' details"})
    templates = fields.List(fields.Dict())
    features = fields.Dict(keys=fields.String(), values=fields.List(fields.Dict()))
    tombstones = fields.List(fields.Dict())


class DeviceReadinessIn(Strict):
    offline_ready = fields.Boolean(required=True, metadata={
        "description": "the field app's service worker controls this page: it opens without signal"})
    reason = fields.String(allow_none=True, validate=validate.Length(max=300),
                           metadata={"description": "why not, in the browser's words"})


class DeviceOut(Schema):
    id = fields.Integer()
    device = fields.String(attribute="name")
    username = fields.Function(lambda t: t.user.username)
    display_name = fields.Function(lambda t: t.user.display_name)
    last_used_at = UtcDateTime(allow_none=True)
    offline_ready = fields.Boolean(allow_none=True)
    offline_reason = fields.String(allow_none=True)
    offline_reported_at = UtcDateTime(allow_none=True)


class ResolveIn(Strict):
    decision = fields.String(required=True, validate=validate.OneOf(("apply", "discard")))


class ConflictOut(Schema):
    id = fields.Integer()
    record_uuid = fields.String()
    layer = fields.String()
    feature_id = fields.Integer()
    base_version = fields.Integer()
    current_version = fields.Integer(allow_none=True)
    proposed = fields.Dict()
    current = fields.Dict(allow_none=True)
    status = fields.String()
    created_by_id = fields.Integer(allow_none=True)
    created_at = UtcDateTime()
    resolved_by_id = fields.Integer(allow_none=True)
    resolved_at = UtcDateTime(allow_none=True)
    applied_version = fields.Integer(allow_none=True)


class ConflictQuery(Strict):
    status = fields.String(validate=validate.OneOf(("open", "applied", "discarded")), load_default="open")


class InspectionQuery(Strict):
    parcel_id = fields.Integer()
    inspector = fields.Integer(metadata={"description": "inspector's user id"})
    template = fields.String()
    limit = fields.Integer(validate=validate.Range(min=1, max=1000), load_default=100)
    after = fields.Integer(metadata={
        "description": "the id after which the page starts (older clients; the `next` link carries `cursor`)"})


class InspectionPageOut(Schema):
    """A page of ``GET /api/v1/inspections``."""

    inspections = fields.List(fields.Dict(), metadata={
        "description": "the page's inspections in id order, each as `GET /api/v1/inspections/<uuid>` shows it"})
    next = fields.String(allow_none=True, metadata={
        "description": "the next page's URL (its `cursor`, `limit` and this page's filters) while inspections "
                       "follow this page; null on the last page. Follow it as given"})
    next_after = fields.Integer(allow_none=True, metadata={
        "deprecated": True,
        "description": "deprecated (use `next`): the last id of the page while inspections follow it, "
                       "else null; older clients send it back as `after`"})


def feature_edit_schema(layers: tuple[str, ...]) -> type[FeatureEditData]:
    """``FeatureEditData`` whose ``layer`` must be one of ``layers``.

    The sync service passes the layer registry's pulled layers: the registry imports the
    schemas package, so the schemas take its names as an argument instead.
    """
    layer = fields.String(required=True, validate=validate.OneOf(layers))
    return type("FeatureEditData", (FeatureEditData,), {"layer": layer})
