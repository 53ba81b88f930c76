"""Who is calling: bearer tokens for devices and scripts, the session for the web.

GIS clients that only know passwords may send HTTP Basic instead of a token.

Every API endpoint requires a user, except the health check and the token endpoint
(which itself checks a password).
"""

from __future__ import annotations

import functools

from flask import g, request, session
from flask_smorest import Blueprint
from marshmallow import RAISE, Schema, fields, validate

from server.api.errors import ApiError
from server.api.transaction import write_transaction
from server.extensions import db
from server.models import User
from server.services import auth as auth_service

# The docs page is a web page: it sends people to the login form instead of a 401.
OPEN_ENDPOINTS = {"health.health", "auth.Token", "web.api_docs"}

blp = Blueprint("auth", __name__, url_prefix="/api/v1/auth", description="Logins and device tokens")


def current_user() -> User | None:
    return g.get("user")


def authenticate() -> None:
    """before_request for /api/: set ``g.user`` or answer 401."""
    if request.endpoint in OPEN_ENDPOINTS or request.method == "OPTIONS":
        return
    header = request.headers.get("Authorization", "")
    user = None
    if header.startswith("Bearer "):
        user = auth_service.user_for_token(header[7:].strip())
        if user is None:
            raise _unauthorized("the API token is unknown or revoked; log in again")
    elif header.startswith("Basic "):
        # GIS clients (QGIS, OWSLib) log in with a username and password on each request.
        user = _basic_user()
    elif session.get("user_id"):
        user = db.session.get(User, session["user_id"])
        if user is not None and not user.active:
            user = None
    if user is None:
        raise _unauthorized("log in, or send an API token as 'Authorization: Bearer …'")
    g.user = user


def _basic_user() -> User:
    creds = request.authorization
    try:
        return auth_service.check_login(creds.username or "", creds.password or "")
    except (AttributeError, auth_service.AuthError):
        raise _unauthorized("unknown user or wrong password") from None


def _unauthorized(message: str) -> ApiError:
    return ApiError(401, "unauthorized", message, headers={"WWW-Authenticate": 'Bearer realm="lateral"'})


def require_role(*roles: str):
    """Allow the view only to users holding one of ``roles``."""

    def decorator(view):
        @functools.wraps(view)
        def wrapper(*args, **kwargs):
            check_role(roles)
            return view(*args, **kwargs)

        return wrapper

    return decorator


def check_role(roles) -> None:
    user = current_user()
    if user is None or user.role not in roles:
        raise ApiError(
            403, "forbidden", f"this needs the role {' or '.join(sorted(roles))}",
            {"your_role": getattr(user, "role", None)},
        )


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
    from server.api.body import load_json

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
