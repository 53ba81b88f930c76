"""Sending email through the city's mail server (``SMTP_*`` settings).

One message at a time, with a plain-text part always (and an HTML part when given), over a
connection that gives up after ``SMTP_TIMEOUT`` seconds: a slow mail server costs one
message, never a request. Unset ``SMTP_HOST``: :func:`enabled` is False and nothing is sent.

A message about a change that a transaction is writing waits for it (:func:`send_after_commit`):
sent once it commits, dropped if it rolls back, so nobody is told of what did not happen.
"""

from __future__ import annotations

import logging
import smtplib
from email.message import EmailMessage

from sqlalchemy import event
from sqlalchemy.orm import Session

from server.core import settings
from server.core.extensions import db

log = logging.getLogger(__name__)
_WAITING = "lateral_mail_after_commit"


def enabled() -> bool:
    return bool(settings.current().smtp_host)


def compose(to: str, subject: str, text: str, html: str | None = None,
            headers: dict[str, str] | None = None) -> EmailMessage:
    """The message: ``text`` as its plain-text part, ``html`` as the alternative."""
    message = EmailMessage()
    message["From"] = settings.current().smtp_sender
    message["To"] = to
    message["Subject"] = subject
    for name, value in (headers or {}).items():
        message[name] = value
    message.set_content(text)
    if html is not None:
        message.add_alternative(html, subtype="html")
    return message


def send(message: EmailMessage) -> bool:
    """Hand ``message`` to the mail server; False (logged) when it cannot be sent."""
    s = settings.current()
    if not s.smtp_host:
        return False
    try:
        with smtplib.SMTP(s.smtp_host, s.smtp_port, timeout=s.smtp_timeout) as smtp:
            if s.smtp_starttls:
                smtp.starttls()
            if s.smtp_username:
                smtp.login(s.smtp_username, s.smtp_password or "")
            smtp.send_message(message)
        return True
    except (OSError, smtplib.SMTPException) as exc:
        log.warning("email to %s not sent: %s", message["To"], exc)
        return False


def send_after_commit(message: EmailMessage) -> None:
    """Send ``message`` once the session's transaction commits (nothing if it rolls back)."""
    db.session().info.setdefault(_WAITING, []).append(message)


@event.listens_for(Session, "after_commit")
def _sent_on_commit(session: Session) -> None:
    if session.get_nested_transaction() is not None:  # a savepoint released: the transaction goes on
        return
    for message in session.info.pop(_WAITING, []):
        send(message)


@event.listens_for(Session, "after_soft_rollback")
def _dropped_on_rollback(session: Session, previous_transaction) -> None:
    if not previous_transaction.nested:  # the transaction, not one of its savepoints
        session.info.pop(_WAITING, None)
