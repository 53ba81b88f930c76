"""The JSON API under /api/v1, documented as OpenAPI 3 at /api/v1/openapi.json."""

from __future__ import annotations

from flask_smorest import Api
from marshmallow import Schema, fields

from server.core.access import SIGNED_IN, declare
from server.core.errors import ERRORS
from server.core.web import errors


class ErrorBody(Schema):
    # The catalogue's codes, so a client generated from the document knows them all.
    code = fields.String(required=True, metadata={
        "description": "stable, for programs: one of the catalogue's (docs/api.md, Errors)",
        "enum": sorted(ERRORS)})
    message = fields.String(required=True, metadata={"description": "for people"})
    details = fields.Dict(required=True)


class ErrorOut(Schema):
    """Every error answer: ``{"error": {"code", "message", "details"}}``."""

    error = fields.Nested(ErrorBody, required=True)


class LateralApi(Api):
    """flask-smorest's Api with Lateral's single error shape, documented as such."""

    ERROR_SCHEMA = ErrorOut

    def handle_http_exception(self, error):
        return errors.handle_http_exception(error)


def init_app(app) -> LateralApi:
    """The API object every domain registers its blueprints on (``server/<domain>/__init__.py``)."""
    api = LateralApi(app, spec_kwargs={
        "components": {"securitySchemes": {
            "bearer": {"type": "http", "scheme": "bearer"},
            "session": {"type": "apiKey", "in": "cookie", "name": "session"},
        }},
        "security": [{"bearer": []}, {"session": []}],
        "info": {"description": "Parcels, the sewer network and clear-water findings as GeoJSON; "
                                "writes need If-Match with the ETag you read."},
    })
    errors.register(app)
    # flask-smorest's own route, the OpenAPI document: for anyone logged in.
    declare(app, "api-docs.openapi_json", SIGNED_IN)
    app.extensions["lateral_api"] = api
    return api
