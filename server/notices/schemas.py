"""Wire contracts of notices, mailings and the legal calendar."""

from __future__ import annotations

from marshmallow import RAISE, Schema, fields, validate

from server.core.wire import UtcDateTime
from server.notices.kinds import CLEAR_WATER_KINDS
from server.notices.letters.documents import NOTICE_KINDS
from server.notices.models import DECISIONS, DELIVERY_EVENTS, SERVICE_STEPS, STATES


class Strict(Schema):
    class Meta:
        unknown = RAISE


class DeadlineQuery(Strict):
    rule = fields.String(required=True, metadata={"description": "e.g. CW-DISCONNECT-60"})
    served = fields.Date(required=True, metadata={"description": "day of service, YYYY-MM-DD"})


class ReprintQuery(Strict):
    reprint = fields.Boolean(load_default=False, metadata={
        "description": "print it again with how the notice was served, as recorded today (the document as "
                       "mailed is unchanged and is what is served without it)"})


class DeadlineOut(Schema):
    rule = fields.String(attribute="rule_id")
    section = fields.String()
    days = fields.Integer()
    served = fields.Date()
    deadline = fields.Date(attribute="date")
    steps = fields.List(fields.String())


class DraftIn(Strict):
    parcel_ids = fields.List(fields.Integer(), metadata={"description": "only these parcels"})
    kinds = fields.List(fields.String(validate=validate.OneOf(NOTICE_KINDS)))
    clear_water_kind = fields.String(load_default=CLEAR_WATER_KINDS[0], validate=validate.OneOf(CLEAR_WATER_KINDS))


class NoticeQuery(Strict):
    state = fields.String(validate=validate.OneOf(STATES))
    kind = fields.String(validate=validate.OneOf(NOTICE_KINDS))
    parcel_id = fields.Integer()
    limit = fields.Integer(load_default=100, validate=validate.Range(min=1, max=1000))
    after = fields.Integer(metadata={"description": "cursor: the id after which the page starts"})


class EventIn(Strict):
    """Fields an event may carry; each event reads the ones it needs."""

    on = fields.Date(metadata={"description": "the day it happened (default today)"})
    note = fields.String(validate=validate.Length(max=4000), metadata={
        "description": "appeal: the facts it sets forth (required); decide: the decision's terms"})
    late_reason = fields.String(validate=validate.Length(max=4000), metadata={
        "description": "appeal filed after its 10 days: the reason the owner gives for the delay"})
    step = fields.String(validate=validate.OneOf(SERVICE_STEPS), metadata={
        "description": "substitute: the step taken (first-class re-mailing, posting at the premises)"})
    source = fields.String(validate=validate.OneOf(("return_receipt", "usps_tracking")), metadata={
        "description": "deliver: where the delivery date comes from (default the return receipt)"})


class DecisionReceiptIn(Strict):
    event = fields.String(required=True, validate=validate.OneOf(DELIVERY_EVENTS), metadata={
        "description": "what the return receipt or the returned envelope says"})
    on = fields.Date(metadata={"description": "the day of delivery or return (default today)"})


class DecideIn(EventIn):
    decision = fields.String(required=True, validate=validate.OneOf(DECISIONS))
    heard = fields.Boolean(metadata={
        "description": "a late appeal: whether the body heard it (required then); not heard leaves the notice "
                       "as it stands (decision upheld)"})
    days = fields.Integer(validate=validate.Range(min=1, max=3650), metadata={
        "description": "days the owner has to comply, counted from the decision letter (modified: required)"})


class AppealOut(Schema):
    id = fields.Integer()
    level = fields.String(metadata={"description": "commission or council"})
    filed_on = fields.Date()
    due_on = fields.Date(metadata={"description": "the last day it could be filed in time"})
    facts = fields.String()
    late_reason = fields.String(metadata={"description": "a late appeal: the reason the owner gives for the delay"})
    late = fields.Boolean(metadata={"description": "received after its 10 days (due_on)"})
    heard = fields.Boolean(metadata={"description": "a late appeal: whether the body heard it (once decided)"})
    decide_by = fields.Date(metadata={"description": "the Commission's last day to decide (30 days from receipt)"})
    decision = fields.String()
    decided_on = fields.Date(metadata={"description": "the meeting at which it was decided"})
    decision_terms = fields.String()
    comply_days = fields.Integer()
    letter_mailed_on = fields.Date()
    letter_article_number = fields.String()
    letter_sha256 = fields.String()
    letter_signed_by = fields.String()
    letter_delivery_event = fields.String(metadata={"description": "the decision letter's return receipt: "
                                                                   "delivered, refused or unclaimed"})
    letter_delivery_event_on = fields.Date()
    letter_served_on = fields.Date(metadata={"description": "the day the letter served the decision: the Council "
                                                            "appeal's 10 days and the new deadline count from it"})


class ServiceStepOut(Schema):
    step = fields.String()
    done_on = fields.Date()
    note = fields.String()


class MailIn(Strict):
    mailed_on = fields.Date(metadata={"description": "default today"})


