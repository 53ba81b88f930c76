"""A real HTTP server in a thread (for an app, or the tus blueprint alone), and a TCP
proxy that cuts one PATCH short."""

from __future__ import annotations

import socket
import threading

from flask import Flask, abort, request
from werkzeug.serving import make_server

from server.field.uploads import TusServer
from server.field.uploads.blueprint import make_tus_blueprint


def make_app(tus: TusServer) -> Flask:
    """A minimal app: the blueprint, with the user named by ``X-Test-User``."""

    def owner() -> str:
        user = request.headers.get("X-Test-User")
        if not user:
            abort(401)
        return user

    app = Flask(__name__)
    app.register_blueprint(make_tus_blueprint(lambda: tus, owner))
    return app


class LiveServer:
    """Werkzeug's threaded server on 127.0.0.1 with a free port, in a thread."""

    def __init__(self, app: Flask) -> None:
        self._server = make_server("127.0.0.1", 0, app, threaded=True)
        self.port = self._server.socket.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    def __enter__(self) -> LiveServer:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._thread.join(timeout=5)


class CuttingProxy:
    """Forwards TCP to ``upstream_port``; the first PATCH is cut after ``cut_after`` bytes.

    The cut closes both sides, as a tablet losing signal would, once; every later
    connection is forwarded whole.
    """

    def __init__(self, upstream_port: int, cut_after: int) -> None:
        self.upstream_port = upstream_port
        self.cut_after = cut_after
        self.cuts = 0
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self._armed = True
        self._lock = threading.Lock()
        self._stopped = False

    def __enter__(self) -> CuttingProxy:
        threading.Thread(target=self._accept, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self._stopped = True
        self._listener.close()

    def _accept(self) -> None:
        while not self._stopped:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self.upstream_port))
            threading.Thread(target=self._upstream, args=(client, upstream), daemon=True).start()
            threading.Thread(target=self._pipe, args=(upstream, client), daemon=True).start()

    def _should_cut(self, first: bytes) -> bool:
        with self._lock:
            if self._armed and first.startswith(b"PATCH "):
                self._armed = False
                return True
            return False

    def _upstream(self, client: socket.socket, upstream: socket.socket) -> None:
        cutting = None
        sent = 0
        while True:
            try:
                data = client.recv(65536)
            except OSError:
                data = b""
            if not data:
                break
            if cutting is None:
                cutting = self._should_cut(data)
            if cutting and sent + len(data) >= self.cut_after:
                upstream.sendall(data[: self.cut_after - sent])
                self.cuts += 1
                break
            upstream.sendall(data)
            sent += len(data)
        _close(upstream, client)

    def _pipe(self, src: socket.socket, dst: socket.socket) -> None:
        while True:
            try:
                data = src.recv(65536)
                if not data:
                    break
                dst.sendall(data)
            except OSError:
                break
        _close(src, dst)


def _close(*sockets: socket.socket) -> None:
    for sock in sockets:
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        sock.close()
