"""The portal speaks plainly: its own words (templates, states, emails, the fee) read at
grade 8 or below (Flesch-Kincaid, textstat), and their Spanish reads as plainly (INFLESZ,
Szigriszt-Pazos, "normal" or easier). The ordinance's own sentences, quoted from the letter,
are the law's words and are not measured here."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import textstat
from babel.messages.pofile import read_po
from textstat.textstat import textstatistics

from server.portal import actions, lookup, notify
from tests.support.env import REPO_ROOT

SPANISH_PO = REPO_ROOT / "server" / "portal" / "translations" / "es" / "LC_MESSAGES" / "messages.po"
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


#: INFLESZ (Szigriszt-Pazos) 55 and above: "normal" or easier, the general public's press.
SPANISH_EASE = 55.0


def _spanish_sentences() -> list[str]:
    """Each Spanish entry of 12 words or more, its fields read as one word."""
    with open(SPANISH_PO, "rb") as f:
        entries = [m.string for m in read_po(f) if m.id and m.string]
    return [re.sub(r"%\(\w+\)s|\{\w+\}", "Main", s) for s in entries if len(s.split()) >= 12]


@pytest.fixture(scope="module")
def spanish_measure():
    """textstat set for Spanish on its own instance (the module's measure stays English)."""
    measure = textstatistics()
    measure.set_lang("es")
    return measure


@pytest.mark.parametrize("sentence", _spanish_sentences())
def test_each_spanish_entry_reads_plainly(sentence, spanish_measure):
    assert spanish_measure.szigriszt_pazos(sentence) >= SPANISH_EASE, sentence


def test_the_spanish_measure_tells_plain_from_legal(spanish_measure):
    legal = ("Ninguna persona conectará bajantes pluviales, drenajes de cimientos, bombas de sumidero, drenajes de "
             "patio u otras fuentes de escorrentía superficial o de agua subterránea a una conexión lateral o a un "
             "desagüe de edificio conectado directa o indirectamente al alcantarillado público.")
    assert spanish_measure.szigriszt_pazos(legal) < SPANISH_EASE
