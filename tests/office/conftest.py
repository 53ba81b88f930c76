"""A browser-like session on the office pages: log in through the form, post with the token."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from server.core.audit.models import AuditEvent
from server.core.extensions import db
from tests.conftest import PASSWORD


class Office:
    """Logged in as one of the test users (``superintendent1``, ``admin1`` …)."""

    def __init__(self, client, username: str):
        self.client = client
        r = client.post("/login", data={"username": username, "password": PASSWORD})
        assert r.status_code == 302, r.get_data(as_text=True)

    def get(self, path: str):
        return self.client.get(path)

    def token(self) -> str:
        self.client.get("/")  # any page makes the session's token
        with self.client.session_transaction() as session:
            return session["csrf_token"]

    def post(self, path: str, data: dict | None = None, follow: bool = False, **kwargs):
        return self.client.post(path, data={"csrf_token": self.token(), **(data or {})},
                                follow_redirects=follow, **kwargs)


@pytest.fixture
def office(client):
    """``office("superintendent1")``: a logged-in session."""
    return lambda username: Office(client, username)


def audit_rows() -> int:
    return db.session.scalar(select(func.count(AuditEvent.id)))
