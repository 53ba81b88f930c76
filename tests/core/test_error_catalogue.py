"""The error catalogue (server/core/errors/catalogue.py) is the one place a code gets its status.

Read statically: every code raised in ``server/`` is declared, and nothing outside the web
kernel's handlers raises with a status. At run time: the handlers answer with the
catalogue's status, and a code nobody declared is an internal error. The table in
``docs/api.md`` is the catalogue's.
"""

from __future__ import annotations

import ast
import logging
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from flask import Flask
from werkzeug.exceptions import RequestedRangeNotSatisfiable, default_exceptions

from server.core.errors import ERRORS, LateralError, http_code, invalid_fields, status_of
from server.core.errors.cli import DOC, errors_cli, table, with_table
from server.core.web import errors as web_errors

SERVER = Path(__file__).resolve().parents[2] / "server"
CODE = re.compile(r"[a-z][a-z0-9]*(_[a-z0-9]+)*")


def _modules() -> list[tuple[Path, ast.Module]]:
    return [(path, ast.parse(path.read_text(encoding="utf-8"), str(path))) for path in sorted(SERVER.rglob("*.py"))]


MODULES = _modules()


def _error_classes() -> set[str]:
    """``LateralError`` and every class in server/ that derives from it, by name."""
    known, grew = {"LateralError"}, True
    while grew:
        grew = False
        for _, tree in MODULES:
            for node in ast.walk(tree):
                if isinstance(node, ast.ClassDef) and node.name not in known and any(
                        _name(base) in known for base in node.bases):
                    known.add(node.name)
                    grew = True
    return known


