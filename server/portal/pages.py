"""The owners' pages under ``/portal/``: the lookup form, and the notice it opens.

Phone first, no staff navigation, no login. Every form carries the session's token
(:mod:`server.core.web.csrf`), checked on each POST before anything else runs.
"""

from __future__ import annotations

import hmac

from flask import Blueprint, g, redirect, render_template, request, session, url_for

from server.core import city
from server.core.access import CODE_HOLDER, PUBLIC, access, pages
from server.core.errors import LateralError, status_of
from server.core.web import csrf
from server.portal import lookup

bp = Blueprint("portal_pages", __name__, template_folder="templates", url_prefix="/portal")
pages(bp, purpose="These pages are for the owner of a property that received a notice.")


@bp.app_context_processor
def _inject_csrf():
    return {"csrf_token": csrf.csrf_token}


@bp.context_processor
def _utility():
    m = city.current().rulebook.municipality
    return {"utility": m["utility"], "phone": m["phone"]}


@bp.before_request
def _check_csrf():
    if request.method == "POST":
        sent, expected = request.form.get("csrf_token", ""), session.get("csrf_token", "")
        if not expected or not hmac.compare_digest(sent, expected):
            raise csrf.stale_form()


@bp.route("/", methods=["GET"])
@access(PUBLIC)
def start():
    """The lookup form (the letter's QR code fills in the code from the address's ``#code=``)."""
    csrf.csrf_token()
    return render_template("portal/start.html", error=None, parcel_number="")


@bp.route("/", methods=["POST"])
@access(PUBLIC)
def open_notice():
    """Check the code and parcel number; open the notice, or say what to check."""
    parcel_number = request.form.get("parcel_number", "")[:64]
    try:
        who = lookup.lookup(request.form.get("code", "")[:64], parcel_number)
    except LateralError as exc:
        if exc.code not in ("invalid_fields", "lookup_failed", "too_many_lookups"):
            raise
        return render_template("portal/start.html", error=exc.message,
                               parcel_number=parcel_number), status_of(exc.code), exc.headers or {}
    lookup.enter(who)
    return redirect(url_for("portal_pages.notice"))


@bp.route("/notice", methods=["GET"])
@access(CODE_HOLDER)
def notice():
    """The notice, as the owner reads it."""
    return render_template("portal/notice.html", n=lookup.notice_view(lookup.notice_of(g.caller)))


@bp.route("/leave", methods=["POST"])
@access(CODE_HOLDER)
def leave():
    """Close the notice on this device (a shared computer)."""
    lookup.leave()
    return redirect(url_for("portal_pages.start"))
