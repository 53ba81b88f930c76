"""Columns every stored feature shares: server id, version, created/updated stamps."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import CheckConstraint, DateTime, Integer
from sqlalchemy.orm import Mapped, declared_attr, mapped_column

from server.core.extensions import Model


def utcnow() -> datetime:
    return datetime.now(UTC)


def as_utc(value: datetime) -> datetime:
    """A stored time as aware UTC: SQLite hands back naive UTC, PostgreSQL aware times."""
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def one_of(column: str, values: tuple[str, ...], name: str | None = None) -> CheckConstraint:
    """CHECK that ``column`` is NULL or one of ``values`` (same on both databases)."""
    quoted = ", ".join(f"'{v}'" for v in values)
    return CheckConstraint(f"{column} IS NULL OR {column} IN ({quoted})", name=name or column)


class Stamped(Model):
    """Abstract base: id, optimistic-concurrency version, created/updated times.

    ``version`` is SQLAlchemy's version counter: an UPDATE names the version it read,
    so two inspectors editing the same tap cannot silently overwrite each other.
    """

    __abstract__ = True

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    version: Mapped[int] = mapped_column(Integer, nullable=False, default=1)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow, nullable=False)
    updated_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), default=utcnow, onupdate=utcnow, nullable=False
    )

    @declared_attr.directive
    def __mapper_args__(cls):  # noqa: N805 - SQLAlchemy's declared_attr convention
        return {"version_id_col": cls.version}
