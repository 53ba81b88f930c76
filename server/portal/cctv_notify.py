"""Email to the plumber about a CCTV submittal: the video was received, and the decision
(a certificate of compliance, or a repair notice). A plain-text part, and in every message
the way to stop (``/portal/plumbers/cctv/stop/<token>``, also as ``List-Unsubscribe``).
Sent after the request's transaction, through :mod:`server.core.mail`."""

from __future__ import annotations

from html import escape

from flask import current_app, url_for
from itsdangerous import BadSignature, URLSafeSerializer

from server.core import city, mail
from server.core.audit import trail as audit
from server.core.errors import LateralError
from server.core.extensions import db
from server.portal import cctv
from server.portal.cctv_models import CctvSubmittal

SALT = "portal-cctv-stop-email"

MESSAGES = {
    "received": ("We received your CCTV inspection",
                 "We received the video and the {count} observations of your CCTV inspection of the building sewer "
                 "at {place} (submittal CCTV-{id}). The superintendent will review it and we will write to you "
                 "again."),
    "certified": ("Certificate of compliance issued",
                  "We looked at your CCTV inspection of the sewer pipe at {place} (submittal CCTV-{id}). The pipe is "
                  "in good shape. We issued a certificate of compliance. You can get it from your page: {page}"),
    "repair": ("A repair notice will be sent",
               "The superintendent reviewed your CCTV inspection of the building sewer at {place} (submittal "
               "CCTV-{id}) and found defects that need repair. The city will send the owner a repair notice. "
               "See the decision on your page: {page}"),
}


def _serializer() -> URLSafeSerializer:
    return URLSafeSerializer(current_app.config["SECRET_KEY"], salt=SALT)


def stop_token(submittal: CctvSubmittal) -> str:
    return _serializer().dumps({"s": submittal.id})


def send(submittal: CctvSubmittal, what: str) -> bool:
    """Tell the plumber ``what`` happened (``received``, ``certified``, ``repair``); False when
    no email went (no mail server, or they asked to stop)."""
    if not submittal.emails or not mail.enabled():
        return False
    subject, sentence = MESSAGES[what]
    _, _, address = cctv.plumber_of(submittal)
    parcel = cctv.parcels_of([submittal])[submittal.parcel_id]
    m = city.current().rulebook.municipality
    page = url_for("cctv_pages.show", submittal_id=submittal.id, _external=True)
    stop = url_for("cctv_pages.stop", token=stop_token(submittal), _external=True)
    body = sentence.format(place=parcel.site_address or f"parcel {parcel.parcel_number}", id=submittal.id,
                           count=len(cctv.observations_of(submittal)), page=page)
    text = (f"{body}\n\nQuestions: call the {m['utility']} at {m['phone']}.\n\nYou get this email because you "
            f"sent this inspection on the city's website. To stop getting emails about it, open {stop}\n")
    html = (f"<p>{escape(body)}</p><p>Questions: call the {escape(m['utility'])} at {escape(m['phone'])}.</p>"
            f"<p>You get this email because you sent this inspection on the city's website. "
            f"<a href=\"{escape(stop)}\">Stop getting emails about it</a>.</p>")
    return mail.send(mail.compose(address, f"{subject} ({m['utility']})", text, html,
                                  {"List-Unsubscribe": f"<{stop}>"}))


def stop(token: str) -> CctvSubmittal:
    """No more email about the submittal the link names."""
    try:
        found = _serializer().loads(token)
    except BadSignature:
        raise LateralError("not_found", "this link is not one of ours") from None
    submittal = db.session.get(CctvSubmittal, found.get("s")) if isinstance(found, dict) else None
    if submittal is None:
        raise LateralError("not_found", "this link is not one of ours")
    if submittal.emails:
        submittal.emails = False
        db.session.flush()
        audit.record("cctv_stop_email", "cctv_submittal", submittal.id, {"emails": True}, {"emails": False})
    return submittal
