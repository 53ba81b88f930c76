"""Reading request bodies: malformed or too deeply nested JSON is a 400, a broken contract a 422."""

from __future__ import annotations

from flask import request
from marshmallow import Schema, ValidationError, fields
from werkzeug.exceptions import BadRequest

from server.core.errors import LateralError, invalid_fields
from server.core.web.inputs import MAX_JSON_DEPTH, check_json

JSON_TYPES = ("application/json", "application/geo+json")


def load_json(schema: Schema) -> dict:
    """Parse the body as JSON and load it through ``schema``."""
    if request.mimetype not in JSON_TYPES:
        raise LateralError(
            "unsupported_media_type",
            f"send the body as {' or '.join(JSON_TYPES)}, not {request.mimetype or 'nothing'}",
        )
    try:
        data = request.get_json(force=True, silent=False)
    except BadRequest:
        raise LateralError("malformed_json", "the request body is not valid JSON") from None
    except RecursionError:
        raise LateralError("json_too_deep", f"the JSON body is nested deeper than {MAX_JSON_DEPTH} levels",
                           {"max_depth": MAX_JSON_DEPTH}) from None
    check_json(data)
    if not isinstance(data, dict):
        raise LateralError("invalid_fields", "the body must be a JSON object",
                           {"fields": {"_schema": ["not an object"]}})
    strict_integers(schema)
    try:
        return schema.load(data)
    except ValidationError as exc:
        raise invalid_fields(exc.messages) from None


def strict_integers(schema: Schema) -> Schema:
    """In a JSON body an integer is a JSON integer: ``"1"`` and ``1.5`` are refused, not
    read as 1 (the OpenAPI document says ``integer``, and schemathesis found them taken).

    Query strings keep marshmallow's reading of text; only this schema instance changes
    (marshmallow copies its fields per instance).
    """
    for field in schema.fields.values():
        _strict(field)
    return schema


def _strict(field: fields.Field) -> None:
    if isinstance(field, fields.Integer):
        field.strict = True
    elif isinstance(field, fields.List):
        _strict(field.inner)
    elif isinstance(field, fields.Nested) and isinstance(field.schema, Schema):
        strict_integers(field.schema)
