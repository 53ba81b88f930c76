"""Browser-like sessions on the office pages: log in through the login form, read a page,
post a form with the session's token; and the audit trail's length."""

from __future__ import annotations

from sqlalchemy import func, select

from server.core.audit.models import AuditEvent
from server.core.extensions import db
from tests.support.databases import PASSWORD


class Desk:
    """A browser-like session on the desk: log in, read the page, post a form."""

    def __init__(self, client):
        self.client = client

    def login(self, username: str) -> Desk:
        r = self.client.post("/login", data={"username": username, "password": PASSWORD})
        assert r.status_code == 302, r.get_data(as_text=True)
        return self

    def page(self, path: str = "/desk/") -> str:
        r = self.client.get(path)
        assert r.status_code == 200, r.status_code
        return r.get_data(as_text=True)

    def token(self) -> str:
        self.page()  # the page makes the token
        with self.client.session_transaction() as session:
            return session["csrf_token"]

    def post(self, path: str, data: dict | None = None, follow: bool = True):
        return self.client.post(path, data={"csrf_token": self.token(), **(data or {})}, follow_redirects=follow)


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


def audit_rows() -> int:
    return db.session.scalar(select(func.count(AuditEvent.id)))
