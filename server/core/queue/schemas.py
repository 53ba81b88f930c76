"""A job as the API writes it."""

from __future__ import annotations

from marshmallow import Schema, fields


class StepOut(Schema):
    stage = fields.String()
    done = fields.Integer()
    total = fields.Integer()
    detail = fields.String(allow_none=True)


class JobOut(Schema):
    id = fields.Integer()
    kind = fields.String()
    state = fields.String(metadata={"description": "queued, done or failed"})
    params = fields.Dict()
    created_at = fields.String()
    finished_at = fields.String(allow_none=True)
    attempts = fields.Integer()
    progress = fields.Nested(StepOut, metadata={"description": "the last step told"})
    steps = fields.List(fields.Nested(StepOut))
    result = fields.Dict(allow_none=True)
    error = fields.String(allow_none=True)
