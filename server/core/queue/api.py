"""``GET /api/v1/jobs/<id>``: a job's state, progress, result or error."""

from __future__ import annotations

from flask_smorest import Blueprint

from server.core.access import SIGNED_IN, SUPERVISORS, access
from server.core.accounts.authenticate import signed_in_user
from server.core.errors import LateralError
from server.core.extensions import db
from server.core.queue import service
from server.core.queue.models import Job
from server.core.queue.schemas import JobOut

blp = Blueprint("jobs", __name__, url_prefix="/api/v1", description="Long work run by the job queue")


@blp.route("/jobs/<int:job_id>", methods=["GET"])
@access(SIGNED_IN)
@blp.response(200, JobOut)
def get_job(job_id: int):
    """A job: queued, done or failed; its progress so far, its result or its error (its submitter, supervisors)."""
    job = db.session.get(Job, job_id)
    user = signed_in_user()
    if job is None or (job.user_id != user.id and user.role not in SUPERVISORS):
        raise LateralError("not_found", f"no job with id {job_id}")
    return service.view(job)
