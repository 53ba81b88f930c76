"""The plumbers' pages and emails speak plainly too: their translatable words (each
``_("...")`` of the plumber_* templates and of the plumbers' emails) read at grade 8 or below
(Flesch-Kincaid, textstat), placeholders read as one short word."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import textstat

from tests.support.env import REPO_ROOT

PORTAL = REPO_ROOT / "server" / "portal"
SOURCES = [*(t for t in sorted((PORTAL / "templates" / "portal").glob("*plumber*.html")) if "_(" in t.read_text()),
           PORTAL / "plumber_notify.py"]
LITERAL = re.compile(r'_\(\s*"((?:[^"\\]|\\.)*)"(?:\s*\n\s*"((?:[^"\\]|\\.)*)")?')
GRADE = 8.0


def _translatable(source: Path) -> str:
    found = [a + (b or "") for a, b in LITERAL.findall(source.read_text())]
    found = [re.sub(r"%\(\w+\)s", "it", s).strip() for s in found]
    return " ".join(s if s[-1] in ".?!:" else f"{s}." for s in found if s)


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.name)
def test_the_plumbers_words_read_at_grade_8_or_below(source):
    words = _translatable(source)
    assert words, f"{source.name} has no translatable words"
    assert textstat.flesch_kincaid_grade(words) <= GRADE, words
