"""Photo evidence over the API: tus uploads at /api/v1/uploads and the stored photos.

The tus server, the photo checks and the blob store are built elsewhere
(``server/field/uploads``, ``server/field/photos``, ``server/core/storage``); this module wires them
to the app: the owner of an upload is the authenticated user, and a finished photo
becomes a ``Photo`` row.
"""

from __future__ import annotations

from pathlib import Path

from flask import Response, current_app, request
from flask_smorest import Blueprint
from sqlalchemy.exc import DBAPIError

from server.core import dialects
from server.core.access import SIGNED_IN, access
from server.core.accounts.authenticate import signed_in_user
from server.core.errors import LateralError
from server.core.extensions import db
from server.core.storage import StoreUnavailable, blob_key, make_blob_store
from server.core.web.transaction import write_transaction
from server.field import photo_records as service
from server.field.photos import PhotoDecodeFailed, decoders
from server.field.uploads import TusServer, ensure_derivatives, make_photo_ingest
from server.field.uploads.blueprint import make_tus_blueprint
from server.field.uploads.tus import UploadDeferred

BLOBS = "lateral_blobs"
TUS = "lateral_tus"
# Headroom over the largest photo for a PATCH's framing.
PATCH_SLACK_BYTES = 1024 * 1024

#: Who uploads photos: anyone logged in; an upload is its uploader's (server/field/uploads/tus.py).
UPLOADERS = access(SIGNED_IN, own="their own uploads (server/field/uploads/tus.py)")

blp = Blueprint("photos", __name__, url_prefix="/api/v1/photos",
                description="Stored photos: originals byte for byte, display images and thumbnails")


def blob_store():
    return current_app.extensions[BLOBS]


def _owner_id() -> str:
    return str(signed_in_user().id)


def _on_stored(stored) -> None:
    uploaded_by = signed_in_user().id
    # The tus PATCH that finished the upload is no write request (its bytes went to the
    # staging disk, not the database): the photo's row is a transaction of its own.
    db.session.rollback()  # end the request's read transaction: this one writes
    try:
        write_transaction(service.record_stored_photo)(stored, uploaded_by)
    except DBAPIError as exc:
        db.session.rollback()
        # The blob is stored (by content, so storing again is harmless); the row is not:
        # the upload stays unfinished and the client's retry records it.
        if dialects.is_disk_full(exc):
            raise UploadDeferred("insufficient_storage", "the database's disk is full; the photo is kept "
                                                         "and is recorded once space is freed") from exc
        if dialects.is_transient(exc):
            raise UploadDeferred("database_unavailable", "the database is not answering; the photo is "
                                                         "kept, try again shortly", 5) from exc
        raise


def register(api, app) -> None:
    """Build the blob store and tus server from the config; register both blueprints."""
    config = app.config
    store_config = config.get("BLOB_STORE") or {"backend": "local", "root": str(Path(app.instance_path) / "blobs")}
    # The settings' timeouts bound every call to the store (a given BLOB_STORE may name its own).
    timeouts = {"connect_timeout": config["LATERAL_CONNECT_TIMEOUT"], "read_timeout": config["LATERAL_READ_TIMEOUT"]}
    app.extensions[BLOBS] = make_blob_store(timeouts | store_config)
    staging = config.get("TUS_STAGING_DIR") or str(Path(app.instance_path) / "tus")
    ingest = make_photo_ingest(app.extensions[BLOBS], _on_stored, max_bytes=config["PHOTO_MAX_BYTES"],
                               max_pixels=config["PHOTO_MAX_PIXELS"],
                               decode_memory_mib=config["PHOTO_DECODE_MEMORY_MIB"])
    decoders.configure(config["PHOTO_DECODERS_PER_HOST"])
    app.extensions[TUS] = TusServer(staging, on_complete=ingest, max_size=config["PHOTO_MAX_BYTES"],
                                    expires_after=config["TUS_EXPIRES_AFTER"],
                                    max_staged_per_owner=config["TUS_MAX_STAGED_BYTES_PER_USER"])
    uploads = make_tus_blueprint(lambda: current_app.extensions[TUS], _owner_id, declared=UPLOADERS)

    @uploads.before_request
    def _photo_sized_bodies():
        # The app's body limit is for JSON; a PATCH may carry a whole photo.
        request.max_content_length = current_app.config["PHOTO_MAX_BYTES"] + PATCH_SLACK_BYTES

    app.register_blueprint(uploads)
    api.register_blueprint(blp)
    _document_tus(api, app)


