"""Users, passwords and device tokens.

Password checks cost the same whether or not the user exists (a dummy hash is checked
for unknown and disabled users), so answer times do not tell a caller which usernames
are real. New passwords pass a policy: a minimum length and zxcvbn's estimate of how
guessable they are, which knows the common-password lists and keyboard patterns.
"""

from __future__ import annotations

import functools
import hashlib
import secrets
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from flask import current_app
from sqlalchemy import bindparam, func, select, update
from werkzeug.security import check_password_hash, generate_password_hash
from zxcvbn import zxcvbn

from server.core.access.roles import ADMIN, ROLES
from server.core.accounts import login_reads
from server.core.accounts.models import ApiToken, SiteSetting, User
from server.core.audit import trail as audit
from server.core.errors import LateralError
from server.core.extensions import db
from server.core.models import as_utc, utcnow
from server.core.transaction import own_transaction

TOKEN_PREFIX = "lat_"
MIN_PASSWORD_LENGTH = 10
# scrypt of a megabyte-long password is still quick, but nobody types one; the policy
# check (zxcvbn) is slower on long input, so it reads only this much.
MAX_PASSWORD_LENGTH = 200
# zxcvbn's scale: 0 too guessable … 4 very unguessable; 3 is "safely unguessable".
MIN_PASSWORD_SCORE = 3
# A token's last use is written at most this often: one UPDATE per token per hour,
# not one per API call.
TOKEN_TOUCH_INTERVAL = timedelta(hours=1)
DEMO_SETTING = "demo"


class AuthError(LateralError):
    """A login or user-management request that cannot be granted (its code is in the catalogue)."""

    def __init__(self, code: str, message: str):
        super().__init__(code, message)


def _token_hash(token: str) -> str:
    # Tokens are 256 random bits, so a plain SHA-256 is enough to keep them unguessable
    # at rest; a slow hash would only slow every API call.
    return hashlib.sha256(token.encode()).hexdigest()


def _hash_password(password: str) -> str:
    return generate_password_hash(password, method="scrypt")


@functools.cache
def _dummy_hash() -> str:
    # Checked for unknown and disabled users, so they cost one scrypt like real ones.
    return _hash_password(secrets.token_hex(16))


def check_password_policy(password: str, *context: str) -> None:
    """Refuse a new password that is short or easy to guess.

    Args:
        password: The proposed password.
        context: Words the password should not lean on (username, display name).

    Raises:
        AuthError: ``weak_password`` with a sentence saying what to change.
    """
    if len(password.strip()) < MIN_PASSWORD_LENGTH:
        raise AuthError("weak_password", f"the password must have at least {MIN_PASSWORD_LENGTH} characters "
                                         "other than spaces at its ends")
    if len(password) > MAX_PASSWORD_LENGTH:
        raise AuthError("weak_password", f"the password may have at most {MAX_PASSWORD_LENGTH} characters")
    if "\x00" in password:
        raise AuthError("weak_password", "the password may not contain a NUL character")
    words = [w for w in context if w] + ["lateral", "arcadia", "sewer"]
    estimate = zxcvbn(password, user_inputs=words)
    if estimate["score"] < MIN_PASSWORD_SCORE:
        feedback = estimate["feedback"]
        hint = " ".join(filter(None, [feedback.get("warning"), *feedback.get("suggestions", [])]))
        raise AuthError("weak_password", "the password is too easy to guess" + (f": {hint}" if hint else "")
                        + " A few uncommon words together make a good one.")


