"""User management: admins only."""

from __future__ import annotations

from flask_smorest import Blueprint
from marshmallow import RAISE, Schema, fields, validate
from sqlalchemy import select

from server.core.access import ADMIN, ROLES, access
from server.core.accounts import service as auth_service
from server.core.accounts.authenticate import current_user
from server.core.accounts.models import User
from server.core.errors import LateralError
from server.core.extensions import db
from server.core.web.body import load_json
from server.core.web.transaction import write_transaction

blp = Blueprint("users", __name__, url_prefix="/api/v1/users", description="Users (admin)")


class UserOut(Schema):
    id = fields.Integer()
    username = fields.String()
    display_name = fields.String()
    role = fields.String()
    active = fields.Boolean()


class UserIn(Schema):
    class Meta:
        unknown = RAISE

    username = fields.String(required=True, validate=validate.Regexp(r"^[a-z0-9_.-]{2,80}$"))
    display_name = fields.String(validate=validate.Length(max=200))
    role = fields.String(required=True, validate=validate.OneOf(ROLES))
    password = fields.String(required=True, load_only=True)


class PasswordReset(Schema):
    class Meta:
        unknown = RAISE

    password = fields.String(required=True, load_only=True, validate=validate.Length(max=1000))


class UserPatch(Schema):
    class Meta:
        unknown = RAISE

    display_name = fields.String(validate=validate.Length(max=200))
    role = fields.String(validate=validate.OneOf(ROLES))
    active = fields.Boolean()


@blp.route("", methods=["GET"])
@access(ADMIN)
@blp.response(200, UserOut(many=True))
def list_users():
    """Every user."""
    return db.session.scalars(select(User).order_by(User.username)).all()


@blp.route("", methods=["POST"])
@access(ADMIN)
@blp.doc(requestBody={"content": {"application/json": {"schema": UserIn}}})
@blp.response(201, UserOut)
@write_transaction
def create_user():
    """Add a user."""
    data = load_json(UserIn())
    user = auth_service.create_user(
        data["username"], data["role"], data["password"], data.get("display_name"), current_user()
    )
    return user, 201


@blp.route("/<int:user_id>", methods=["PATCH"])
@access(ADMIN)
@blp.doc(requestBody={"content": {"application/json": {"schema": UserPatch}}})
@blp.response(200, UserOut)
@write_transaction
def update_user(user_id: int):
    """Change a user's role, name or whether they may log in."""
    data = load_json(UserPatch())
    user = db.session.get(User, user_id)
    if user is None:
        raise LateralError("not_found", f"no user with id {user_id}")
    return auth_service.update_user(user, data, current_user())


@blp.route("/<int:user_id>/password", methods=["POST"])
@access(ADMIN)
@blp.doc(requestBody={"content": {"application/json": {"schema": PasswordReset}}})
@blp.response(204)
@blp.alt_response(422, response="UNPROCESSABLE_ENTITY")
@write_transaction
def reset_password(user_id: int):
    """Give a user a new password (an admin's reset); their sessions and Basic logins end."""
    data = load_json(PasswordReset())
    user = db.session.get(User, user_id)
    if user is None:
        raise LateralError("not_found", f"no user with id {user_id}")
    auth_service.set_password(user, data["password"], current_user())
