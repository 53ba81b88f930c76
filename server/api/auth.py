"""Logins and device tokens: exchange a password for a bearer token, list and revoke them."""

from __future__ import annotations

from flask_smorest import Blueprint
from marshmallow import RAISE, Schema, fields, validate

from server.kernel.auth import current_user
from server.kernel.body import load_json
from server.kernel.errors import ApiError
from server.kernel.transaction import write_transaction
from server.services import auth as auth_service

blp = Blueprint("auth", __name__, url_prefix="/api/v1/auth", description="Logins and device tokens")


class TokenRequest(Schema):
    class Meta:
        unknown = RAISE

    username = fields.String(required=True)
    password = fields.String(required=True, load_only=True)
    device_name = fields.String(required=True, validate=validate.Length(min=1, max=120))


class TokenOut(Schema):
    token = fields.String(metadata={"description": "shown once; send as 'Authorization: Bearer <token>'"})
    token_id = fields.Integer()
    user = fields.Dict()


class TokenInfo(Schema):
    id = fields.Integer()
    name = fields.String()
    created_at = fields.DateTime()
    revoked_at = fields.DateTime(allow_none=True)


@blp.route("/token", methods=["POST"], endpoint="Token")
@blp.doc(requestBody={"content": {"application/json": {"schema": TokenRequest}}}, security=[])
@blp.response(201, TokenOut)
@write_transaction
def token():
    """Exchange a username and password for a bearer token named after the device."""
    data = load_json(TokenRequest())
    try:
        user = auth_service.check_login(data["username"], data["password"])
    except auth_service.AuthError as exc:
        raise ApiError(401, exc.code, str(exc)) from None
    plain, tok = auth_service.issue_token(user, data["device_name"])
    return {"token": plain, "token_id": tok.id, "user": auth_service.user_summary(user)}, 201


@blp.route("/tokens", methods=["GET"])
@blp.response(200, TokenInfo(many=True))
def tokens():
    """The caller's device tokens (never the secrets)."""
    return current_user().tokens.all()


@blp.route("/tokens/<int:token_id>", methods=["DELETE"])
@blp.response(204)
@write_transaction
def revoke(token_id: int):
    """Revoke one of the caller's tokens (admins: anyone's)."""
    try:
        auth_service.revoke_token(current_user(), token_id)
    except auth_service.AuthError as exc:
        raise ApiError(404, exc.code, str(exc)) from None


@blp.route("/me", methods=["GET"])
def me():
    """Who the caller is."""
    return auth_service.user_summary(current_user())
