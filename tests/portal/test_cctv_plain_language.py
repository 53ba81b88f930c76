"""The plumber's CCTV pages and emails speak plainly: each translatable string of the
``cctv_*`` templates, and each email, reads at grade 8 or below (Flesch-Kincaid, textstat)."""

from __future__ import annotations

import re

import pytest
import textstat

from server.portal import cctv_notify
from tests.support.env import REPO_ROOT

TEMPLATES = sorted((REPO_ROOT / "server" / "portal" / "templates" / "portal").glob("cctv_*.html"))
GRADE = 8.0


def _strings() -> list[str]:
    found = []
    for template in TEMPLATES:
        found += re.findall(r'_\("([^"]+)"', template.read_text()) + re.findall(r"_\('([^']+)'", template.read_text())
    return [s for s in dict.fromkeys(found) if len(s.split()) >= 6]


def test_there_are_strings_to_measure():
    assert len(_strings()) >= 8


@pytest.mark.parametrize("sentence", _strings())
def test_each_string_reads_plainly(sentence):
    assert textstat.flesch_kincaid_grade(sentence % {"n": 1, "mb": 2048, "day": "2026-01-15"}) <= GRADE, sentence


@pytest.mark.parametrize("what", sorted(cctv_notify.MESSAGES))
def test_each_email_reads_plainly(what):
    _, sentence = cctv_notify.MESSAGES[what]
    text = sentence.format(place="12 Main St", id=7, count=3, page="the page")
    assert textstat.flesch_kincaid_grade(text) <= GRADE, text
