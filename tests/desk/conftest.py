"""Logging in through the login form and posting the desk's forms with the session's token."""

from __future__ import annotations

import pytest

from tests.conftest import PASSWORD


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


@pytest.fixture
def desk(client):
    """``desk("clerk1")``: a logged-in desk session."""
    return lambda username: Desk(client).login(username)
