"""Downloads of whole layers (or a bbox of one) as GIS files."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from flask import jsonify, request, send_file, url_for
from flask_smorest import Blueprint
from marshmallow import RAISE, Schema, ValidationError

from server.core.access import SIGNED_IN, SUPERVISORS, access
from server.core.accounts.authenticate import signed_in_user
from server.core.errors import LateralError, invalid_fields
from server.core.extensions import db
from server.core.queue import service as jobs
from server.core.queue.models import Job
from server.network import exports as service
from server.network.api.features import BBox

blp = Blueprint("exports", __name__, url_prefix="/api/v1/exports",
                description="Layers as GeoPackage, zipped Shapefile, CSV (WKT geometry) or GeoJSON")


class ExportQuery(Schema):
    class Meta:
        unknown = RAISE

    bbox = BBox(metadata={"description": "only features intersecting minLon,minLat,maxLon,maxLat"})


def _split(filename: str):
    """The layer (or another domain's collection, such as permits) and the format a file name asks for."""
    name, _, suffix = filename.partition(".")
    if name not in (names := service.collection_names()):
        raise LateralError("not_found", f"no layer {name!r}", {"layers": names})
    if suffix not in service.FORMATS:
        raise LateralError("not_found", f"no export format {suffix!r}", {"formats": list(service.FORMATS)})
    return name, suffix


@blp.route("/<filename>", methods=["GET"])
@access(SIGNED_IN)
@blp.doc(parameters=[{"in": "query", "schema": ExportQuery}],
         responses={200: {"description": "the file, e.g. parcels.gpkg, mains.shp.zip, taps.csv, findings.geojson"}})
def export(filename: str):
    """One layer as a file: `<layer>.gpkg`, `.shp.zip`, `.csv` or `.geojson` (also `permits`:
    the owners' personal data only in the office's files)."""
    name, suffix = _split(filename)
    try:
        args = ExportQuery().load(request.args.to_dict())
    except ValidationError as exc:
        raise invalid_fields(exc.messages, prefix="query") from None
    tmp = Path(tempfile.mkdtemp(prefix="lateral-export-"))
    try:
        path = tmp / filename
        service.write_named_export(name, suffix, path, signed_in_user().role, args.get("bbox"))
        response = send_file(path, mimetype=service.FORMATS[suffix].media_type, as_attachment=True,
                             download_name=filename)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    response.call_on_close(lambda: shutil.rmtree(tmp, ignore_errors=True))
    return response


@blp.route("/<filename>", methods=["POST"])
@access(SIGNED_IN)
@blp.doc(parameters=[{"in": "query", "schema": ExportQuery}],
         responses={202: {"description": "the export job; `GET /api/v1/exports/jobs/<id>` hands out its file"}})
def export_job(filename: str):
    """One layer as a file, written by the job worker: for a layer too big to wait for."""
    name, suffix = _split(filename)
    try:
        args = ExportQuery().load(request.args.to_dict())
    except ValidationError as exc:
        raise invalid_fields(exc.messages, prefix="query") from None
    bbox = args.get("bbox")
    user = signed_in_user()
    job = jobs.submit(service.EXPORT_JOB, {"layer": name, "suffix": suffix,
                                           "bbox": list(bbox) if bbox else None, "role": user.role}, user)
    return jsonify(jobs.view(job)), 202, {"Location": url_for("jobs.get_job", job_id=job.id)}


@blp.route("/jobs/<int:job_id>", methods=["GET"])
@access(SIGNED_IN)
@blp.doc(responses={200: {"description": "the file the export job wrote"}})
def export_job_file(job_id: int):
    """The file of a finished export job (its submitter, supervisors)."""
    job = db.session.get(Job, job_id)
    user = signed_in_user()
    if job is None or job.kind != service.EXPORT_JOB or (job.user_id != user.id and user.role not in SUPERVISORS):
        raise LateralError("not_found", f"no export job with id {job_id}")
    if job.state != "done":
        raise LateralError("not_found", f"export job {job_id} has no file: it is {job.state}",
                           {"state": job.state})
    path = service.export_file(job.result or {})
    if path is None:
        raise LateralError("not_found", f"the file of export job {job_id} is no longer kept")
    return send_file(path, mimetype=job.result["media_type"], as_attachment=True, download_name=path.name)


def register(api, app) -> None:
    api.register_blueprint(blp)
    jobs.register_kind(app, service.EXPORT_JOB, service.run_export_job)