def _name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _literal(node: ast.expr | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _is_code_name(name: str | None) -> bool:
    return name is not None and (name == "code" or name.endswith("_code"))


def codes_raised() -> dict[str, list[str]]:
    """Every literal code in server/, with where it is: the code of an error class built
    (``LateralError("not_mailed", …)``, ``AuthError("weak_password", …)``), asked for
    (``status_of("…")``), or given to a parameter named ``code`` / ``…_code`` (a default
    or a keyword: ``_unauthorized(message, code="unauthorized")``)."""
    takers = _error_classes() | {"status_of"}
    found: dict[str, list[str]] = {}

    def add(node: ast.expr | None, where: str, shaped_only: bool = False) -> None:
        # A ``…_code`` parameter may hold something else (a ZIP code): there, only
        # snake_case values count as error codes.
        code = _literal(node)
        if code is not None and not (shaped_only and not CODE.fullmatch(code)):
            found.setdefault(code, []).append(where)

    for path, tree in MODULES:
        rel = path.relative_to(SERVER.parent)
        for node in ast.walk(tree):
            where = f"{rel}:{getattr(node, 'lineno', 0)}"
            if isinstance(node, ast.ClassDef) and node.name in takers:
                # An error class that fixes its code: ``super().__init__("bad_cursor", …)``.
                for call in ast.walk(node):
                    if isinstance(call, ast.Call) and _name(call.func) == "__init__" and call.args:
                        add(call.args[0], f"{rel}:{call.lineno}")
            if isinstance(node, ast.Call):
                if _name(node.func) in takers and node.args:
                    add(node.args[0], where)
                for keyword in node.keywords:
                    if _is_code_name(keyword.arg):
                        add(keyword.value, where, shaped_only=True)
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                args = node.args
                positional = args.posonlyargs + args.args
                for arg, default in zip(positional[len(positional) - len(args.defaults):], args.defaults,
                                        strict=True):
                    if _is_code_name(arg.arg):
                        add(default, where, shaped_only=True)
                for arg, default in zip(args.kwonlyargs, args.kw_defaults, strict=True):
                    if _is_code_name(arg.arg):
                        add(default, where, shaped_only=True)
    return found


RAISED = codes_raised()


def test_every_code_raised_in_server_is_in_the_catalogue():
    missing = {code: where for code, where in RAISED.items() if code not in ERRORS}
    assert not missing, f"declare these in server/core/errors/catalogue.py: {missing}"


@pytest.mark.parametrize("code, raised_by", [
    ("not_mailed", "server/notices/api.py"),  # a route
    ("no_pending_appeal", "server/notices/appeals.py"),  # a service
    ("weak_password", "server/core/accounts/service.py"),  # AuthError
    ("truncated", "server/field/photos/validate.py"),  # PhotoRejected
    ("checksum_mismatch", "server/field/uploads/tus.py"),  # the tus server
    ("store_unavailable", "server/field/uploads/photo_ingest.py"),  # UploadDeferred
    ("uuid_reused", "server/field/sync.py"),  # a sync push result
    ("bad_credentials", "server/core/accounts/authenticate.py"),  # a parameter's default
])
def test_the_scan_finds_codes_however_they_are_raised(code, raised_by):
    # Guards the scan itself: were it blind to a way of raising, the test above would pass empty.
    assert any(where.startswith(raised_by) for where in RAISED.get(code, [])), RAISED.get(code)


def _status_passed_when_raising() -> list[str]:
    """Calls that raise or build an error with a numeric status, outside the web kernel's handlers."""
    takers = _error_classes()
    found = []
    for path, tree in MODULES:
        if path == SERVER / "core" / "web" / "errors.py":
            continue
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            name = _name(node.func)
            numeric = bool(node.args) and isinstance(node.args[0], ast.Constant) and isinstance(
                node.args[0].value, int)
            if (name in takers and numeric) or name in ("abort", "ApiError", "error_response"):
                found.append(f"{path.relative_to(SERVER.parent)}:{node.lineno}")
    return found


def test_nothing_outside_the_error_handlers_raises_with_a_status():
    assert _status_passed_when_raising() == []


def test_every_code_of_lateral_s_own_is_raised_somewhere():
    # HTTP's own codes answer werkzeug's exceptions; any other code nobody raises is stale.
    unused = sorted(code for code, spec in ERRORS.items() if not spec.http and code not in RAISED)
    assert unused == []


def test_every_code_is_snake_case_with_an_error_status_and_a_meaning():
    bad = {code: spec for code, spec in ERRORS.items()
           if not CODE.fullmatch(code) or not 400 <= spec.status <= 599 or not spec.meaning.strip()}
    assert not bad


@pytest.mark.parametrize("status", sorted(default_exceptions))
def test_every_http_error_werkzeug_raises_has_exactly_one_code(status):
    codes = [code for code, spec in ERRORS.items() if spec.http and spec.status == status]
    assert codes == [http_code(status)] and status_of(codes[0]) == status


def test_a_code_has_one_status():
    # Conflicting statuses once hid behind one code (not_mailed was 404 and 409).
    assert status_of("not_mailed") == 404 and status_of("too_large") == 413


def test_status_of_an_unknown_code_names_the_catalogue():
    with pytest.raises(KeyError, match="catalogue"):
        status_of("no_such_code")


def test_the_api_doc_holds_the_generated_table():
    text = DOC.read_text(encoding="utf-8")
    assert with_table(text, table()) == text, "run `flask --app server errors table --write`"


def test_the_table_lists_every_code_once():
    rows = table().splitlines()[2:]
    assert sorted(re.search(r"`([a-z0-9_]+)`", row).group(1) for row in rows) == sorted(ERRORS)


def test_the_check_command_fails_on_a_stale_doc(tmp_path, monkeypatch):
    stale = tmp_path / "api.md"
    stale.write_text(with_table(DOC.read_text(encoding="utf-8"), "| status | code | meaning |\n"), encoding="utf-8")
    monkeypatch.setattr("server.core.errors.cli.DOC", stale)
    result = CliRunner().invoke(errors_cli, ["table", "--check"])
    assert result.exit_code != 0 and "out of date" in result.output


# ------------------------------------------------------------------ the handlers at run time

@pytest.fixture
def handled():
    """A bare app with the error handlers only: each route raises one thing."""
    app = Flask(__name__)
    web_errors.register(app)

    @app.route("/raise/<code>")
    def raise_code(code):
        raise LateralError(code, f"{code} raised", {"why": "a test"})

    @app.route("/deferred")
    def deferred():
        from server.field.uploads.tus import UploadDeferred

        raise UploadDeferred("store_unavailable", "not now", retry_after=7)

    @app.route("/range")
    def out_of_range():
        raise RequestedRangeNotSatisfiable()

    @app.route("/fields")
    def fields():
        raise invalid_fields({"name": ["required"]})

    return app.test_client()


@pytest.mark.parametrize("code", ["not_mailed", "no_pending_appeal", "checksum_mismatch", "internal_error",
                                  "database_busy", "too_large"])
def test_a_raised_code_is_answered_with_its_catalogued_status(handled, code):
    response = handled.get(f"/raise/{code}")
    assert response.status_code == ERRORS[code].status
    assert response.get_json() == {"error": {"code": code, "message": f"{code} raised", "details": {"why": "a test"}}}


def test_a_code_missing_from_the_catalogue_is_an_internal_error(handled, caplog):
    with caplog.at_level(logging.ERROR, logger="server.core.web.errors"):
        response = handled.get("/raise/no_such_code")
    assert response.status_code == 500
    assert response.get_json()["error"] == {"code": "internal_error", "message": web_errors.INTERNAL_MESSAGE,
                                            "details": {}}
    assert "no_such_code" in caplog.text and "catalogue" in caplog.text


def test_an_error_subclass_keeps_its_headers(handled):
    response = handled.get("/deferred")
    assert (response.status_code, response.headers["Retry-After"]) == (503, "7")


def test_a_werkzeug_error_gets_http_s_own_code(handled):
    response = handled.get("/range")
    assert (response.status_code, response.get_json()["error"]["code"]) == (416, "range_not_satisfiable")


def test_a_route_werkzeug_does_not_know_is_not_found(handled):
    response = handled.get("/nowhere")
    assert (response.status_code, response.get_json()["error"]["code"]) == (404, "not_found")


def test_invalid_fields_names_each_field(handled):
    response = handled.get("/fields")
    assert response.status_code == 422
    assert response.get_json()["error"] == {"code": "invalid_fields", "message": "name: required",
                                            "details": {"fields": {"name": ["required"]}}}
