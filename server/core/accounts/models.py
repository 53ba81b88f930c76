"""People who use Lateral, and the API tokens of their devices."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, DateTime, ForeignKey, Integer, String, false
from sqlalchemy.orm import Mapped, mapped_column, relationship

from server.core.access.roles import ROLES
from server.core.extensions import Model
from server.core.models import Stamped, one_of, utcnow


class User(Stamped):
    """A login. Roles: inspector, superintendent, clerk, admin; plumber (the portal's)."""

    __tablename__ = "users"
    __table_args__ = (one_of("role", ROLES),)

    username: Mapped[str] = mapped_column(String(80), unique=True, nullable=False)
    display_name: Mapped[str | None] = mapped_column(String(200))
    role: Mapped[str] = mapped_column(String(20), nullable=False)
    password_hash: Mapped[str] = mapped_column(String(255), nullable=False)
    active: Mapped[bool] = mapped_column(Boolean, nullable=False, default=True)
    # Copied into each session cookie and cached Basic credential; bumped by logout, a
    # password change or disabling the user, which ends all of them at once.
    session_version: Mapped[int] = mapped_column(Integer, nullable=False, default=0, server_default="0")
    # A login made with a published password (the demo city's): outside a demo database
    # its first login must set a new one, and `flask doctor` fails while it is unchanged.
    must_change_password: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False,
                                                       server_default=false())

    tokens = relationship("ApiToken", back_populates="user", lazy="dynamic")


class ApiToken(Model):
    """A bearer token for one device or script; only its SHA-256 is stored."""

    __tablename__ = "api_tokens"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), nullable=False, index=True)
    name: Mapped[str] = mapped_column(String(120), nullable=False)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True, nullable=False)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow, nullable=False)
    last_used_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    revoked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    # What the device's last sync said: can the field app open there without signal?
    # (None: it has not said.) The superintendent sees it per device.
    offline_ready: Mapped[bool | None] = mapped_column(Boolean)
    offline_reason: Mapped[str | None] = mapped_column(String(300))
    offline_reported_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))

    user = relationship("User", back_populates="tokens")


class SiteSetting(Model):
    """A fact about this database itself, such as ``demo`` (the synthetic city's logins)."""

    __tablename__ = "site_settings"

    key: Mapped[str] = mapped_column(String(80), primary_key=True)
    value: Mapped[str] = mapped_column(String(400), nullable=False)
