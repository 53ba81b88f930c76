"""Users, passwords and device tokens."""

from __future__ import annotations

import hashlib
import secrets

from sqlalchemy import select
from werkzeug.security import check_password_hash, generate_password_hash

from server.extensions import db
from server.models import ApiToken, User
from server.models.base import utcnow
from server.models.users import ROLES
from server.services import audit

TOKEN_PREFIX = "lat_"
MIN_PASSWORD_LENGTH = 10


class AuthError(ValueError):
    """A login or user-management request that cannot be granted."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code


def _token_hash(token: str) -> str:
    # Tokens are 256 random bits, so a plain SHA-256 is enough to keep them unguessable
    # at rest; a slow hash would only slow every API call.
    return hashlib.sha256(token.encode()).hexdigest()


def create_user(username: str, role: str, password: str, display_name: str | None = None, actor=None) -> User:
    if role not in ROLES:
        raise AuthError("invalid_role", f"role must be one of {', '.join(ROLES)}")
    if len(password) < MIN_PASSWORD_LENGTH:
        raise AuthError("weak_password", f"password must have at least {MIN_PASSWORD_LENGTH} characters")
    if db.session.scalar(select(User.id).where(User.username == username)):
        raise AuthError("username_taken", f"user {username!r} already exists")
    user = User(
        username=username,
        role=role,
        display_name=display_name or username,
        password_hash=generate_password_hash(password, method="scrypt"),
    )
    db.session.add(user)
    db.session.flush()
    audit.record("create", "user", user.id, None, user_summary(user), actor)
    return user


def user_summary(user: User) -> dict:
    return {
        "id": user.id,
        "username": user.username,
        "display_name": user.display_name,
        "role": user.role,
        "active": user.active,
    }


def check_login(username: str, password: str) -> User:
    user = db.session.scalar(select(User).where(User.username == username))
    if user is None or not user.active or not check_password_hash(user.password_hash, password):
        raise AuthError("bad_credentials", "unknown user or wrong password")
    return user


def issue_token(user: User, name: str) -> tuple[str, ApiToken]:
    """A new bearer token for one device; the plain token is shown once, never stored."""
    plain = TOKEN_PREFIX + secrets.token_urlsafe(32)
    token = ApiToken(user_id=user.id, name=name, token_hash=_token_hash(plain))
    db.session.add(token)
    db.session.flush()
    audit.record("issue_token", "api_token", token.id, None, {"user_id": user.id, "name": name}, user)
    return plain, token


def user_for_token(plain: str) -> User | None:
    # One query, not token then user: every API request (each photo upload) pays it.
    return db.session.scalar(
        select(User).join(ApiToken, ApiToken.user_id == User.id)
        .where(ApiToken.token_hash == _token_hash(plain), ApiToken.revoked_at.is_(None), User.active.is_(True))
    )


def revoke_token(user: User, token_id: int) -> ApiToken:
    token = db.session.get(ApiToken, token_id)
    if token is None or (token.user_id != user.id and user.role != "admin"):
        raise AuthError("not_found", f"no token {token_id}")
    if token.revoked_at is None:
        token.revoked_at = utcnow()
        audit.record("revoke_token", "api_token", token.id, None, {"user_id": token.user_id}, user)
    return token
