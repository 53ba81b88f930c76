"""The SQLite writers' queue: writers to one database file take turns, first come first served.

SQLite lets one writer in at a time; the others poll with growing sleeps (the busy
handler), so under load a writer can keep losing to newcomers (a push once waited
8.8 s behind 40 tablets). Here the threads of one process queue by ticket, and the
one whose turn it is takes an exclusive ``flock`` on ``<database>.writers``, which
the few processes of one host (gunicorn's workers, a CLI command) share; SQLite's own
lock then finds no one in the way. PostgreSQL locks rows, not the database, and has
no queue (``postgresql.writer_turn``).
"""

from __future__ import annotations

import fcntl
import os
import threading
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager

from server.core.errors import LateralError


class WriterQueue:
    """The queue of one database file, within one process."""

    def __init__(self, database: str) -> None:
        self._cond = threading.Condition()
        self._next = self._serving = 0
        self._abandoned: set[int] = set()
        self._fd = os.open(database + ".writers", os.O_CREAT | os.O_RDWR, 0o600)
        self._holder: int | None = None

    @contextmanager
    def turn(self, timeout: float) -> Iterator[None]:
        """Wait up to ``timeout`` seconds for this thread's turn, then hold it.

        Raises:
            LateralError: ``database_busy`` (503) when the turn did not come in time.
        """
        if self._holder == threading.get_ident():
            yield  # already this thread's turn (a write inside a write): no second ticket
            return
        with self._cond:
            ticket, self._next = self._next, self._next + 1
            if not self._cond.wait_for(lambda: self._serving == ticket, timeout):
                self._abandoned.add(ticket)
                raise _busy()
        try:
            # Blocking: the kernel wakes the process waiting as soon as the lock is let go.
            # Polling instead let one worker's threads hand the lock to each other while
            # the other worker slept between polls (a 7 s worst push at 40 tablets).
            fcntl.flock(self._fd, fcntl.LOCK_EX)
            self._holder = threading.get_ident()
            try:
                yield
            finally:
                self._holder = None
                fcntl.flock(self._fd, fcntl.LOCK_UN)
        finally:
            with self._cond:
                self._serving += 1
                while self._serving in self._abandoned:
                    self._abandoned.discard(self._serving)
                    self._serving += 1
                self._cond.notify_all()


def _busy() -> LateralError:
    return LateralError("database_busy", "too many changes are waiting for the database; try again",
                        headers={"Retry-After": "2"})


_QUEUES: dict[tuple[int, str], WriterQueue] = {}
_QUEUES_LOCK = threading.Lock()


def turn(database: str, timeout: float) -> AbstractContextManager[None]:
    """This thread's turn to write to the SQLite file ``database`` (see :class:`WriterQueue`)."""
    key = (os.getpid(), os.path.abspath(database))  # a forked worker gets its own queue and fd
    with _QUEUES_LOCK:
        queue = _QUEUES.get(key)
        if queue is None:
            queue = _QUEUES[key] = WriterQueue(key[1])
    return queue.turn(timeout)