def _document_tus(api, app) -> None:
    """The tus routes are a plain blueprint; list them in the OpenAPI document by hand."""
    tag = {"tags": ["photos"]}
    header = [{"in": "header", "name": "Tus-Resumable", "required": True, "schema": {"type": "string",
                                                                                     "enum": ["1.0.0"]}}]
    rules = {r.endpoint: r for r in app.url_map.iter_rules() if r.endpoint.startswith("tus_uploads.")}
    # tus refusals (400 bad header, 404, 409 offset, 415, 460 checksum …) in the one error shape.
    error = {"$ref": "#/components/responses/DEFAULT_ERROR"}
    api.spec.path(rule=rules["tus_uploads.collection"], operations={
        "post": {**tag, "summary": "Create a tus 1.0 upload (creation, creation-with-upload)",
                 "description": "Upload-Metadata: sha256, inspection_uuid, item_id, filename, and optionally "
                                "upload_id (32 hex digits: the client names the upload so it can resume one "
                                "whose answer it never saw). With Content-Type application/offset+octet-stream "
                                "the body is the upload's first bytes (see docs/sync.md).",
                 "parameters": header + [{"in": "header", "name": "Upload-Length", "required": True,
                                          "schema": {"type": "integer"}}],
                 "responses": {"201": {"description": "created; Location is the upload URL"}, "default": error}},
        "options": {**tag, "summary": "tus capabilities", "security": [],
                    "responses": {"204": {"description": "Tus-Version, Tus-Extension, Tus-Max-Size"}}},
    })
    api.spec.path(rule=rules["tus_uploads.upload"], operations={
        "head": {**tag, "summary": "Offset of an upload", "parameters": header,
                 "responses": {"200": {"description": "Upload-Offset, Upload-Length"}, "default": error}},
        "patch": {**tag, "summary": "Append bytes at Upload-Offset; the last byte stores the photo",
                  "parameters": header,
                  "requestBody": {"content": {"application/offset+octet-stream": {
                      "schema": {"type": "string", "format": "binary"}}}},
                  "responses": {"204": {"description": "accepted; Upload-Offset"},
                                "422": {"description": "photo refused (truncated, not_an_image, ...)"},
                                "default": error}},
        "delete": {**tag, "summary": "Abandon an upload", "parameters": header,
                   "responses": {"204": {"description": "gone"}, "default": error}},
    })


def _store_unavailable() -> LateralError:
    return LateralError("store_unavailable", "the photo store is not answering; try again shortly",
                        headers={"Retry-After": "30"})


def _send(sha256: str, variant: str | None) -> Response:
    photo = service.photo_or_404(sha256)
    key, mimetype = service.blob_key_for(photo, variant)
    store = blob_store()
    if variant is not None:
        # Made on first request (and then kept), not during the upload.
        try:
            ensure_derivatives(store, photo.sha256, decode_memory_mib=current_app.config["PHOTO_DECODE_MEMORY_MIB"])
        except StoreUnavailable as exc:
            raise _store_unavailable() from exc
        except PhotoDecodeFailed as exc:
            current_app.logger.warning("photo %s: its %s image was not made: %s", photo.sha256, variant, exc)
            raise LateralError("display_failed",
                               f"the {variant} image could not be made now ({exc.message}); the original is kept "
                               "and available, try again later", headers={"Retry-After": "60"}) from exc
        except Exception as exc:
            current_app.logger.exception("photo %s: cannot make its %s image", photo.sha256, variant)
            raise LateralError("not_displayable",
                               "the photo's pixels cannot be decoded; the original is available") from exc
    key = key or blob_key(photo.sha256)
    try:
        size = store.size_key(key)
    except StoreUnavailable as exc:
        raise _store_unavailable() from exc
    response = Response(store.stream(key), mimetype=mimetype, direct_passthrough=True)
    response.content_length = size
    response.set_etag(f"{photo.sha256}-{variant or 'original'}")
    response.headers["Cache-Control"] = "private, max-age=31536000, immutable"
    return response


@blp.route("/<string:sha256>", methods=["GET"])
@access(SIGNED_IN)
def original(sha256: str):
    """The photo as uploaded, byte for byte (HEAD: does the server have it?)."""
    return _send(sha256, None)


@blp.route("/<string:sha256>/display", methods=["GET"])
@access(SIGNED_IN)
def display(sha256: str):
    """Upright JPEG, at most 2048 px on the longest side, without EXIF."""
    return _send(sha256, "display")


@blp.route("/<string:sha256>/thumbnail", methods=["GET"])
@access(SIGNED_IN)
def thumbnail(sha256: str):
    """Upright JPEG, at most 256 px, without EXIF."""
    return _send(sha256, "thumbnail")


@blp.route("/<string:sha256>/info", methods=["GET"])
@access(SIGNED_IN)
def info(sha256: str):
    """What the photo says about itself: format, size, time, position, camera."""
    return service.photo_out(service.photo_or_404(sha256))
