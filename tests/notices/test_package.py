"""The notices package stays pure: no web framework, no database, complete texts."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from gis.rulebook import load_rulebook
from server.notices.kinds import KINDS
from server.notices.letters.documents import NOTICE_KINDS

NOTICES = Path(__file__).resolve().parents[2] / "server" / "notices"
# The pure part of the notices domain: its letters, and the kinds, calendar and article numbers.
PURE = [*sorted((NOTICES / "letters").glob("*.py")), NOTICES / "kinds.py", NOTICES / "calendar.py",
        NOTICES / "article_numbers.py"]
PURE_MODULES = {"server.notices.kinds", "server.notices.calendar", "server.notices.article_numbers"}
FORBIDDEN = ("flask", "flask_sqlalchemy", "sqlalchemy", "geoalchemy2", "marshmallow")


def _imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


@pytest.mark.parametrize("path", PURE, ids=lambda p: p.name)
def test_module_imports_no_web_app_or_database(path):
    # ``server/__init__.py`` is the Flask app factory; notices code never reaches it,
    # nor Flask or SQLAlchemy: only the pure notices modules, gis and plain libraries.
    for name in _imports(path):
        top = name.split(".")[0]
        assert top not in FORBIDDEN, name
        assert top != "server" or name.startswith("server.notices.letters") or name in PURE_MODULES, name


@pytest.mark.parametrize("kind", NOTICE_KINDS)
def test_every_kind_has_text_and_a_rulebook_deadline(kind):
    text = KINDS[kind]
    deadline = load_rulebook("arcadia").deadline(text.deadline_rule)
    assert deadline["days"] > 0 and deadline["section"]
    assert "forfeiture_min" in deadline
