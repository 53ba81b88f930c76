"""Plumbers' CCTV submittals, for the superintendent: the ones waiting for review, and one
submittal's video beside its coded observations, with the decision: a certificate of
compliance, or a repair notice drafted from the observations picked. Thin routes over
:mod:`server.portal.cctv`; forms carry the session's token; every route is the
superintendent's and the administrator's.

The video is served by the app with HTTP range requests (``Accept-Ranges: bytes``, 206
answers), so the browser's player seeks without fetching the whole file first.
"""

from __future__ import annotations

from flask import Blueprint, Response, current_app, flash, redirect, render_template, request, url_for
from werkzeug.wsgi import wrap_file

from server.core.access import SUPERVISORS, NavLink, access, pages
from server.core.accounts.authenticate import logged_in_user
from server.core.errors import LateralError
from server.core.storage import StoreUnavailable
from server.core.web import csrf
from server.core.web.transaction import write_transaction
from server.portal import cctv, cctv_notify, lacp

CHUNK = 256 * 1024

bp = Blueprint("cctv_review", __name__, template_folder="../templates", url_prefix="/review/cctv")
pages(bp, purpose="Reviewing plumbers' CCTV inspections is the superintendent's.")


@bp.before_request
def _check_csrf():
    if request.method == "POST" and not csrf.matches(request.form.get("csrf_token")):
        raise csrf.stale_form()


@bp.route("/")
@access(SUPERVISORS, nav=NavLink("CCTV", 53))
def queue():
    """CCTV submittals whose video arrived, waiting for a decision, oldest first."""
    waiting = cctv.waiting()
    return render_template("cctv_review/queue.html", waiting=waiting, parcels=cctv.parcels_of(waiting))


@bp.route("/<int:submittal_id>")
@access(SUPERVISORS)
def show(submittal_id: int):
    """The video beside the observations; the decision's two forms."""
    submittal = cctv.get(submittal_id)
    plumber, license_number, _ = cctv.plumber_of(submittal)
    return render_template("cctv_review/show.html", s=submittal, observations=cctv.observations_of(submittal),
                           parcel=cctv.parcels_of([submittal])[submittal.parcel_id], plumber=plumber,
                           license_number=license_number, permit_number=cctv.permit_number(submittal),
                           certificate=cctv.certificate_of(submittal), describe=lacp.describe)


@bp.route("/<int:submittal_id>/video")
@access(SUPERVISORS)
def video(submittal_id: int):
    """The video, byte ranges on request (the player's seeking)."""
    submittal = cctv.get(submittal_id)
    store = current_app.extensions.get("lateral_blobs")
    if not submittal.video_sha256 or store is None:
        raise LateralError("not_found", "this submittal has no video yet")
    try:
        size = store.size(submittal.video_sha256)
        stream = store.open(submittal.video_sha256)
    except StoreUnavailable as exc:
        raise LateralError("store_unavailable", "the video store is not answering; try again shortly",
                           headers={"Retry-After": "30"}) from exc
    # A file wrapper the range answer can seek in (a local blob), or read forward in (S3).
    response = Response(wrap_file(request.environ, stream, CHUNK), mimetype=submittal.video_media_type,
                        direct_passthrough=True)
    response.content_length = size
    response.set_etag(submittal.video_sha256)
    response.headers["Cache-Control"] = "private, max-age=31536000, immutable"
    # Werkzeug answers a Range header with 206 and the bytes asked for (416 past the end).
    return response.make_conditional(request, accept_ranges=True, complete_length=size)


@bp.route("/<int:submittal_id>/certify", methods=["POST"])
@access(SUPERVISORS)
def certify(submittal_id: int):
    """Issue the certificate of compliance."""
    user = logged_in_user()
    try:
        write_transaction(lambda: cctv.certify(submittal_id, request.form.get("reason", ""), user))()
    except LateralError as exc:
        flash(exc.message, "error")
        return redirect(url_for("cctv_review.show", submittal_id=submittal_id))
    told = cctv_notify.send(cctv.get(submittal_id), "certified")
    flash("Certificate of compliance issued." + (" The plumber was told by email." if told else ""), "ok")
    return redirect(url_for("cctv_review.show", submittal_id=submittal_id))


@bp.route("/<int:submittal_id>/repair", methods=["POST"])
@access(SUPERVISORS)
def repair(submittal_id: int):
    """Draft the repair notice citing the observations picked."""
    user = logged_in_user()
    picked = [int(v) for v in request.form.getlist("observation_ids") if v.isascii() and v.isdigit() and len(v) < 10]
    try:
        notice = write_transaction(lambda: cctv.order_repair(submittal_id, picked, request.form.get("reason", ""),
                                                             user))()
    except LateralError as exc:
        flash(exc.message, "error")
        return redirect(url_for("cctv_review.show", submittal_id=submittal_id))
    told = cctv_notify.send(cctv.get(submittal_id), "repair")
    flash(f"Repair notice {notice.id} drafted: approve it on the notice desk."
          + (" The plumber was told by email." if told else ""), "ok")
    return redirect(url_for("cctv_review.show", submittal_id=submittal_id))


@bp.route("/<int:submittal_id>/certificate.pdf")
@access(SUPERVISORS)
def certificate(submittal_id: int):
    found = cctv.certificate_of(cctv.get(submittal_id))
    if found is None:
        raise LateralError("not_found", "no certificate for this submittal")
    return Response(found.pdf, mimetype="application/pdf",
                    headers={"Content-Disposition": f'inline; filename="certificate-CCTV-{submittal_id}.pdf"'})


def init_app(app) -> None:
    app.register_blueprint(bp)
