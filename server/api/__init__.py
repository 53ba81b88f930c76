"""The JSON API under /api/v1, documented as OpenAPI 3 at /api/v1/openapi.json."""

from __future__ import annotations

from flask_smorest import Api
from marshmallow import Schema, fields

from server.api import (
    auth,
    exports,
    features,
    health,
    inspections,
    layers,
    notices,
    photos,
    rules,
    survey,
    sync,
    users,
)
from server.kernel import errors


class ErrorBody(Schema):
    code = fields.String(required=True, metadata={"description": "stable, for programs"})
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


def init_app(app) -> None:
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

    api.register_blueprint(health.blp)
    api.register_blueprint(auth.blp)
    api.register_blueprint(users.blp)
    api.register_blueprint(layers.blp)
    features.register(api, app)
    exports.register(api, app)
    survey.register(api, app)
    api.register_blueprint(sync.blp)
    api.register_blueprint(inspections.blp)
    photos.register(api, app)
    rules.register(api, app)
    api.register_blueprint(notices.blp)
    app.extensions["lateral_api"] = api
