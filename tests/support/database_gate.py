"""A TCP gate in front of PostgreSQL that a test can shut and open, as a restart would.

Shutting it resets every connection through it and refuses new ones; opening it
listens on the same port again. The test's app reaches its database only through the
gate, so the machine's PostgreSQL (shared with other tests) is never restarted.
"""

from __future__ import annotations

import socket
import threading

from tests.support.live_server import CuttingProxy


class DatabaseGate:
    def __init__(self, upstream_port: int = 5432) -> None:
        self.upstream_port = upstream_port
        self._lock = threading.Lock()
        self._sockets: set[socket.socket] = set()
        self._listener: socket.socket | None = None
        self.port = 0
        self.open()

    def open(self) -> None:
        listener = socket.create_server(("127.0.0.1", self.port))
        self.port = listener.getsockname()[1]
        self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def shut(self) -> None:
        """Close the listener and reset every connection through the gate."""
        try:
            self._listener.shutdown(socket.SHUT_RDWR)  # wakes the thread blocked in accept()
        except OSError:
            pass
        self._listener.close()
        with self._lock:
            sockets, self._sockets = self._sockets, set()
        for sock in sockets:
            try:
                sock.shutdown(socket.SHUT_RDWR)  # wakes the pipe threads blocked on it
                sock.close()
            except OSError:
                pass

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self.upstream_port))
            with self._lock:
                self._sockets |= {client, upstream}
            threading.Thread(target=self._pipe, args=(client, upstream), daemon=True).start()
            threading.Thread(target=self._pipe, args=(upstream, client), daemon=True).start()

    def _pipe(self, src: socket.socket, dst: socket.socket) -> None:
        CuttingProxy._pipe(self, src, dst)  # the same byte pump, closing both ends when one goes
