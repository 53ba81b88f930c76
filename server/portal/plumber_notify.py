"""Email to a plumber about the permits they applied for online, when something they wait
for changes: the application received, approved or rejected (with the reason), the permit
issued, the inspection scheduled (an inspector and a day), the inspection passed or failed
(with what to correct).

Heard through :mod:`server.permits.events` in the step's transaction; each message goes
once that transaction commits (:func:`server.core.mail.send_after_commit`), so nobody is
told of a step that was rolled back. A plain-text part, and in every message the way to
stop (``/portal/plumbers/stop/<token>``, also as ``List-Unsubscribe``).
"""

from __future__ import annotations

from html import escape
from urllib.parse import urljoin

from flask import Flask, current_app
from itsdangerous import BadSignature, URLSafeSerializer
from sqlalchemy import select

from server.core import city, mail
from server.core.audit import trail as audit
from server.core.errors import LateralError
from server.core.extensions import db
from server.core.models import utcnow
from server.field.events import connect as connect_signal
from server.field.models import Assignment
from server.network.models import Parcel
from server.permits import events
from server.permits.models import Permit
from server.portal.i18n import _
from server.portal.letters import portal_address
from server.portal.models import PlumberLicense

SALT = "plumber-stop-email"


def connect(app: Flask) -> None:
    connect_signal(app, events.permit_changed, _changed)


def _serializer() -> URLSafeSerializer:
    return URLSafeSerializer(current_app.config["SECRET_KEY"], salt=SALT)


def stop_token(user_id: int) -> str:
    return _serializer().dumps({"p": user_id})


def license_for_stop(token: str) -> PlumberLicense:
    try:
        found = _serializer().loads(token)
    except BadSignature:
        raise LateralError("not_found", "this link is not one of ours") from None
    user_id = found.get("p") if isinstance(found, dict) else None
    lic = db.session.scalar(select(PlumberLicense).filter_by(user_id=user_id)) if isinstance(user_id, int) else None
    if lic is None:
        raise LateralError("not_found", "this link is not one of ours")
    return lic


def stop(token: str) -> PlumberLicense:
    """No more email to this plumber about their permits (audited as the link's holder)."""
    lic = license_for_stop(token)
    if lic.emails_stopped_at is None:
        lic.emails_stopped_at = utcnow()
        db.session.flush()
        audit.record("plumber_stop_email", "user", lic.user_id, None, {"via": "portal"})
    return lic


def _corrections(permit: Permit) -> list[str]:
    lines = []
    for c in permit.corrections or []:
        measured = _(", measured %(value)s", value=c["measured"]) if c.get("measured") else ""
        lines.append(f"- {c.get('note') or c.get('item')} ({c.get('section')}{measured})")
    return lines


def _words(permit: Permit, event: str) -> tuple[str, list[str]] | None:
    """The subject and the paragraphs for ``event`` on ``permit``, or None for a step the
    plumber is not waiting for."""
    n = permit.number
    if event == "apply":
        return (_("We received your application for permit %(n)s", n=n),
                [_("We received your application for permit %(n)s. The clerk will review it and write to you "
                   "again.", n=n),
                 _("Fees: $%(total)s, paid to the clerk once the permit is approved.", total=permit.fee_total)])
    if event == "approve":
        return (_("Permit %(n)s is approved", n=n),
                [_("Permit %(n)s is approved. Pay the fees of $%(total)s to the clerk; the permit is issued once "
                   "they are paid.", n=n, total=permit.fee_total)])
    if event == "reject":
        return (_("Permit %(n)s is not approved", n=n),
                [_("Your application for permit %(n)s is not approved.", n=n),
                 _("The reason: %(reason)s", reason=permit.rejected_reason or "")])
    if event == "issue":
        return (_("Permit %(n)s is issued", n=n),
                [_("Permit %(n)s is issued. Print the permit card from your page and post it at the site. Ask "
                   "for the inspection before you backfill the trench.", n=n)])
    if event == "assign":
        assignment = db.session.get(Assignment, permit.assignment_id) if permit.assignment_id else None
        day = assignment.due_on.isoformat() if assignment is not None and assignment.due_on else _("a day we will "
                                                                                                   "call you about")
        return (_("The inspection for permit %(n)s is scheduled", n=n),
                [_("An inspector is assigned to the inspection for permit %(n)s and will come on %(day)s.",
                   n=n, day=day)])
    if event == "pass":
        return (_("Permit %(n)s: the inspection passed", n=n),
                [_("The inspection for permit %(n)s passed. You may backfill the trench.", n=n)])
    if event == "fail":
        return (_("Permit %(n)s: the inspection failed", n=n),
                [_("The inspection for permit %(n)s failed. Correct these, then ask for the reinspection on your "
                   "page:", n=n), "\n".join(_corrections(permit))])
    return None


def _changed(_app, *, permit: Permit, event: str, actor) -> None:
    if permit.plumber_user_id is None or not mail.enabled():
        return
    words = _words(permit, event)
    lic = db.session.scalar(select(PlumberLicense).filter_by(user_id=permit.plumber_user_id))
    if words is None or lic is None or lic.emails_stopped_at is not None:
        return
    subject, paragraphs = words
    parcel = db.session.get(Parcel, permit.parcel_id)
    place = (parcel.site_address or "") if parcel is not None else ""
    m = city.current().rulebook.municipality
    base = portal_address()
    page = urljoin(base, f"plumbers/permits/{permit.id}")
    stop_link = urljoin(base, f"plumbers/stop/{stop_token(permit.plumber_user_id)}")
    about = _("Permit %(n)s, %(place)s", n=permit.number, place=place) if place else _("Permit %(n)s", n=permit.number)
    why = _("You get this email because you applied for this permit on the city's website.")
    text = "\n\n".join([*paragraphs, about, _("Your permit: %(page)s", page=page),
                        _("Questions: call the %(utility)s at %(phone)s.", utility=m["utility"], phone=m["phone"]),
                        why + " " + _("To stop getting these emails, open %(link)s", link=stop_link)]) + "\n"
    html = "".join(f"<p>{escape(p).replace(chr(10), '<br>')}</p>" for p in paragraphs)
    html += (f"<p>{escape(about)}<br><a href=\"{escape(page)}\">{escape(_('Your permit'))}</a></p>"
             f"<p>{escape(_('Questions: call the %(utility)s at %(phone)s.', utility=m['utility'], phone=m['phone']))}"
             f"</p><p>{escape(why)} <a href=\"{escape(stop_link)}\">{escape(_('Stop getting these emails'))}</a>.</p>")
    mail.send_after_commit(mail.compose(lic.email, f"{subject} ({m['utility']})", text, html,
                                        {"List-Unsubscribe": f"<{stop_link}>"}))
