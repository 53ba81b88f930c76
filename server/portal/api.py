"""The portal's API under ``/api/v1/portal/``: a lookup, and the notice it opened.

``POST /api/v1/portal/lookup`` (``code``, ``parcel_number``) answers with the notice as the
portal shows it and keeps the code holder in the session cookie; ``GET
/api/v1/portal/notice`` reads it again with that cookie. No staff route takes the cookie as
a login, nor any route here a login.
"""

from __future__ import annotations

from flask import g
from flask_smorest import Blueprint
from marshmallow import Schema, fields, validate

from server.core.access import CODE_HOLDER, PUBLIC, access
from server.core.web.body import load_json
from server.portal import lookup

blp = Blueprint("portal", __name__, url_prefix="/api/v1/portal", description="The owners' portal")


class LookupIn(Schema):
    code = fields.String(required=True, validate=validate.Length(max=64))
    parcel_number = fields.String(required=True, validate=validate.Length(max=64))


@blp.route("/lookup", methods=["POST"])
@access(PUBLIC)
def lookup_notice():
    """Open a notice with the code on its letter and the parcel's number (throttled)."""
    data = load_json(LookupIn())
    who = lookup.lookup(data["code"], data["parcel_number"])
    lookup.enter(who)
    return lookup.notice_view(lookup.notice_of(who))


@blp.route("/notice", methods=["GET"])
@access(CODE_HOLDER)
def notice():
    """The notice the session's code opened."""
    return lookup.notice_view(lookup.notice_of(g.caller))
