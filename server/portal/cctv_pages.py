"""A plumber's CCTV submittals under ``/portal/plumbers/cctv/``, and the tus endpoint their
videos arrive at, ``/api/v1/portal/cctv/uploads``.

The form keeps the submittal and its coded observations (:func:`server.portal.cctv.submit`);
its page then sends the video resumably with tus-js-client (``cctv_upload.js``), chunk by
chunk, each chunk kept on the server's disk before it answers, so a dropped LTE connection
costs one chunk. The tus server is the field app's (:class:`~server.field.uploads.TusServer`:
uploads scoped to their owner, a quota of staged bytes per owner, expiry), with its own
staging folder and the ``CCTV_MAX_BYTES`` limit; the last byte's hook reads what the bytes
are (MP4, QuickTime or WebM, or refused), keeps them in the blob store by SHA-256 and marks
the submittal received, in a transaction of its own as a photo's row is
(``server/field/api/photos.py``). Another plumber's submittal or upload is not found.
"""

from __future__ import annotations

from pathlib import Path

from flask import Blueprint, Response, current_app, redirect, render_template, request, url_for
from sqlalchemy.exc import DBAPIError

from server.core import city, dialects, settings
from server.core.access import PLUMBERS, PUBLIC, access, pages
from server.core.accounts.authenticate import logged_in_user, signed_in_user
from server.core.errors import LateralError, status_of
from server.core.extensions import db
from server.core.storage import StoreUnavailable
from server.core.web import csrf
from server.core.web.transaction import write_transaction
from server.field.uploads import TusServer
from server.field.uploads.blueprint import make_tus_blueprint
from server.field.uploads.tus import NO_SPACE, UploadDeferred, UploadInfo, UploadRejected
from server.portal import cctv, cctv_notify, lacp

TUS = "lateral_cctv_tus"
BLOBS = "lateral_blobs"
#: Headroom over a tus chunk for a PATCH's framing.
PATCH_SLACK_BYTES = 1024 * 1024
#: What the browser sends per PATCH: what a cut connection costs at most to send again.
CHUNK_BYTES = 8 * 1024 * 1024
#: The most one PATCH may carry (a client sends a video in parts; nginx's
#: ``client_max_body_size`` for these uploads is this plus the slack, deploy/nginx/lateral.conf).
PATCH_MAX_BYTES = 32 * 1024 * 1024
#: Blank rows of observations the form offers.
FORM_ROWS = 8
#: The uploads are a plumber's own (server/field/uploads/tus.py scopes them per owner),
#: and only to a submittal of theirs that waits for its video (server/portal/cctv.py).
UPLOADERS = access(PLUMBERS, own="their own submittals' videos (server/portal/cctv.py)", own_roles=PLUMBERS)
OWN = "their own submittals (server/portal/cctv.py)"

bp = Blueprint("cctv_pages", __name__, template_folder="templates", url_prefix="/portal/plumbers/cctv")
pages(bp, purpose="These pages are for licensed plumbers with an account.")


@bp.before_request
def _check_csrf():
    if request.method == "POST" and not csrf.matches(request.form.get("csrf_token")):
        raise csrf.stale_form()


@bp.context_processor
def _inject():
    m = city.current().rulebook.municipality
    return {"csrf_token": csrf.csrf_token, "utility": m["utility"], "phone": m["phone"]}


def _plumber():
    user = logged_in_user()
    if user is None:  # the gate let a plumber's session through; it ended since
        raise LateralError("unauthorized", "log in again")
    return user


@bp.route("/", methods=["GET"])
@access(PLUMBERS, own=OWN, own_roles=PLUMBERS)
def index():
    """Your CCTV submittals: where each stands, and the decision."""
    mine = cctv.of_plumber(_plumber())
    return render_template("portal/cctv_list.html", submittals=mine, parcels=cctv.parcels_of(mine))


def _form_page(form: dict, error: str | None = None, field: str | None = None, status: int = 200):
    rows = max(FORM_ROWS, len(form.get("observations", [])))
    return render_template("portal/cctv_new.html", form=form, error=error, field=field, rows=rows,
                           codes=lacp.codes().values()), status


@bp.route("/new", methods=["GET"])
@access(PLUMBERS)
def new():
    """Send a CCTV inspection: the lateral's parcel, your permit or the notice, the observations."""
    _plumber()
    return _form_page({"observations": []})


def _observations(f) -> list[dict]:
    rows = []
    for n in range(1, cctv.MAX_OBSERVATIONS + 1):
        row = {k: f.get(f"obs-{n}-{k}", "")[:600] for k in ("code", "distance_ft", "clock", "grade", "seconds",
                                                               "remark")}
        if f"obs-{n}-code" not in f:
            break
        rows.append(row)
    return rows


