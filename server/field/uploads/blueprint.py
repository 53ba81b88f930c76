"""Flask adapter for :class:`~server.field.uploads.tus.TusServer`.

The route only translates: request → plain values → ``TusServer.handle`` →
response. Authentication is the app's: ``get_owner_id`` returns the current user's
id or aborts (401/403), and ``declared`` says who may call the routes.
"""

from __future__ import annotations

from collections.abc import Callable

from flask import Blueprint, Response, request
from werkzeug.exceptions import ClientDisconnected, RequestEntityTooLarge

from server.field.uploads.tus import TusServer

# Headers a browser client (tus-js-client in the field app) must be able to read.
EXPOSED_HEADERS = ", ".join(
    [
        "Location",
        "Upload-Offset",
        "Upload-Length",
        "Upload-Expires",
        "Tus-Resumable",
        "Tus-Version",
        "Tus-Extension",
        "Tus-Max-Size",
        "Tus-Checksum-Algorithm",
    ]
)
_METHODS = ["OPTIONS", "POST", "HEAD", "PATCH", "DELETE"]


class _BodyStream:
    """``request.stream`` with a client that hung up reported as ``ConnectionError``."""

    def __init__(self, stream) -> None:
        self._stream = stream

    def read(self, size: int = -1) -> bytes:
        try:
            return self._stream.read(size)
        except ClientDisconnected as exc:
            raise ConnectionError("client disconnected") from exc


def _body():
    """The request body to stream from.

    A server that ends the body stream itself at the body's end (gunicorn sets
    ``wsgi.input_terminated``) is read directly: werkzeug's guard around it allocates and
    copies every read, 6 ms of a 4 MB photo with the interpreter lock held. The tus
    server never reads past the upload's length anyway; the size limit is checked here.
    """
    environ = request.environ
    if not environ.get("wsgi.input_terminated"):
        return _BodyStream(request.stream)
    length, limit = request.content_length, request.max_content_length
    if length is not None and limit is not None and length > limit:
        raise RequestEntityTooLarge()
    return _BodyStream(environ["wsgi.input"])


def make_tus_blueprint(
    tus_server_factory: Callable[[], TusServer],
    get_owner_id: Callable[[], str],
    url_prefix: str = "/api/v1/uploads",
    name: str = "tus_uploads",
    *,
    declared: Callable[[Callable[..., Response]], Callable[..., Response]] | None = None,
) -> Blueprint:
    """A Blueprint serving tus 1.0.0 at ``url_prefix`` and ``url_prefix/<id>``.

    Args:
        tus_server_factory: Returns the :class:`TusServer` to use; called per
            request so it can read ``current_app`` configuration.
        get_owner_id: Returns the authenticated user's id, or aborts.
        url_prefix: Where uploads are created; upload URLs sit beneath it.
        name: Blueprint name.
        declared: Who may call the routes: the app's ``@access(...)`` declaration (an app
            that enforces declarations refuses the routes without one).
    """
    bp = Blueprint(name, __name__, url_prefix=url_prefix)

    def dispatch(upload_id: str | None = None) -> Response:
        method = request.method
        override = request.headers.get("X-HTTP-Method-Override")
        if method == "POST" and override:
            method = override.upper()  # for clients behind proxies that drop PATCH
        owner_id = None if method == "OPTIONS" else get_owner_id()
        status, headers, body = tus_server_factory().handle(
            method,
            upload_id,
            dict(request.headers),
            _body(),
            owner_id,
            location_base=request.base_url if upload_id is None else "",
        )
        response = Response(body, status=status, headers=headers)
        response.headers["Access-Control-Expose-Headers"] = EXPOSED_HEADERS
        return response

    view = dispatch if declared is None else declared(dispatch)
    for rule, endpoint in (("", "collection"), ("/<upload_id>", "upload")):
        bp.add_url_rule(rule, endpoint=endpoint, view_func=view, methods=_METHODS, provide_automatic_options=False)
    return bp
