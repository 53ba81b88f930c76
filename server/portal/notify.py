"""Email to an owner who left an address: what they sent was received, and what became of
a proof of correction. Plain words, a plain-text part, and in every message the way to stop
(``/portal/stop/<token>``, also as ``List-Unsubscribe``). Sent after the request's
transaction, through :mod:`server.core.mail` (nothing is sent without ``SMTP_HOST``)."""

from __future__ import annotations

from html import escape

from flask import current_app, url_for
from itsdangerous import BadSignature, URLSafeSerializer
from sqlalchemy import select

from server.core import city, mail
from server.core.audit import trail as audit
from server.core.errors import LateralError
from server.core.extensions import db
from server.notices.kinds import notice_kind
from server.notices.models import Notice
from server.portal.models import PortalAction

SALT = "portal-stop-email"

RECEIVED = {
    "appeal": ("We received your appeal",
               "We received your appeal of the notice about {place}. The Utility Commission will decide it "
               "in writing. Your receipt number is P-{id}."),
    "proof": ("We received your proof",
              "We received the proof you sent that the work at {place} is done. The superintendent will look at "
              "it and we will write to you again."),
    "visit": ("We received your request for a visit",
              "We received your request for a visit to {place}. We will call or write to set the day."),
}
REVIEWED = {
    "accepted": ("The work is done: the notice is closed",
                 "The superintendent looked at the proof you sent for {place} and found the work done. The notice "
                 "is closed. Nothing more is needed."),
    "reinspection": ("We need to see the work",
                     "The superintendent looked at the proof you sent for {place}. We need to come and see the "
                     "work. We will call or write to set the day."),
}


def _serializer() -> URLSafeSerializer:
    return URLSafeSerializer(current_app.config["SECRET_KEY"], salt=SALT)


def stop_token(action: PortalAction) -> str:
    return _serializer().dumps({"a": action.id})


def _send(action: PortalAction, subject: str, sentence: str) -> bool:
    if not action.email or not mail.enabled():
        return False
    notice = db.session.get_one(Notice, action.notice_id)
    m = city.current().rulebook.municipality
    body = sentence.format(place=notice.site_address or f"parcel {notice.parcel_number}", id=action.id)
    stop = url_for("portal_pages.stop", token=stop_token(action), _external=True)
    text = (f"{body}\n\nNotice: {notice_kind(notice.kind).title}\nQuestions: call the {m['utility']} at "
            f"{m['phone']}.\n\nYou get this email because you gave this address on the city's website. "
            f"To stop getting emails about this notice, open {stop}\n")
    html = (f"<p>{escape(body)}</p><p>Notice: {escape(notice_kind(notice.kind).title)}<br>Questions: call the "
            f"{escape(m['utility'])} at {escape(m['phone'])}.</p><p>You get this email because you gave this "
            f"address on the city's website. <a href=\"{escape(stop)}\">Stop getting emails about this "
            "notice</a>.</p>")
    return mail.send(mail.compose(action.email, f"{subject} ({m['utility']})", text, html,
                                  {"List-Unsubscribe": f"<{stop}>"}))


def received(action: PortalAction) -> bool:
    subject, sentence = RECEIVED[action.kind]
    return _send(action, subject, sentence)


def reviewed(action: PortalAction) -> bool:
    subject, sentence = REVIEWED[action.state]
    return _send(action, subject, sentence)


def action_for_stop(token: str) -> PortalAction:
    try:
        found = _serializer().loads(token)
    except BadSignature:
        raise LateralError("not_found", "this link is not one of ours") from None
    action = db.session.get(PortalAction, found.get("a")) if isinstance(found, dict) else None
    if action is None:
        raise LateralError("not_found", "this link is not one of ours")
    return action


def stop(token: str) -> int:
    """Forget the address on every request about the same notice; how many were forgotten."""
    action = action_for_stop(token)
    if not action.email:
        return 0
    same = list(db.session.scalars(select(PortalAction).filter_by(notice_id=action.notice_id, email=action.email)))
    for a in same:
        a.email = None
    db.session.flush()
    audit.record("portal_stop_email", "notice", action.notice_id, None,
                 {"via": "portal", "portal_action_ids": [a.id for a in same]})
    return len(same)
