"""A local SMTP sink (aiosmtpd) the app sends through, and what it was handed."""

from __future__ import annotations

import dataclasses
import email
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from email import policy

from aiosmtpd.controller import Controller

from server.core import settings


class Sink:
    """Keeps every message it is handed."""

    def __init__(self):
        self.messages: list[email.message.EmailMessage] = []

    async def handle_DATA(self, server, session, envelope):
        self.messages.append(email.message_from_bytes(envelope.content, policy=policy.default))
        return "250 OK"


@contextmanager
def smtp_sink_for(monkeypatch) -> Iterator[Sink]:
    """Run a sink on a free port and point the app's settings at it for the test."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    sink = Sink()
    controller = Controller(sink, hostname="127.0.0.1", port=port)
    controller.start()
    patched = dataclasses.replace(settings.current(), smtp_host="127.0.0.1", smtp_port=port, smtp_starttls=False,
                                  smtp_sender="utility@arcadia.example")
    monkeypatch.setattr(settings, "current", lambda: patched)
    try:
        yield sink
    finally:
        controller.stop()


def plain_text(message) -> str:
    return message.get_body(preferencelist=("plain",)).get_content()
