"""Encoded tiles kept by the layer's write version (issue #35): the same bytes are not made twice.

A tile of a layer that has not changed is the same bytes every time, and the layer's
write version (``server.network.counts``, kept by triggers on its table) rises with every
committed write, Lateral's or one typed into ``psql``. So a tile is kept under its layer,
that version and z/x/y: a write makes every older entry of its layer unreachable, with no
invalidation message to lose. The version is read before the tile is made, so an entry
holds what its version saw or something newer, never older.

Two stores, both shared by every worker: a folder (``LATERAL_TILE_CACHE_DIR``, bounded
by ``LATERAL_TILE_CACHE_MB``; the oldest entries go first), or Redis
(``LATERAL_TILE_CACHE_URI``; every host then shares it, and entries expire after a day
under Redis's own memory policy). ``LATERAL_TILE_CACHE_MB=0`` turns the cache off.
A database restored or made again starts its versions over: ``clear`` empties the store
(``flask restore`` calls it).
"""

from __future__ import annotations

import os
import tempfile
import threading
from pathlib import Path
from typing import Any, Protocol

from flask import Flask, current_app

from server.network import counts
from server.network.layers import Layer

EXTENSION = "lateral_tile_cache"
SUFFIX = ".mvt"
REDIS_SECONDS = 24 * 3600
REDIS_PREFIX = "lateral:tile:"


class Store(Protocol):
    def get(self, key: str) -> bytes | None: ...
    def put(self, key: str, data: bytes) -> None: ...
    def clear(self) -> None: ...


class FolderStore:
    """Files named by their key in one folder; past ``max_bytes`` the oldest are swept."""

    def __init__(self, folder: Path, max_bytes: int):
        self.folder, self.max_bytes = folder, max_bytes
        self._since_sweep = 0
        self._lock = threading.Lock()

    def get(self, key: str) -> bytes | None:
        try:
            return (self.folder / (key + SUFFIX)).read_bytes()
        except OSError:
            return None

    def put(self, key: str, data: bytes) -> None:
        self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.folder, suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(data)
            os.replace(tmp, self.folder / (key + SUFFIX))  # whole or absent for every worker
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        with self._lock:
            self._since_sweep += len(data)
            due = self._since_sweep > self.max_bytes // 16
            if due:
                self._since_sweep = 0
        if due:
            self.sweep()

    def sweep(self) -> None:
        """Drop the oldest entries until the folder holds at most nine tenths of its bound."""
        entries = []
        for entry in os.scandir(self.folder):
            try:
                stat = entry.stat()
            except FileNotFoundError:  # another worker swept it
                continue
            entries.append((stat.st_mtime, stat.st_size, entry.path))
        total = sum(size for _, size, _ in entries)
        for _, size, path in sorted(entries):
            if total <= self.max_bytes * 9 // 10:
                break
            Path(path).unlink(missing_ok=True)
            total -= size

    def size(self) -> int:
        return sum(e.stat().st_size for e in os.scandir(self.folder)) if self.folder.exists() else 0

    def clear(self) -> None:
        if self.folder.exists():
            for entry in os.scandir(self.folder):
                Path(entry.path).unlink(missing_ok=True)


class RedisStore:
    def __init__(self, url: str):
        import redis  # the redis extra, only when a redis:// cache is configured

        self._redis = redis.Redis.from_url(url)

    def get(self, key: str) -> bytes | None:
        value: Any = self._redis.get(REDIS_PREFIX + key)
        return value

    def put(self, key: str, data: bytes) -> None:
        self._redis.set(REDIS_PREFIX + key, data, ex=REDIS_SECONDS)

    def clear(self) -> None:
        for key in self._redis.scan_iter(match=REDIS_PREFIX + "*", count=1000):
            self._redis.delete(key)


def init_app(app: Flask) -> None:
    config = app.config
    store: Store | None = None
    if config.get("LATERAL_TILE_CACHE_URI"):
        store = RedisStore(config["LATERAL_TILE_CACHE_URI"])
    elif config.get("LATERAL_TILE_CACHE_MB", 0) > 0:
        folder = config.get("LATERAL_TILE_CACHE_DIR") or Path(app.instance_path) / "cache" / "tiles"
        store = FolderStore(Path(folder), config["LATERAL_TILE_CACHE_MB"] * 1024 * 1024)
    app.extensions[EXTENSION] = store


def store() -> Store | None:
    return current_app.extensions.get(EXTENSION)


def cached_tile(layer: Layer, z: int, x: int, y: int, make) -> tuple[bytes, bool]:
    """(the tile's bytes, whether they came from the cache); ``make()`` encodes it."""
    kept = store()
    version = counts.write_version(layer) if kept is not None else None
    if kept is None or version is None:
        return make(), False
    key = f"{layer.name}-{version}-{z}-{x}-{y}"
    data = kept.get(key)
    if data is not None:
        return data, True
    data = make()
    kept.put(key, data)
    return data, False


def clear() -> None:
    kept = store()
    if kept is not None:
        kept.clear()
