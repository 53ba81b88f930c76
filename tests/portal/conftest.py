"""A notice whose letter carries a lookup code; the failed-lookup counters start empty in each
test (the app lives for the session); a local SMTP sink (aiosmtpd) the app sends through."""

from __future__ import annotations

import dataclasses
import email
import socket
from datetime import timedelta
from email import policy

import pytest
from aiosmtpd.controller import Controller

from server.core import city, settings
from server.core.web import throttle
from tests.support.notices import draft_one, mail, post
from tests.support.plumbers import add_plumber
from tests.support.portal import code_on_letter


@pytest.fixture(autouse=True)
def fresh_lookup_counters(request):
    """Empty counters, for the tests over the shared app (the browser walks serve their own)."""
    if "app" not in request.fixturenames:
        yield
        return
    request.getfixturevalue("app")
    throttle.strategy().storage.reset()
    yield
    throttle.strategy().storage.reset()


@pytest.fixture
def lettered(notice_in) -> dict:
    """A notice mailed and delivered, with ``code``: the lookup code its letter prints."""
    notice = notice_in("delivered")
    return {**notice, "code": code_on_letter(notice["id"])}


@pytest.fixture
def in_time(client, auth, violation) -> dict:
    """A notice mailed two days ago and delivered (an appeal today is within its 10 days), with its code."""
    notice = draft_one(client, auth)
    mailed_on = city.current().today() - timedelta(days=2)
    steps = [("approve", "superintendent", {}), ("mail", "clerk", {"mailed_on": mailed_on.isoformat()}),
             ("deliver", "clerk", {"on": (mailed_on + timedelta(days=1)).isoformat()})]
    for event, role, data in steps:
        r = (mail(client, auth, [notice["id"]], mailed_on) if event == "mail"
             else post(client, auth, role, f"/notices/{notice['id']}/{event}", data))
        assert r.status_code in (200, 201)
    return {**notice, "code": code_on_letter(notice["id"])}


class Sink:
    """Keeps every message it is handed."""

    def __init__(self):
        self.messages: list[email.message.EmailMessage] = []

    async def handle_DATA(self, server, session, envelope):
        self.messages.append(email.message_from_bytes(envelope.content, policy=policy.default))
        return "250 OK"


@pytest.fixture
def smtp_sink(monkeypatch):
    """A local SMTP server the app sends through (settings patched for the test)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    sink = Sink()
    controller = Controller(sink, hostname="127.0.0.1", port=port)
    controller.start()
    patched = dataclasses.replace(settings.current(), smtp_host="127.0.0.1", smtp_port=port, smtp_starttls=False,
                                  smtp_sender="utility@arcadia.example")
    monkeypatch.setattr(settings, "current", lambda: patched)
    yield sink
    controller.stop()


@pytest.fixture
def plumber(app):
    """A plumber whose license the clerk verified (``dkulig``)."""
    return add_plumber()
