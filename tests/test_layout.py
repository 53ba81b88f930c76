"""The tests' own layout holds: helpers come from ``tests/support``, fixtures have one name.

No module under ``tests/``, ``bench/`` or ``scripts/`` imports a test module (``test_*.py``)
or a ``conftest.py``: what tests share lives in ``tests/support``, and a conftest keeps only
the fixtures of its own package. Each fixture name is defined once under ``tests/`` and never
imported: a name means one thing wherever a test asks for it, instead of whatever the
nearest conftest or module happens to define.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

from tests.support.env import REPO_ROOT

SCANNED = ("tests", "bench", "scripts")


def _python_files(*tops: str) -> list[Path]:
    return sorted(path for top in tops for path in (REPO_ROOT / top).rglob("*.py"))


def _module_name(path: Path) -> str:
    parts = path.relative_to(REPO_ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _test_or_conftest(module: str) -> bool:
    """Whether ``module`` is a test module or a conftest of this repository."""
    path = REPO_ROOT.joinpath(*module.split(".")).with_suffix(".py")
    return path.is_file() and (path.name.startswith("test_") or path.name == "conftest.py")


def _imported(tree: ast.Module, module: str, is_package: bool) -> list[tuple[int, str, list[str]]]:
    """Every import in ``tree``, at any depth: (line, module, names imported from it)."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name, []) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                package = module.split(".") if is_package else module.split(".")[:-1]
                package = package[:len(package) - (node.level - 1)]
                base = ".".join(package + ([base] if base else []))
            found.append((node.lineno, base, [alias.name for alias in node.names]))
        elif isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "pytest_plugins" for t in node.targets):
            plugins = [e.value for e in ast.walk(node.value) if isinstance(e, ast.Constant)]
            found += [(node.lineno, name, []) for name in plugins if isinstance(name, str)]
    return found


def import_offences(source: str, module: str, is_package: bool = False) -> list[str]:
    """The lines of ``source`` (module ``module``) that import a test module or a conftest."""
    offences = []
    for line, base, names in _imported(ast.parse(source), module, is_package):
        for candidate in [base, *(f"{base}.{name}" for name in names)]:
            if _test_or_conftest(candidate):
                offences.append(f"{module}:{line} imports {candidate}")
    return offences


def fixture_definitions(tree: ast.Module) -> list[tuple[str, int]]:
    """(name, line) of every function in ``tree`` decorated as a pytest fixture."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for decorator in node.decorator_list:
            call = decorator if isinstance(decorator, ast.Call) else None
            target = call.func if call else decorator
            if ast.unparse(target) not in ("pytest.fixture", "fixture"):
                continue
            names = [k.value.value for k in (call.keywords if call else [])
                     if k.arg == "name" and isinstance(k.value, ast.Constant)]
            found.append((names[0] if names else node.name, node.lineno))
    return found


def test_no_module_imports_a_test_module_or_a_conftest():
    files = _python_files(*SCANNED)
    assert REPO_ROOT / "tests" / "conftest.py" in files and REPO_ROOT / "bench" / "soak.py" in files
    offences = [offence for path in files
                for offence in import_offences(path.read_text(encoding="utf-8"), _module_name(path),
                                               path.name == "__init__.py")]
    assert offences == [], "put what is shared in tests/support:\n" + "\n".join(offences)


def test_each_fixture_name_is_defined_once_and_never_imported():
    definitions = defaultdict(list)
    by_module = defaultdict(set)
    trees = {path: ast.parse(path.read_text(encoding="utf-8")) for path in _python_files("tests")}
    for path, tree in trees.items():
        for name, line in fixture_definitions(tree):
            definitions[name].append(f"{path.relative_to(REPO_ROOT)}:{line}")
            by_module[_module_name(path)].add(name)
    assert {"app", "client", "migrated_app", "templates"} <= set(definitions)
    twice = {name: places for name, places in definitions.items() if len(places) > 1}
    assert twice == {}, "give each meaning its own fixture name"
    imported = [f"{path.relative_to(REPO_ROOT)}:{line} imports the fixture {base}.{name}"
                for path, tree in trees.items()
                for line, base, names in _imported(tree, _module_name(path), path.name == "__init__.py")
                for name in names if name in by_module.get(base, ())]
    assert imported == [], "ask for a fixture by name; pytest_plugins registers the shared ones"


def test_the_checks_find_each_way_a_test_module_or_a_conftest_was_imported():
    field = "tests.field.test_push"
    assert import_offences("from tests.conftest import ENGINES", field) == [f"{field}:1 imports tests.conftest"]
    assert import_offences("from tests.field import test_pull", field) == [f"{field}:1 imports tests.field.test_pull"]
    assert import_offences("import tests.field.test_pull as p", field) == [f"{field}:1 imports tests.field.test_pull"]
    assert import_offences("def f():\n    from . import conftest", field) == [f"{field}:2 imports tests.field.conftest"]
    assert import_offences("pytest_plugins = ['tests.conftest']", "tests.x") == ["tests.x:1 imports tests.conftest"]
    assert import_offences("from tests.support.sync import push, record", field) == []
    assert fixture_definitions(ast.parse(
        "@pytest.fixture\ndef a(): ...\n@pytest.fixture(name='b')\ndef _b(): ...\n@fixture(scope='module')\n"
        "def c(): ...\ndef d(): ...")) == [("a", 2), ("b", 4), ("c", 6)]


def _bare_wait_expressions(tree: ast.AST) -> list[int]:
    """Lines of ``wait_for_function("<an expression>")`` calls whose string is not a function."""
    lines = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "wait_for_function" and node.args
                and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)
                and "=>" not in node.args[0].value.split("\n", 1)[0]
                and not node.args[0].value.lstrip().startswith(("function", "async"))):
            lines.append(node.lineno)
    return lines


def test_browser_waits_pass_a_function_not_an_expression():
    """Playwright polls a bare expression with ``eval``, which the pages' Content-Security-Policy
    (script-src 'self') refuses: the wait then fails, but only when the first check is not
    already true (a flaky CCTV walk in CI). An arrow function needs no eval."""
    found = [f"{path.relative_to(REPO_ROOT)}:{line}" for path in _python_files("tests")
             for line in _bare_wait_expressions(ast.parse(path.read_text()))]
    assert found == []
    assert _bare_wait_expressions(ast.parse('page.wait_for_function("window.x === 1")')) == [1]
    assert _bare_wait_expressions(ast.parse('page.wait_for_function("() => window.x === 1")')) == []