class DecisionLetterIn(MailIn):
    signed_by = fields.String(validate=validate.Length(max=200), metadata={
        "description": "the deciding body's officer who signs the letter, name and title (required), e.g. "
                       "'Pat Lund, President, Arcadia Utility Commission'"})


class StickerIn(Strict):
    notice_id = fields.Integer(required=True)
    article_number = fields.String(required=True, validate=validate.Length(min=20, max=60), metadata={
        "description": "the PS 3800 sticker's number, scanned (420 + ZIP + number) or typed"})


class MailingIn(Strict):
    notice_ids = fields.List(fields.Integer(), required=True, validate=validate.Length(min=1, max=5000))
    stickers = fields.List(fields.Nested(StickerIn), metadata={
        "description": "the post office's PS 3800 sticker on each envelope, one per notice; "
                       "omit to use self-issued numbers"})


class RecordMailingIn(MailIn):
    count = fields.Integer(required=True, strict=True, validate=validate.Range(min=1), metadata={
        "description": "the letters taken to the post office, counted by the clerk; must equal the batch's `pieces`"})


class VoidMailingIn(Strict):
    reason = fields.String(required=True, validate=validate.Length(min=1, max=2000), metadata={
        "description": "why the recording is voided (kept in the audit trail)"})


class NoticeOut(Schema):
    id = fields.Integer()
    version = fields.Integer()
    kind = fields.String()
    state = fields.String()
    parcel_id = fields.Integer()
    parcel_number = fields.String()
    site_address = fields.String()
    owner_names = fields.List(fields.String())
    mailing_address = fields.Method("_address")
    held_reason = fields.String(metadata={"description": "why the notice cannot be mailed (state held)"})
    sections = fields.List(fields.String())
    findings = fields.List(fields.Dict())
    violation_ids = fields.List(fields.Integer(), attribute="citations.violation_ids")
    violations_open = fields.Integer(attribute="citations.open", metadata={
        "description": "how many of the cited violations are still open"})
    violations_all_resolved = fields.Boolean(attribute="citations.all_resolved", metadata={
        "description": "the notice cites violations and every one has been resolved or waived; a notice not yet "
                       "mailed is then withdrawn, and mailing it is refused (409 violations_resolved)"})
    violations_resolved_on = fields.Date(attribute="citations.resolved_on", metadata={
        "description": "when violations_all_resolved: the day the last of them was resolved or waived"})
    violations_resolved_by_inspection_id = fields.Integer(attribute="citations.resolved_by_inspection_id", metadata={
        "description": "when violations_all_resolved: the inspection that resolved the last of them, if one did"})
    follow_up_of_id = fields.Integer()
    approved_at = UtcDateTime(allow_none=True)
    batch_id = fields.Integer()
    article_number = fields.String()
    mailed_on = fields.Date()
    delivery_event = fields.String()
    delivery_event_on = fields.Date()
    clock_starts = fields.String()
    served_on = fields.Date()
    deadline_printed = fields.Date()
    deadline = fields.Date()
    deadline_steps = fields.List(fields.String(), allow_none=True)
    letter_sha256 = fields.String()
    overdue_on = fields.Date()
    escalated_on = fields.Date()
    penalty_per_day = fields.Decimal(as_string=True)
    penalty_accrued = fields.Decimal(as_string=True)
    penalty_through = fields.Date()
    reinspection_assignment_id = fields.Integer()
    complied_on = fields.Date()
    complied_reason = fields.String()
    appealed_on = fields.Date()
    appeal_note = fields.String()
    decided_on = fields.Date()
    decision = fields.String()
    decision_note = fields.String()
    withdrawn_reason = fields.String()
    appeals = fields.Method("_appeals", metadata={"description": "appeals, first to last, with decisions"})
    service_steps = fields.Method("_steps", metadata={
        "description": "substitute service after refused or unclaimed mail, each with its date"})
    allowed_events = fields.List(fields.String(), metadata={"description": "events a person may send now"})

    def _address(self, notice):
        return {"street": notice.mailing_street, "city": notice.mailing_city,
                "state": notice.mailing_state, "zip": notice.mailing_zip}

    def _appeals(self, notice):
        return AppealOut(many=True).dump(notice.appeals)

    def _steps(self, notice):
        return ServiceStepOut(many=True).dump(notice.service_steps)


class MailingOut(Schema):
    id = fields.Integer()
    state = fields.String(metadata={"description": "`printed` (not yet recorded as mailed) or `mailed`"})
    printed_on = fields.Date()
    dated_on = fields.Date(metadata={"description": "the mailing date the stored letters and book carry"})
    mailed_on = fields.Date(allow_none=True, metadata={"description": "null until the mailing is recorded"})
    recorded_at = fields.DateTime(allow_none=True)
    voided_at = fields.DateTime(allow_none=True, metadata={"description": "the last void of a recording, if any"})
    void_reason = fields.String(allow_none=True)
    pieces = fields.Integer()
    letters_sha256 = fields.String()
    mailing_book_sha256 = fields.String()
    notice_ids = fields.List(fields.Integer())
    article_numbers = fields.List(fields.String())


class ReturnReceiptOut(Schema):
    notice_id = fields.Integer()
    article_addressed_to = fields.List(fields.String())
    article_number = fields.String()
    service_type = fields.String()