@bp.route("/new", methods=["POST"])
@access(PLUMBERS)
def create():
    user = _plumber()
    f = request.form
    submission = cctv.Submission(
        parcel_number=f.get("parcel_number", "")[:40], inspected_on=f.get("inspected_on", "")[:20],
        permit_number=f.get("permit_number", "")[:20], notice_id=f.get("notice_id", "")[:12],
        note=f.get("note", "")[:cctv.MAX_NOTE + 1], observations=_observations(f))
    try:
        submittal = write_transaction(lambda: cctv.submit(user, submission))()
    except LateralError as exc:
        if status_of(exc.code) >= 500:
            raise
        fields = (exc.details or {}).get("fields") or {}
        form = {k: v for k, v in f.items() if k != "csrf_token"} | {"observations": submission.observations}
        return _form_page(form, exc.message, next(iter(fields), None), status_of(exc.code))
    return redirect(url_for("cctv_pages.show", submittal_id=submittal.id))


@bp.route("/<int:submittal_id>", methods=["GET"])
@access(PLUMBERS, own=OWN, own_roles=PLUMBERS)
def show(submittal_id: int):
    """One submittal: its observations, the video's upload while it waits for it, the decision."""
    submittal = cctv.own(_plumber(), submittal_id)
    return render_template("portal/cctv_show.html", s=submittal, observations=cctv.observations_of(submittal),
                           parcel=cctv.parcels_of([submittal])[submittal.parcel_id],
                           certificate=cctv.certificate_of(submittal), permit_number=cctv.permit_number(submittal),
                           endpoint=url_for("cctv_uploads.collection"), chunk=CHUNK_BYTES,
                           max_bytes=settings.current().cctv_max_bytes, describe=lacp.describe)


@bp.route("/<int:submittal_id>/certificate.pdf", methods=["GET"])
@access(PLUMBERS, own=OWN, own_roles=PLUMBERS)
def certificate(submittal_id: int):
    found = cctv.certificate_of(cctv.own(_plumber(), submittal_id))
    if found is None:
        raise LateralError("not_found", "no certificate for this submittal")
    return Response(found.pdf, mimetype="application/pdf",
                    headers={"Content-Disposition": f'attachment; filename="certificate-CCTV-{submittal_id}.pdf"'})


@bp.route("/stop/<token>", methods=["GET"])
@access(PUBLIC)
def stop_form(token: str):
    """The link in every email: a button to stop them (a mail scanner's GET changes nothing)."""
    return render_template("portal/cctv_stop.html", token=token, done=False)


@bp.route("/stop/<token>", methods=["POST"])
@access(PUBLIC)
def stop(token: str):
    write_transaction(lambda: cctv_notify.stop(token))()
    return render_template("portal/cctv_stop.html", token=token, done=True)


# ------------------------------------------------------------------ the video over tus


def _owner_id() -> str:
    return str(signed_in_user().id)


def _ingest(upload: UploadInfo, path: Path) -> None:
    """The last byte arrived: check it is a video for the uploader's submittal, keep it, record it."""
    try:
        submittal, kind = cctv.check_video(path, upload.owner, upload.metadata.get("submittal_id"))
    except LateralError as exc:
        raise UploadRejected(exc.code, exc.message, exc.details) from None
    sha256 = upload.sha256
    if sha256 is None:  # tus sets it as the last byte is written: a video without one was never whole
        raise UploadRejected("invalid_fields", "the video arrived without its checksum; send it again")
    try:
        current_app.extensions[BLOBS].put_file(path, sha256, verified=True, link=True)
    except OSError as exc:
        if exc.errno not in NO_SPACE:
            raise
        raise UploadDeferred("insufficient_storage", "the video store's disk is full; the video is kept and is "
                                                     "stored once space is freed") from exc
    except StoreUnavailable as exc:
        raise UploadDeferred("store_unavailable", "the video store is not answering; the video is kept, try "
                                                  "again shortly", 30) from exc
    submittal_id, size = submittal.id, path.stat().st_size
    db.session.rollback()  # end the request's read transaction: this one writes
    try:
        found = write_transaction(cctv.attach_video)(submittal_id, upload.owner, sha256, kind, size,
                                                     upload.metadata.get("filename"))
    except DBAPIError as exc:
        db.session.rollback()
        if dialects.is_transient(exc) or dialects.is_disk_full(exc):
            raise UploadDeferred("database_unavailable", "the database is not answering; the video is kept, "
                                                         "try again shortly", 5) from exc
        raise
    cctv_notify.send(found, "received")


def register(app) -> None:
    """The CCTV tus server (its own staging folder and size limit) and both blueprints."""
    config = app.config
    staging = Path(config.get("TUS_STAGING_DIR") or Path(app.instance_path) / "tus") / "cctv"
    app.extensions[TUS] = TusServer(staging, on_complete=_ingest, max_size=config["CCTV_MAX_BYTES"],
                                    expires_after=config["TUS_EXPIRES_AFTER"],
                                    # two videos in flight at once, at most, per plumber
                                    max_staged_per_owner=2 * config["CCTV_MAX_BYTES"])
    uploads = make_tus_blueprint(lambda: current_app.extensions[TUS], _owner_id,
                                 url_prefix="/api/v1/portal/cctv/uploads", name="cctv_uploads", declared=UPLOADERS)

    @uploads.before_request
    def _part_sized_bodies():
        # The app's body limit is for JSON; a PATCH carries a part of the video.
        request.max_content_length = PATCH_MAX_BYTES + PATCH_SLACK_BYTES

    app.register_blueprint(uploads)
    app.register_blueprint(bp)
