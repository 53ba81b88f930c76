"""A database the threads' transactions really commit to, and logins in it, for the tests
of notices drafted and mailed at the same time."""

from __future__ import annotations

import pytest

from server.core.extensions import db
from tests.support.databases import ENGINES, PASSWORD, fresh_app


@pytest.fixture(params=ENGINES)
def committed_app(request, tmp_path):
    """A fresh database that the threads' transactions really commit to."""
    with fresh_app(request.param, tmp_path) as app:
        yield app


@pytest.fixture
def committed_tokens(committed_app) -> dict:
    """Bearer headers for a superintendent and a clerk in ``committed_app``."""
    from server.core.accounts.service import create_user, issue_token

    with committed_app.app_context():
        tokens = {role: {"Authorization": f"Bearer {issue_token(create_user(f'{role}9', role, PASSWORD), 't')[0]}"}
                  for role in ("superintendent", "clerk")}
        db.session.commit()
        db.session.remove()
    return tokens
