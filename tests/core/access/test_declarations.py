"""Access is declared on the route (server/core/access/declare.py): the policy table, the
matrix and the login each route asks for are read from the routes' declarations, a route
declaring nothing is refused and listed, and the layer registry and the notice workflow
give their routes' roles."""

from __future__ import annotations

import pytest

from server import create_app
from server.core.access import ADMIN, API, CLERK, GIS, PAGE, PUBLIC, SIGNED_IN, access, allow, policy
from server.network.layers import LAYERS
from server.notices.workflow import EVENTS, TRANSITIONS, senders

BARE = {"SQLALCHEMY_DATABASE_URI": "sqlite://", "SECRET_KEY": "test", "TESTING": True}
# The routes of the real app, read once (building it is all it takes).
_APP = create_app(BARE)


@pytest.fixture
def bare_app():
    """An app of its own, to add routes to (never migrated: the gate answers before any query)."""
    return create_app(BARE)


def _row(table: str, rule: str, method: str = "GET") -> str:
    return next(line for line in table.splitlines() if line.startswith(f"| {method} | `{rule}`"))


def test_an_undeclared_route_is_listed(bare_app):
    bare_app.add_url_rule("/_undeclared", "undeclared", lambda: "")
    assert policy.undeclared(bare_app) == ["GET /_undeclared (undeclared)"]


def test_an_undeclared_route_is_refused_to_everyone(bare_app):
    bare_app.add_url_rule("/_undeclared", "undeclared", lambda: "")
    r = bare_app.test_client().get("/_undeclared")
    assert r.status_code == 403
    assert "no declared access" in r.get_json()["error"]["message"]


def test_the_matrix_will_not_leave_an_undeclared_route_out(bare_app):
    bare_app.add_url_rule("/_undeclared", "undeclared", lambda: "")
    with pytest.raises(LookupError, match="/_undeclared"):
        policy.matrix(bare_app)


def test_a_new_routes_declaration_is_its_row_in_the_matrix(bare_app):
    bare_app.add_url_rule("/_probe", "probe", access(CLERK)(lambda: ""))
    assert _row(policy.matrix(bare_app), "/_probe") == "| GET | `/_probe` | — | — | — | — | yes | — | — |"


def test_own_work_in_a_declaration_is_a_note_in_the_matrix(bare_app):
    bare_app.add_url_rule("/_probe", "probe", access(SIGNED_IN, own="their own probes")(lambda: ""))
    table = policy.matrix(bare_app)
    row = _row(table, "/_probe")
    note = row.split("[", 1)[1].split("]", 1)[0]
    assert row == f"| GET | `/_probe` [{note}] | — | — | own | yes | yes | yes | — |"
    assert f"{note}. their own probes" in table.splitlines()


def test_changing_a_routes_declaration_changes_the_matrix(bare_app, monkeypatch):
    monkeypatch.setitem(bare_app.view_functions, "rules.list_rules", access(ADMIN)(lambda: ""))
    assert _row(policy.matrix(bare_app), "/api/v1/rules") == "| GET | `/api/v1/rules` | — | — | — | — | — | yes | — |"


def test_the_policy_table_holds_every_route_and_method():
    table = policy.policy(_APP)
    routes = {(endpoint, method) for _, method, endpoint in policy.routes(_APP)}
    assert {(endpoint, method) for endpoint, methods in table.items() for method in methods} == routes


def test_head_is_answered_as_get():
    assert policy.access_for(_APP, "parcels.Item", "HEAD") == policy.access_for(_APP, "parcels.Item", "GET")


@pytest.mark.parametrize("roles", [("admni",), ()], ids=["a misspelt role", "no role"])
def test_a_declaration_names_real_roles(roles):
    with pytest.raises(ValueError):
        access(*roles)


@pytest.mark.parametrize(("endpoint", "kind"), [
    ("web.home", PAGE), ("static", PAGE), ("desk.desk", PAGE), ("user_pages.users_page", PAGE),
    ("field.index", PAGE), ("ogc.items", GIS), ("tiles.tile", GIS), ("rules.list_rules", API),
    ("api-docs.openapi_json", API), ("tus_uploads.upload", API),
])
def test_each_route_asks_for_a_login_the_way_its_blueprint_declares(endpoint, kind):
    assert policy.login_kind(_APP, endpoint) == kind


def test_a_page_refusing_a_role_says_whom_its_pages_are_for():
    assert policy.purpose(_APP, "desk.mail") == \
        "The notice desk is for the clerk, the superintendent and the administrator."


def test_a_page_without_a_purpose_says_it_is_not_for_the_role():
    assert policy.purpose(_APP, "web.account_password") == policy.NOT_FOR_YOUR_ROLE


@pytest.mark.parametrize("method", ["POST", "PATCH", "DELETE"])
@pytest.mark.parametrize("layer", list(LAYERS.values()), ids=list(LAYERS))
def test_a_layers_writes_are_its_write_roles(layer, method):
    endpoint = f"{layer.name}.{'Collection' if method == 'POST' else 'Item'}"
    assert policy.access_for(_APP, endpoint, method).roles == layer.write_roles


@pytest.mark.parametrize("layer", list(LAYERS.values()), ids=list(LAYERS))
def test_a_layer_is_read_by_anyone_logged_in(layer):
    assert policy.access_for(_APP, f"{layer.name}.Collection", "GET").roles == SIGNED_IN


def test_a_finding_is_changed_by_its_author_unless_the_superintendent():
    declared = policy.access_for(_APP, "findings.Item", "PATCH")
    assert declared.own_roles == LAYERS["findings"].write_roles - LAYERS["findings"].authors_own.edit_any


@pytest.mark.parametrize("event", [e for e in EVENTS if f"notices.notice_{e}" in _APP.view_functions])
def test_a_notice_events_route_is_for_whoever_the_workflow_lets_send_it(event):
    from_table = set().union(*(t.roles for (_, e), t in TRANSITIONS.items() if e == event)) & SIGNED_IN
    assert policy.access_for(_APP, f"notices.notice_{event}", "POST").roles == from_table == senders(event)


def test_the_static_files_are_public():
    assert policy.access_for(_APP, "static", "GET") == allow(PUBLIC)
