"""Where failed logins are counted: the database by default, Redis where configured.

The login throttle (:mod:`server.core.web.throttle`) asks one question of its counters,
"how many failures under this key since then, and when was the latest?", and records
failures under a few keys at once. Every worker and host of a city shares the counters:
the database the app already has (``LOGIN_COUNTERS=database``, the default: one row per
failure, rows older than a day are dropped as new ones come), or a Redis
(``LOGIN_COUNTERS=redis://…``: a sorted set per key). ``memory://`` keeps them in one
process (tests).

A failure is recorded after the request's own transaction has ended (it is rolled back:
the login failed), in a transaction of its own: a refused login writes nothing else.
"""

from __future__ import annotations

import threading
import time
from collections import defaultdict
from datetime import UTC, datetime, timedelta
from typing import Protocol

from sqlalchemy import DateTime, Index, Integer, String, delete, func, insert, select
from sqlalchemy.orm import Mapped, mapped_column

from server.core.extensions import Model, db
from server.core.models import utcnow
from server.core.transaction import own_transaction

#: Failures older than this are dropped: no throttle window is longer.
KEEP = timedelta(days=1)


class LoginFailure(Model):
    """One failed password check, under one throttle key (address, username, or both)."""

    __tablename__ = "login_failures"
    __table_args__ = (Index("ix_login_failures_key_at", "key", "at"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    key: Mapped[str] = mapped_column(String(300), nullable=False)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False, default=utcnow)


class Counters(Protocol):
    def recent(self, key: str, seconds: float) -> tuple[int, float | None, float | None]:
        """(failures in the last ``seconds``, the oldest's and the latest's time as epoch seconds)."""

    def add(self, keys: list[str]) -> None:
        """Record one failure under each key, now."""


class DatabaseCounters:
    """Rows in ``login_failures``: shared by every worker and host of the database."""

    def recent(self, key: str, seconds: float) -> tuple[int, float | None, float | None]:
        since = utcnow() - timedelta(seconds=seconds)
        count, oldest, latest = db.session.execute(
            select(func.count(), func.min(LoginFailure.at), func.max(LoginFailure.at))
            .where(LoginFailure.key == key, LoginFailure.at > since)).one()
        return int(count), _epoch(oldest), _epoch(latest)

    def add(self, keys: list[str]) -> None:
        now = utcnow()
        with own_transaction():
            db.session.execute(delete(LoginFailure).where(LoginFailure.at < now - KEEP))
            db.session.execute(insert(LoginFailure), [{"key": key, "at": now} for key in keys])


def _epoch(value: datetime | None) -> float | None:
    if value is None:
        return None
    return (value if value.tzinfo else value.replace(tzinfo=UTC)).timestamp()


class MemoryCounters:
    """One process's counters (tests)."""

    def __init__(self) -> None:
        self._times: dict[str, list[float]] = defaultdict(list)
        self._lock = threading.Lock()

    def recent(self, key: str, seconds: float) -> tuple[int, float | None, float | None]:
        since = time.time() - seconds
        with self._lock:
            times = [t for t in self._times.get(key, []) if t > since]
        return len(times), (times[0] if times else None), (times[-1] if times else None)

    def add(self, keys: list[str]) -> None:
        now = time.time()
        with self._lock:
            for key in keys:
                self._times[key] = [t for t in self._times[key] if t > now - KEEP.total_seconds()] + [now]


class RedisCounters:
    """A sorted set of failure times per key, in a Redis every host shares."""

    PREFIX = "lateral:login:"

    def __init__(self, url: str):
        import redis  # only where a redis:// store is configured

        # Every call out has a timeout: a slow Redis costs an error, never a frozen worker.
        self._redis = redis.Redis.from_url(url, socket_timeout=2, socket_connect_timeout=2)

    def recent(self, key: str, seconds: float) -> tuple[int, float | None, float | None]:
        now = time.time()
        name = self.PREFIX + key
        pipe = self._redis.pipeline()
        pipe.zremrangebyscore(name, 0, now - KEEP.total_seconds())
        pipe.zrangebyscore(name, now - seconds, "+inf", withscores=True)
        _, entries = pipe.execute()
        times = [score for _, score in entries]
        return len(times), (min(times) if times else None), (max(times) if times else None)

    def add(self, keys: list[str]) -> None:
        now = time.time()
        pipe = self._redis.pipeline()
        for key in keys:
            name = self.PREFIX + key
            pipe.zadd(name, {f"{now}:{id(pipe)}:{time.perf_counter_ns()}": now})
            pipe.expire(name, int(KEEP.total_seconds()))
        pipe.execute()


def counters_from(uri: str) -> Counters:
    """The counters ``LOGIN_COUNTERS`` names: ``database``, ``memory://`` or ``redis://…``."""
    if uri == "database":
        return DatabaseCounters()
    if uri.startswith("memory://"):
        return MemoryCounters()
    return RedisCounters(uri)
