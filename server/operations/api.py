"""Health check: the one endpoint that needs no login."""

from __future__ import annotations

from flask_smorest import Blueprint
from marshmallow import Schema, fields
from sqlalchemy import text

from server.core.access import PUBLIC, access
from server.core.accounts.authenticate import caller_if_any
from server.core.dialects import server_version
from server.core.extensions import db

blp = Blueprint("health", __name__, url_prefix="/api/v1", description="Liveness")


class HealthOut(Schema):
    status = fields.String(metadata={"description": "ok"})
    database = fields.String(metadata={"description": "the spatial library and its version; only to a "
                                                      "signed-in caller"})


@blp.route("/health", endpoint="health")
@access(PUBLIC)
@blp.doc(security=[])
@blp.response(200, HealthOut)
def health():
    """Is the server up and its database reachable?

    Anonymous callers learn only "ok": which database engine and version a city runs is
    for its own staff (a signed-in caller), not for whoever scans for old versions.
    """
    db.session.execute(text("SELECT 1"))
    if caller_if_any() is None:
        return {"status": "ok"}
    return {"status": "ok", "database": server_version(db.session)}
