"""HTTP Basic without scrypt on every request: a short-lived cache of checked credentials.

GIS clients (QGIS, GDAL, OWSLib) send the password with every request, and an OGC
collection is read ten features a page. The cache remembers, for
``BASIC_AUTH_CACHE_SECONDS`` (default 300; 0 turns it off), that one ``Authorization``
header belonged to one user. Its key is an HMAC of the header under the app's
``SECRET_KEY``, so neither the password nor a cheap hash of it is ever stored.

Each entry carries the user's ``session_version``. A password change, disabling the
user or logging out bumps it, and :func:`server.core.accounts.authenticate` compares it with the
user's row on every request: a cached credential stops working at once on every
worker and host, without needing to reach their caches.

Storage is pluggable (``BASIC_AUTH_CACHE_URI``): ``memory://`` (default, one cache per
process) or ``redis://host:6379/0`` to share it between workers and hosts.
"""

from __future__ import annotations

import hashlib
import hmac
import threading

from cachetools import TTLCache
from flask import current_app

EXTENSION = "lateral_basic_cache"
MEMORY_ENTRIES = 10_000


class MemoryStore:
    """One process's cache, bounded in size and age."""

    def __init__(self, seconds: int):
        self._entries: TTLCache[str, str] = TTLCache(maxsize=MEMORY_ENTRIES, ttl=seconds)
        self._lock = threading.Lock()

    def get(self, key: str) -> str | None:
        with self._lock:
            return self._entries.get(key)

    def set(self, key: str, value: str) -> None:
        with self._lock:
            self._entries[key] = value

    def delete(self, key: str) -> None:
        with self._lock:
            self._entries.pop(key, None)


class RedisStore:
    """A cache shared by every worker and host that points at the same Redis."""

    PREFIX = "lateral:basic:"

    def __init__(self, url: str, seconds: int, connect_timeout: float | None = None,
                 read_timeout: float | None = None):
        import redis  # the redis extra, only when a redis:// cache is configured

        # A Redis that hangs costs a log-in one timeout, not a worker.
        self._redis = redis.Redis.from_url(url, socket_connect_timeout=connect_timeout, socket_timeout=read_timeout)
        self._seconds = seconds

    def get(self, key: str) -> str | None:
        value = self._redis.get(self.PREFIX + key)
        return value.decode() if isinstance(value, bytes) else value

    def set(self, key: str, value: str) -> None:
        self._redis.set(self.PREFIX + key, value, ex=self._seconds)

    def delete(self, key: str) -> None:
        self._redis.delete(self.PREFIX + key)


class NoStore:
    """``BASIC_AUTH_CACHE_SECONDS=0``: every request pays the password hash."""

    def get(self, key: str) -> None:
        return None

    def set(self, key: str, value: str) -> None:
        pass

    def delete(self, key: str) -> None:
        pass


def make_store(uri: str, seconds: int, connect_timeout: float | None = None, read_timeout: float | None = None):
    """The store named by ``uri`` (``memory://`` or ``redis://…``) keeping entries ``seconds``."""
    if seconds <= 0:
        return NoStore()
    if uri.startswith(("redis://", "rediss://", "unix://")):
        return RedisStore(uri, seconds, connect_timeout, read_timeout)
    if uri.startswith("memory://"):
        return MemoryStore(seconds)
    raise ValueError(f"BASIC_AUTH_CACHE_URI must be memory:// or redis://…, not {uri!r}")


def init_app(app) -> None:
    config = app.config
    app.extensions[EXTENSION] = make_store(config["BASIC_AUTH_CACHE_URI"], int(config["BASIC_AUTH_CACHE_SECONDS"]),
                                           config["LATERAL_CONNECT_TIMEOUT"], config["LATERAL_READ_TIMEOUT"])


def key_for(header: str) -> str:
    return hmac.new(str(current_app.secret_key).encode(), header.encode("utf-8", "surrogateescape"),
                    hashlib.sha256).hexdigest()


def lookup(header: str) -> tuple[int, int] | None:
    """(user id, session version) remembered for this ``Authorization`` header, or None."""
    value = current_app.extensions[EXTENSION].get(key_for(header))
    if value is None:
        return None
    user_id, version = value.split(":")
    return int(user_id), int(version)


def remember(header: str, user_id: int, session_version: int) -> None:
    current_app.extensions[EXTENSION].set(key_for(header), f"{user_id}:{session_version}")


def forget(header: str) -> None:
    current_app.extensions[EXTENSION].delete(key_for(header))
