"""Logins and device tokens: exchange a password for a bearer token, list and revoke them."""

from __future__ import annotations

from flask_smorest import Blueprint
from marshmallow import RAISE, Schema, fields, validate

from server.core.access import PUBLIC, SIGNED_IN, access
from server.core.accounts import service as auth_service
from server.core.accounts.authenticate import current_token_id, password_attempt, password_login, signed_in_user
from server.core.web.body import load_json
from server.core.web.transaction import write_transaction
from server.core.wire import UtcDateTime

blp = Blueprint("auth", __name__, url_prefix="/api/v1/auth", description="Logins and device tokens")


class TokenRequest(Schema):
    class Meta:
        unknown = RAISE

    username = fields.String(required=True, validate=validate.Length(max=80))
    password = fields.String(required=True, load_only=True, validate=validate.Length(max=1000))
    device_name = fields.String(required=True, validate=validate.Length(min=1, max=120))


class PasswordChange(Schema):
    class Meta:
        unknown = RAISE

    current_password = fields.String(required=True, load_only=True, validate=validate.Length(max=1000))
    new_password = fields.String(required=True, load_only=True, validate=validate.Length(max=1000))


class UserSummary(Schema):
    id = fields.Integer()
    username = fields.String()
    display_name = fields.String(allow_none=True)
    role = fields.String()
    active = fields.Boolean()


class TokenOut(Schema):
    token = fields.String(metadata={"description": "shown once; send as 'Authorization: Bearer <token>'"})
    token_id = fields.Integer()
    expires_at = fields.String(metadata={"description": "RFC 3339: when the token stops working, used or not "
                                                        "(TOKEN_MAX_AGE_DAYS); log in again before"})
    user = fields.Nested(UserSummary)


class TokenInfo(Schema):
    id = fields.Integer()
    name = fields.String()
    created_at = UtcDateTime()
    last_used_at = UtcDateTime(allow_none=True)
    revoked_at = UtcDateTime(allow_none=True)


@blp.route("/token", methods=["POST"], endpoint="Token")
@access(PUBLIC)  # it checks the password itself
@blp.doc(requestBody={"content": {"application/json": {"schema": TokenRequest}}}, security=[])
@blp.response(201, TokenOut)
@blp.alt_response(401, response="UNAUTHORIZED")
@blp.alt_response(429, response="TOO_MANY_REQUESTS")
@write_transaction
def token():
    """Exchange a username and password for a bearer token named after the device.

    Failed attempts are counted per username and per address; past the limit the
    answer is 429 with ``Retry-After``. A token unused for 90 days (``TOKEN_IDLE_DAYS``)
    stops working like a revoked one, and so does one issued more than 90 days ago
    (``TOKEN_MAX_AGE_DAYS``, its ``expires_at``) however often it is used.
    """
    data = load_json(TokenRequest())
    user = password_login(data["username"], data["password"])
    plain, tok = auth_service.issue_token(user, data["device_name"])
    return {"token": plain, "token_id": tok.id, "expires_at": auth_service.token_expires_at(tok).isoformat(),
            "user": auth_service.user_summary(user)}, 201


@blp.route("/tokens", methods=["GET"])
@access(SIGNED_IN)
@blp.response(200, TokenInfo(many=True))
def tokens():
    """The caller's device tokens (never the secrets)."""
    return signed_in_user().tokens.all()


@blp.route("/tokens/<int:token_id>", methods=["DELETE"])
@access(SIGNED_IN)
@blp.response(204)
@write_transaction
def revoke(token_id: int):
    """Revoke one of the caller's tokens (admins: anyone's)."""
    auth_service.revoke_token(signed_in_user(), token_id)


@blp.route("/me", methods=["GET"])
@access(SIGNED_IN)
@blp.response(200, UserSummary)
def me():
    """Who the caller is."""
    return auth_service.user_summary(signed_in_user())


@blp.route("/password", methods=["POST"])
@access(SIGNED_IN)  # one's own, with the old one
@blp.doc(requestBody={"content": {"application/json": {"schema": PasswordChange}}})
@blp.response(204)
@blp.alt_response(401, response="UNAUTHORIZED")
@blp.alt_response(422, response="UNPROCESSABLE_ENTITY")
@blp.alt_response(429, response="TOO_MANY_REQUESTS")
@write_transaction
def change_password():
    """Change the caller's own password; the current one is required.

    Every browser session, cached HTTP Basic login and device token of the caller
    ends, but the token this request came with (a stolen tablet's token does not
    outlive the change). The current password is checked like a login: throttled.
    """
    data = load_json(PasswordChange())
    user = signed_in_user()
    assert user is not None  # authenticate() let the request through
    with password_attempt(user.username):
        auth_service.set_password(user, data["new_password"], user, old_password=data["current_password"],
                                  keep_token_id=current_token_id())
