"""The portal speaks plainly: its own words (templates, states, emails, the fee) read at
grade 8 or below (Flesch-Kincaid, textstat). The ordinance's own sentences, quoted from the
letter, are the law's words and are not measured here."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import textstat

from server.portal import actions, lookup, notify
from tests.support.env import REPO_ROOT

TEMPLATES = sorted((REPO_ROOT / "server" / "portal" / "templates" / "portal").glob("*.html"))
GRADE = 8.0


#: A field of a translatable string (``%(name)s``) reads as one word.
FIELD = re.compile(r"%\((\w+)\)s")


def _words(template: Path) -> str:
    """A template's own English text, each label, heading or paragraph a sentence of its own:
    the words it passes through ``_("...")`` and any text outside Jinja, no tags, no values
    filled in."""
    source = template.read_text()
    wrapped = [FIELD.sub("it", m.group(2)) for m in re.finditer(r"""_\(\s*(["'])(.*?)\1""", source, flags=re.S)]
    text = re.sub(r"{%.*?%}|{{.*?}}|{#.*?#}", " ", source, flags=re.S)
    chunks = [re.sub(r"\s+", " ", c).strip(" ·:") for c in [*re.split(r"<[^>]+>", text), *wrapped]]
    return " ".join(c if c[-1] in ".?!" else f"{c}." for c in chunks if len(c) > 1)


def test_the_templates_words_are_read_through_the_catalogue():
    """The measure reads the wrapped words: a page that wraps its text is still measured."""
    assert "Look up your notice." in _words(REPO_ROOT / "server/portal/templates/portal/start.html")


def _grade(text: str) -> float:
    return textstat.flesch_kincaid_grade(text)


@pytest.mark.parametrize("template", [t for t in TEMPLATES if len(_words(t).split()) >= 12], ids=lambda t: t.name)
def test_each_pages_words_read_at_grade_8_or_below(template):
    assert _grade(_words(template)) <= GRADE, _words(template)


@pytest.mark.parametrize("sentence", [words for _, words in lookup.OWNER_STATES.values()])
def test_each_state_reads_plainly(sentence):
    assert _grade(sentence) <= GRADE, sentence


EMAILS = (notify.RECEIVED, notify.REVIEWED, notify.VISIT_SET, notify.DECIDED)


@pytest.mark.parametrize("sentence", [s for table in EMAILS for _, s in table.values()])
def test_each_email_reads_plainly(sentence):
    text = sentence % {"place": "12 Main St", "id": 7, "day": "Monday, March 2, 2026", "body": "Utility Commission"}
    assert _grade(text) <= GRADE, text


def test_the_fee_sentence_reads_plainly():
    for fee in (None, 50):
        assert _grade(actions.fee_sentence({"appeal_fee": fee, "phone": "(608) 555-0147"})) <= GRADE


def test_the_measure_tells_plain_from_legal():
    """The check itself: a sentence of the ordinance is far above the line."""
    legal = ("No person shall connect roof downspouts, foundation drains, sump pumps, yard drains or other "
             "sources of surface runoff or groundwater to a building sewer or building drain connected directly "
             "or indirectly to the public sewer.")
    assert _grade(legal) > GRADE
