"""At most N photo decoders at once on a host, across every worker process.

Each decoder child (:mod:`server.field.photos.isolated`) may take
``PHOTO_DECODE_MEMORY_MIB`` (1.5 GiB) of address space. Sixteen simultaneous first
``/display`` requests for fresh 49 MP photos would otherwise start sixteen of them. A
child runs only while it holds one of ``count`` slots: lock files in one folder of the
host (``flock``, so the slots are shared by every gunicorn worker and are let go when a
process dies). A request that finds every slot taken waits its turn, up to ``wait_s``,
then gets the decoder's retryable failure (``busy``).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from server.field.photos.errors import PhotoDecodeFailed

DEFAULT_COUNT = 2
DEFAULT_WAIT_S = 60.0


class DecoderSlots:
    """``count`` slots as lock files in ``folder`` (one folder per host)."""

    def __init__(self, count: int = DEFAULT_COUNT, folder: str | os.PathLike | None = None,
                 wait_s: float = DEFAULT_WAIT_S) -> None:
        self.count = max(1, count)
        self.folder = Path(folder) if folder else Path(tempfile.gettempdir()) / "lateral-photo-decoders"
        self.wait_s = wait_s

    @contextlib.contextmanager
    def slot(self, wait_s: float | None = None) -> Iterator[int]:
        """Hold one slot while the block runs; its number."""
        self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        deadline = time.monotonic() + (self.wait_s if wait_s is None else wait_s)
        while True:
            for number in range(self.count):
                fd = os.open(self.folder / f"slot-{number}.lock", os.O_RDWR | os.O_CREAT, 0o600)
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    os.close(fd)
                    continue
                try:
                    yield number
                finally:
                    fcntl.flock(fd, fcntl.LOCK_UN)
                    os.close(fd)
                return
            if time.monotonic() >= deadline:
                raise PhotoDecodeFailed("busy", f"all {self.count} photo decoders of this server are busy; "
                                                "try again in a minute")
            time.sleep(0.05)


_slots = DecoderSlots()


def configure(count: int, folder: str | os.PathLike | None = None, wait_s: float = DEFAULT_WAIT_S) -> None:
    """Set this process's view of the host's decoder slots (the app does, at start)."""
    global _slots
    _slots = DecoderSlots(count, folder, wait_s)


def slots() -> DecoderSlots:
    return _slots
