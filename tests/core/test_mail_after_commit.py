"""Mail about a change waits for the change's transaction: sent when it commits, dropped when
it rolls back, not sent when only a savepoint inside it is released."""

from __future__ import annotations

import pytest
from sqlalchemy import text

from server.core import mail
from server.core.extensions import db


@pytest.fixture
def sent(app, monkeypatch):
    out = []
    monkeypatch.setattr(mail, "send", lambda message: out.append(message["Subject"]) or True)
    return out


def _message(subject: str):
    return mail.compose("plumber@example.org", subject, "text")


def test_a_message_goes_when_the_transaction_commits(sent):
    mail.send_after_commit(_message("issued"))
    assert sent == []
    db.session.commit()
    assert sent == ["issued"]


def test_a_message_is_dropped_when_the_transaction_rolls_back(sent):
    db.session.execute(text("SELECT 1"))  # the transaction has begun, as a write request's has
    mail.send_after_commit(_message("issued"))
    db.session.rollback()
    db.session.commit()
    assert sent == []


def test_a_savepoint_released_does_not_send_before_the_transaction_commits(sent):
    with db.session.begin_nested():
        mail.send_after_commit(_message("issued"))
    assert sent == []
    db.session.commit()
    assert sent == ["issued"]
