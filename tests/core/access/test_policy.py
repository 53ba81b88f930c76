"""The route policy (each route's ``@access``, read by server/core/access/policy.py): every
route declared, the matrix in docs/security.md generated from it, and one real request for
every route × caller."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from server import create_app
from server.core.access import ANONYMOUS, CALLERS, CODE_HOLDER, PAGE, SIGNED_IN, policy
from server.core.access.cli import DOC, with_matrix
from server.core.accounts.models import User
from server.core.extensions import db
from tests.support.databases import PASSWORD
from tests.support.portal import hold_code

# The routes, read from an app that is never migrated (building one is all it takes).
_ROUTE_APP = create_app({"SQLALCHEMY_DATABASE_URI": "sqlite://", "SECRET_KEY": "test", "TESTING": True})
ROUTES = list(policy.routes(_ROUTE_APP))

# URL values for the routes' parameters: ids that name nothing (the policy answers before
# any lookup, so an allowed caller gets a 404 or 422, never 401/403).
VALUES = {
    "uuid": "00000000-0000-4000-8000-000000000000", "sha256": "0" * 64, "template_id": "reinspection",
    "version": 1, "collection_id": "parcels", "fid": "999999", "layer_name": "parcels",
    "z": 16, "x": 0, "y": 0, "rel": "nothing.js", "filename": "nothing.css", "event": "approve",
    "upload_id": "nothing",
}


def _url(endpoint: str, rule: str, method: str) -> str:
    argument_names = next(r.arguments for r in _ROUTE_APP.url_map.iter_rules(endpoint) if r.rule == rule)
    values = {name: VALUES.get(name, 999999) for name in argument_names}
    if endpoint == "exports.export":
        values["filename"] = "nothing.csv"
    return _ROUTE_APP.url_map.bind("localhost").build(endpoint, values, method=method)


def _login_required(response) -> bool:
    if response.status_code == 401:
        return "WWW-Authenticate" in response.headers
    return response.status_code == 302 and "/login?next=" in response.headers.get("Location", "")


def _code_required(response) -> bool:
    """A code holder's route asked without a code: its entry page, or the API's 401."""
    if response.status_code == 401:
        return response.get_json()["error"]["code"] == "lookup_required"
    return response.status_code == 302 and response.headers.get("Location", "").endswith("/portal/")


def test_every_route_declares_who_may_call_it():
    assert policy.undeclared(_ROUTE_APP) == []


def test_a_route_missing_from_the_policy_is_refused(app, client, auth, monkeypatch):
    monkeypatch.setitem(app.view_functions, "rules.list_rules", lambda: "")  # a view declaring nothing
    r = client.get("/api/v1/rules", headers=auth["admin"])
    assert r.status_code == 403
    assert "no declared access" in r.get_json()["error"]["message"]


def test_the_security_doc_holds_the_generated_matrix():
    text = DOC.read_text(encoding="utf-8")
    assert with_matrix(text, policy.matrix(_ROUTE_APP)) == text, \
        "run `flask --app server security matrix --write`"


def test_the_cli_writes_what_the_doc_holds(app):
    result = app.test_cli_runner().invoke(args=["security", "matrix", "--check"])
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("caller", CALLERS)
@pytest.mark.parametrize(("rule", "method", "endpoint"), ROUTES, ids=[f"{m} {r}" for r, m, _ in ROUTES])
def test_every_cell_of_the_matrix(app, auth, rule, method, endpoint, caller):
    access = policy.access_for(_ROUTE_APP, endpoint, method)
    client = app.test_client()
    headers, kwargs = {}, {}
    if caller == CODE_HOLDER:
        hold_code(client)
    elif caller != ANONYMOUS:
        if policy.login_kind(_ROUTE_APP, endpoint) == PAGE:
            user = db.session.scalar(select(User).filter_by(username=f"{caller}1"))
            with client.session_transaction() as session:
                session["user_id"] = user.id
                session["session_version"] = user.session_version
        else:
            headers = auth[caller]
    if endpoint == "web.login" and method == "POST":
        kwargs["data"] = {"username": f"{caller if caller in auth else 'inspector'}1", "password": PASSWORD}
    elif method in ("POST", "PATCH") and policy.login_kind(_ROUTE_APP, endpoint) == "api":
        kwargs["json"] = {}
    response = client.open(_url(endpoint, rule, method), method=method, headers=headers, **kwargs)
    if access.allows(caller):
        assert response.status_code != 403 and not _login_required(response), response.status_code
        assert not _code_required(response), response.status_code
    elif CODE_HOLDER in access.roles and not access.roles & SIGNED_IN:
        assert _code_required(response), response.status_code
    elif caller in (ANONYMOUS, CODE_HOLDER):
        assert _login_required(response), response.status_code
    else:
        assert response.status_code == 403, response.status_code
