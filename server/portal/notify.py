"""Email to an owner who left an address, when something they wait for changes:

* what they sent was received (an appeal, a proof of correction, a request for a visit);
* the superintendent's review of a proof: accepted (the notice closed) or a reinspection;
* an inspector's visit was set for the parcel (heard from :mod:`server.field.events`: an
  assignment made for it, a reinspection or a survey visit);
* the Commission (or Council) decided their appeal (heard from :mod:`server.notices.events`).

Plain words in the language the owner read the portal in (``PortalAction.language``), a
plain-text part, and in every message the way to stop (``/portal/stop/<token>``, also as
``List-Unsubscribe``). Nothing is sent before the write it tells of commits: the messages
heard from events wait in the session (:func:`_queue`) until its commit, and are dropped on
a rollback; :mod:`server.core.mail` sends them (nothing without ``SMTP_HOST``).
"""

from __future__ import annotations

from email.message import EmailMessage
from html import escape

from flask import Flask, current_app, has_request_context, url_for
from itsdangerous import BadSignature, URLSafeSerializer
from sqlalchemy import select

from server.core import city, mail, settings
from server.core.audit import trail as audit
from server.core.errors import LateralError
from server.core.extensions import db
from server.field import events as field_events
from server.field.models import Assignment
from server.notices import events as notice_events
from server.notices.appeals import appeals_of
from server.notices.kinds import notice_kind
from server.notices.models import Notice
from server.notices.workflow import is_closed
from server.portal.actions import body_name
from server.portal.i18n import N_, _, long_date, speaking
from server.portal.models import PortalAction

SALT = "portal-stop-email"

#: (subject, sentence) of each message, in English; ``%(place)s`` is the property.
RECEIVED = {
    "appeal": (N_("We received your appeal"),
               N_("We received your appeal of the notice about %(place)s. The Utility Commission will decide it "
                  "in writing. Your receipt number is P-%(id)s.")),
    "proof": (N_("We received your proof"),
              N_("We received the proof you sent that the work at %(place)s is done. The superintendent will look "
                 "at it and we will write to you again.")),
    "visit": (N_("We received your request for a visit"),
              N_("We received your request for a visit to %(place)s. We will call or write to set the day.")),
}
REVIEWED = {
    "accepted": (N_("The work is done: the notice is closed"),
                 N_("The superintendent looked at the proof you sent for %(place)s and found the work done. The "
                    "notice is closed. Nothing more is needed.")),
    "reinspection": (N_("We need to see the work"),
                     N_("The superintendent looked at the proof you sent for %(place)s. We need to come and see "
                        "the work. We will call or write to set the day.")),
}
VISIT_SET = {
    "day": (N_("A day is set for our visit"),
            N_("An inspector will come to %(place)s by %(day)s. If that day does not suit you, call us.")),
    "soon": (N_("Our visit is set"),
             N_("An inspector will come to %(place)s soon. We will call or write to set the day.")),
}
#: By the decision (``NoticeAppeal.decision``); ``%(body)s`` is who decided.
DECIDED = {
    "upheld": (N_("Your appeal was decided"),
               N_("The %(body)s decided your appeal of the notice about %(place)s. It kept the notice. A letter "
                  "with the decision will come by mail. It says what to do and by when.")),
    "modified": (N_("Your appeal was decided"),
                 N_("The %(body)s decided your appeal of the notice about %(place)s. It changed the notice. A "
                    "letter with the decision will come by mail. It says what to do and by when.")),
    "overturned": (N_("Your appeal was decided"),
                   N_("The %(body)s decided your appeal of the notice about %(place)s in your favor. The notice "
                      "is cancelled. A letter with the decision will come by mail.")),
}


def _serializer() -> URLSafeSerializer:
    return URLSafeSerializer(current_app.config["SECRET_KEY"], salt=SALT)


def stop_token(action: PortalAction) -> str:
    return _serializer().dumps({"a": action.id})


def _stop_link(action: PortalAction) -> str | None:
    """The stop page's full address: this server's, or ``LATERAL_PORTAL_URL``'s outside a
    request (a command, the job worker); None when neither is known."""
    token = stop_token(action)
    if has_request_context():
        return url_for("portal_pages.stop", token=token, _external=True)
    configured = settings.current().portal_url
    return f"{configured.rstrip('/')}/stop/{token}" if configured else None