def create_user(username: str, role: str, password: str, display_name: str | None = None, actor=None,
                enforce_policy: bool = True) -> User:
    """Add a login. ``enforce_policy=False`` only for the demo city's published logins, which
    are marked ``must_change_password``: outside a demo database they must set a new one."""
    if role not in ROLES:
        raise AuthError("invalid_role", f"role must be one of {', '.join(ROLES)}")
    if enforce_policy:
        check_password_policy(password, username, display_name or "")
    if db.session.scalar(select(User.id).where(User.username == username)):
        raise AuthError("username_taken", f"user {username!r} already exists")
    user = User(
        username=username,
        role=role,
        display_name=display_name or username,
        password_hash=_hash_password(password),
        must_change_password=not enforce_policy,
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
    """The active user with this password, or ``AuthError``; one scrypt either way."""
    user = db.session.scalar(select(User).where(User.username == username)) if username else None
    stored = user.password_hash if user is not None else _dummy_hash()
    matches = check_password_hash(stored, password)
    if user is None or not user.active or not matches:
        raise AuthError("bad_credentials", "unknown user or wrong password")
    return user


def set_password(user: User, new_password: str, actor: User | None, old_password: str | None = None,
                 keep_token_id: int | None = None) -> User:
    """Give ``user`` a new password and end everything the old one opened.

    A stolen tablet's token must not outlive the standard answer to the theft: every
    session, cached Basic login and device token of ``user`` ends. On a self-service
    change the caller keeps their own way in: the page starts a fresh session, and the
    API keeps the token the request came with (``keep_token_id``).

    Args:
        user: Whose password changes.
        new_password: Checked against the policy.
        actor: Who asks (the user, an admin, or None from the command line).
        old_password: Required when people change their own password.
        keep_token_id: The caller's own token, kept on a self-service change.
    """
    if old_password is not None and not check_password_hash(user.password_hash, old_password):
        raise AuthError("bad_credentials", "the current password is wrong")
    check_password_policy(new_password, user.username, user.display_name or "")
    user.password_hash = _hash_password(new_password)
    user.must_change_password = False
    end_sessions(user)
    revoked = revoke_tokens(user, keep=keep_token_id)
    audit.record("set_password", "user", user.id, None, {"username": user.username,
                 "by": "self" if actor is not None and actor.id == user.id else "reset",
                 "tokens_revoked": revoked}, actor)
    return user


def end_sessions(user: User) -> None:
    """Invalidate every session cookie and cached Basic login of ``user`` (not tokens)."""
    user.session_version = (user.session_version or 0) + 1
    db.session.flush()


def revoke_tokens(user: User, keep: int | None = None) -> int:
    """Revoke every live device token of ``user`` but ``keep``; how many were revoked."""
    query = update(ApiToken).where(ApiToken.user_id == user.id, ApiToken.revoked_at.is_(None))
    if keep is not None:
        query = query.where(ApiToken.id != keep)
    result = db.session.execute(query.values(revoked_at=utcnow()).execution_options(synchronize_session=False))
    db.session.flush()
    return int(getattr(result, "rowcount", 0) or 0)


def _other_active_admins(user: User) -> int:
    return db.session.scalar(select(func.count()).select_from(User).where(
        User.role == ADMIN, User.active.is_(True), User.id != user.id)) or 0


def update_user(user: User, changes: dict, actor: User | None) -> User:
    """Change a user's role, name or whether they may log in; disabling ends their sessions.

    Administrators cannot disable their own login (nobody might be left to turn it back on).
    """
    if actor is not None and actor.id == user.id and changes.get("active") is False:
        raise AuthError("own_login", "you cannot disable your own login; another administrator can")
    leaves_admin = changes.get("active") is False or changes.get("role", ADMIN) != ADMIN
    if user.role == ADMIN and user.active and leaves_admin and not _other_active_admins(user):
        raise AuthError("last_admin", f"{user.username} is the last active administrator; make another "
                                      "administrator first, or nobody could manage users")
    before = user_summary(user)
    for key, value in changes.items():
        setattr(user, key, value)
    if before["active"] and not user.active:
        # Disabling ends everything at once: sessions, cached Basic logins and tokens.
        user.session_version = (user.session_version or 0) + 1
        revoke_tokens(user)
    db.session.flush()
    audit.record("update", "user", user.id, before, user_summary(user), actor)
    return user


def issue_token(user: User, name: str) -> tuple[str, ApiToken]:
    """A new bearer token for one device; the plain token is shown once, never stored."""
    plain = TOKEN_PREFIX + secrets.token_urlsafe(32)
    token = ApiToken(user_id=user.id, name=name, token_hash=_token_hash(plain))
    db.session.add(token)
    db.session.flush()
    audit.record("issue_token", "api_token", token.id, None, {"user_id": user.id, "name": name}, user)
    return plain, token


def token_idle_limit() -> timedelta:
    return timedelta(days=current_app.config.get("TOKEN_IDLE_DAYS", 90))


def token_age_limit() -> timedelta:
    return timedelta(days=current_app.config.get("TOKEN_MAX_AGE_DAYS", 90))


def token_expires_at(token: ApiToken):
    """When ``token`` stops working however often it is used (``TOKEN_MAX_AGE_DAYS``)."""
    return as_utc(token.created_at) + token_age_limit()


@functools.cache
def _holder_of_token():
    # One query, not token then user: every API request (each photo upload, each page a
    # GIS client walks) pays it. Built once, the hash bound at each call: building the
    # SELECT cost more than the database took to answer it.
    # The token's own columns, not the whole row as an object: only these are needed.
    return (select(User, ApiToken.id, ApiToken.created_at, ApiToken.last_used_at)
            .join(ApiToken, ApiToken.user_id == User.id)
            .where(ApiToken.token_hash == bindparam("token_hash"), ApiToken.revoked_at.is_(None),
                   User.active.is_(True)))


_WITH_READS: dict[tuple[str, tuple[str, ...]], Any] = {}


def _carrying(lookup: str, base: Callable[[], Any], names: tuple[str, ...], reads: dict) -> Any:
    """``base()``, a login's lookup, carrying ``reads`` as more columns; built once per lookup
    and set of names (a name always stands for the same read, ``login_reads``)."""
    if not names:
        return base()
    stmt = _WITH_READS.get((lookup, names))
    if stmt is None:
        stmt = _WITH_READS.setdefault((lookup, names), base().add_columns(
            *(reads[name].label(name) for name in names)))
    return stmt


def _holder_of_token_with(names: tuple[str, ...], reads: dict) -> Any:
    return _carrying("token", _holder_of_token, names, reads)


@functools.cache
def _user_by_id():
    return select(User).where(User.id == bindparam("user_id"))


def user_by_id(user_id: int) -> User | None:
    """The user a session cookie or a remembered Basic login names, with the reads the
    request's route named (``login_reads``) in the same statement: a kept map tile then
    costs a browser or QGIS one round trip, as it costs a token."""
    also = login_reads.wanted()
    if not also:
        return db.session.get(User, user_id)  # the session's own copy when it has one
    names = tuple(also)
    row = db.session.execute(_carrying("user", _user_by_id, names, also), {"user_id": user_id}).first()
    if row is None:
        return None
    login_reads.keep(dict(zip(names, row[1:], strict=True)))
    return row[0]


def user_for_token(plain: str) -> User | None:
    """The active user holding this token (see :func:`token_holder`), or None."""
    held = token_holder(plain)
    return held[0] if held is not None else None


def token_holder(plain: str) -> tuple[User, int] | None:
    """The active user holding this unrevoked token, unless it has lain unused or lived too long.

    A token unused for ``TOKEN_IDLE_DAYS``, or issued more than ``TOKEN_MAX_AGE_DAYS``
    ago, is refused like a revoked one. Its last use
    is written at most once an hour (and committed at once, so a GET records it too).
    The reads the request's route named (``login_reads``) ride in the same statement.
    """
    also = login_reads.wanted()  # the route's own small reads, in this same round trip
    row = db.session.execute(_holder_of_token_with(tuple(also), also), {"token_hash": _token_hash(plain)}).first()
    if row is None:
        return None
    user, token_id, created_at, last_used_at = row[:4]
    login_reads.keep(dict(zip(also, row[4:], strict=True)))
    now = utcnow()
    last = as_utc(last_used_at or created_at)
    if now - last > token_idle_limit() or now >= as_utc(created_at) + token_age_limit():
        return None
    if last_used_at is None or now - last >= TOKEN_TOUCH_INTERVAL:
        _touch(token_id, now)
    return user, token_id


def _touch(token_id: int, now) -> None:
    """Record a token's use in a write transaction of its own, in the writers' queue.

    The request has only read so far, and may never write (a GET): the use commits
    here, at once (``own_transaction``), not with the request. On SQLite a read
    transaction cannot become a write once another writer has committed (it would wait
    out the busy timeout and fail), so the transaction ends the read first (a commit:
    nothing is lost) and the write takes its turn like any other.
    """
    try:
        with own_transaction():
            db.session.execute(update(ApiToken).where(ApiToken.id == token_id).values(last_used_at=now))
    except Exception:  # noqa: BLE001 - a busy database must not fail the request itself
        db.session.rollback()  # also when the writers' turn never came, and nothing began
        current_app.logger.warning("could not record the last use of API token %s", token_id, exc_info=True)


def revoke_token(user: User, token_id: int) -> ApiToken:
    token = db.session.get(ApiToken, token_id)
    if token is None or (token.user_id != user.id and user.role != ADMIN):
        raise AuthError("not_found", f"no token {token_id}")
    if token.revoked_at is None:
        token.revoked_at = utcnow()
        audit.record("revoke_token", "api_token", token.id, None, {"user_id": token.user_id}, user)
    return token


def must_set_password(user: User) -> bool:
    """True for a login with a published password on a database that is not the demo's."""
    return bool(user.must_change_password) and not is_demo_database()


def published_logins() -> list[str]:
    """Usernames of active logins that still have a published (seeded) password."""
    return list(db.session.scalars(select(User.username).where(
        User.must_change_password.is_(True), User.active.is_(True)).order_by(User.username)))


def token_was_issued_to(plain: str, username: str) -> bool:
    """True when ``plain`` is (or was: revoked or lapsed) a token of ``username``: a known device."""
    return db.session.scalar(select(ApiToken.id).join(User, ApiToken.user_id == User.id).where(
        ApiToken.token_hash == _token_hash(plain), func.lower(User.username) == username.strip().lower())) is not None


def is_demo_database() -> bool:
    """True where ``flask demo seed`` made the demo logins (published passwords)."""
    return db.session.get(SiteSetting, DEMO_SETTING) is not None


def mark_demo_database() -> None:
    if not is_demo_database():
        db.session.add(SiteSetting(key=DEMO_SETTING, value="seeded by flask demo seed"))
        db.session.flush()


def report_offline_readiness(plain_token: str, ready: bool, reason: str | None) -> ApiToken:
    """Record, on the token a device syncs with, whether the field app can open there without
    signal (its service worker installed) and, if not, why.

    Raises:
        LateralError: ``not_a_device`` when the request carries no device token (a browser
            session is not a device).
    """
    token = db.session.scalar(select(ApiToken).where(ApiToken.token_hash == _token_hash(plain_token)))
    if token is None or token.revoked_at is not None:
        raise LateralError("not_a_device", "only a device sending its API token reports its offline readiness")
    token.offline_ready = ready
    token.offline_reason = None if ready else (reason or "no reason given")
    token.offline_reported_at = utcnow()
    return token


def devices() -> list[ApiToken]:
    """Every device holding a token still in use, with its holder, by holder then device name."""
    rows = db.session.scalars(select(ApiToken).join(User).where(ApiToken.revoked_at.is_(None))
                              .order_by(User.username, ApiToken.name, ApiToken.id))
    return list(rows)