def _message(action: PortalAction, subject: str, sentence: str, **fields: object) -> EmailMessage | None:
    """The message to ``action``'s address in its language, or None (no address, no mail)."""
    if not action.email or not mail.enabled():
        return None
    stop = _stop_link(action)
    if stop is None:
        current_app.logger.warning("email about portal request %s not sent: no LATERAL_PORTAL_URL", action.id)
        return None
    notice = db.session.get_one(Notice, action.notice_id)
    m = city.current().rulebook.municipality
    with speaking(action.language):
        place = notice.site_address or _("parcel %(number)s", number=notice.parcel_number)
        body = _(sentence, place=place, id=action.id, **fields)
        title = _(notice_kind(notice.kind).title)
        questions = _("Questions: call the %(utility)s at %(phone)s.", utility=m["utility"], phone=m["phone"])
        why = _("You get this email because you gave this address on the city's website.")
        about = _("Notice: %(title)s", title=title)
        stop_text = _("To stop getting emails about this notice, open %(link)s", link=stop)
        stop_link = _("Stop getting emails about this notice")
        text = f"{body}\n\n{about}\n{questions}\n\n{why} {stop_text}\n"
        html = (f"<p>{escape(body)}</p><p>{escape(about)}<br>{escape(questions)}</p>"
                f"<p>{escape(why)} <a href=\"{escape(stop)}\">{escape(stop_link)}</a>.</p>")
        lang = action.language
        subject_line = f"{_(subject)} ({m['utility']})"
    message = mail.compose(action.email, subject_line, text, html, {"List-Unsubscribe": f"<{stop}>"})
    message["Content-Language"] = lang
    return message


def _send(action: PortalAction, subject: str, sentence: str, **fields: object) -> bool:
    message = _message(action, subject, sentence, **fields)
    return mail.send(message) if message is not None else False


def received(action: PortalAction) -> bool:
    """Sent by the owner's page once their request has committed."""
    subject, sentence = RECEIVED[action.kind]
    return _send(action, subject, sentence)


def reviewed(action: PortalAction) -> bool:
    """Sent by the superintendent's page once the review has committed."""
    subject, sentence = REVIEWED[action.state]
    return _send(action, subject, sentence)


# ------------------------------------------------------------------ heard from events


def _queue(message: EmailMessage | None) -> None:
    """Send ``message`` when the session's transaction commits (never if it rolls back)."""
    if message is not None:
        mail.send_after_commit(message)


def _waiting_for_visit(parcel_id: int) -> list[PortalAction]:
    """Owners of the parcel's open notices who wait for a visit: they asked for one, or the
    superintendent answered their proof with a reinspection. One per address and notice."""
    found = db.session.execute(
        select(PortalAction, Notice).join(Notice, Notice.id == PortalAction.notice_id)
        .where(Notice.parcel_id == parcel_id, PortalAction.email.is_not(None))
        .order_by(PortalAction.id.desc()))
    out: dict[tuple[int, str], PortalAction] = {}
    for action, notice in found:
        waits = action.kind == "visit" or (action.kind == "proof" and action.state == "reinspection")
        if waits and not is_closed(notice):
            out.setdefault((notice.id, action.email), action)
    return list(out.values())


def visit_set(_app, *, assignment: Assignment) -> None:
    """An inspector is sent to the parcel: tell the owners who wait for the visit."""
    for action in _waiting_for_visit(assignment.parcel_id):
        if assignment.due_on is not None:
            subject, sentence = VISIT_SET["day"]
            with speaking(action.language):
                day = long_date(assignment.due_on)
            _queue(_message(action, subject, sentence, day=day))
        else:
            _queue(_message(action, *VISIT_SET["soon"]))


def appeal_decided(_app, *, notice: Notice, event: str) -> None:
    """The body's decision on an appeal filed online is recorded: tell whoever filed it."""
    if event != "decide":
        return
    decided = [a for a in appeals_of(notice) if a.decision is not None]
    if not decided:
        return
    appeal = decided[-1]
    if appeal.decision not in DECIDED:
        return
    subject, sentence = DECIDED[str(appeal.decision)]
    for action in db.session.scalars(select(PortalAction).filter_by(notice_id=notice.id, kind="appeal",
                                                                    appeal_id=appeal.id)):
        with speaking(action.language):
            body = body_name(appeal.level)
        _queue(_message(action, subject, sentence, body=body))


def connect(app: Flask) -> None:
    """Hear the events whose news owners wait for (each message is sent after the commit)."""
    field_events.connect(app, field_events.assignment_created, visit_set)
    field_events.connect(app, notice_events.notice_changed, appeal_decided)


# ------------------------------------------------------------------ stopping


def action_for_stop(token: str) -> PortalAction:
    try:
        found = _serializer().loads(token)
    except BadSignature:
        raise LateralError("not_found", _("this link is not one of ours")) from None
    action = db.session.get(PortalAction, found.get("a")) if isinstance(found, dict) else None
    if action is None:
        raise LateralError("not_found", _("this link is not one of ours"))
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
