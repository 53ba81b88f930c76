"""The portal's words in the owner's language: English or Spanish, through Flask-Babel.

Templates call ``{{ _("...") }}`` (Jinja's i18n extension, new style: ``%(name)s`` fields
filled and escaped), Python calls :func:`_` (or :func:`lazy` for words kept at import time).
The catalogues are ``server/portal/translations/`` (``docs/portal.md``: refreshing them).

The language of a portal page: the one the owner chose on the page (``?lang=es``, kept in
the session), else the browser's Accept-Language among :data:`LANGUAGES`, else English.
Every other page of the app (the staff's, the API) stays English: it never asks.
Dates are written the locale's way (:func:`long_date`), times in the city's time zone.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date, datetime
from pathlib import Path

from babel.dates import format_date, format_time
from babel.numbers import format_currency
from flask import Flask, has_request_context, request, session
from flask_babel import Babel, force_locale, get_locale, gettext, lazy_gettext, refresh

from server.core import city
from server.notices.kinds import KINDS

#: The portal's languages, the first the default: (code, its own name for the switch).
LANGUAGES: dict[str, str] = {"en": "English", "es": "Español"}
#: How each language writes dates, times and money in the city's country: Spanish as the
#: United States writes it ("$50.00", "12:05 p.m."), not Spain ("50,00 US$").
FORMATS: dict[str, str] = {"en": "en_US", "es": "es_US"}
DEFAULT = "en"
TRANSLATIONS = Path(__file__).parent / "translations"
#: The session's key for a language chosen on the page.
SESSION_KEY = "portal_lang"
#: The blueprints whose pages speak the reader's language (the owner's and the plumbers').
PORTAL_BLUEPRINTS = ("portal_pages", "plumber_pages")


def _(text: str, /, **fields: object) -> str:
    """``text`` in the reader's language, with its ``%(name)s`` ``fields`` filled in."""
    return gettext(text, **fields)


def N_(text: str) -> str:  # noqa: N802 (gettext's name for it, which pybabel looks for)
    """Marks ``text`` for the catalogue where it is kept (a table of sentences); it is
    translated where it is read, with :func:`_`."""
    return text


def lazy(text: str, /, **fields: object):
    """``text`` translated when it is read, not when the module is imported."""
    return lazy_gettext(text, **fields)


def language() -> str:
    """The language the current request speaks (``en`` outside a request)."""
    return str(get_locale() or DEFAULT)


def _chosen() -> str | None:
    if not has_request_context() or request.blueprint not in PORTAL_BLUEPRINTS:
        return DEFAULT
    kept = session.get(SESSION_KEY)
    if kept in LANGUAGES:
        return kept
    return request.accept_languages.best_match(LANGUAGES, default=DEFAULT)


def _each_request() -> None:
    """Choose the language afresh (a request may run in an application context kept from
    before, whose cached locale is not this request's); ``?lang=xx`` on any portal page keeps
    the owner's choice for the pages that follow."""
    refresh()
    asked = request.args.get("lang")
    if request.blueprint in PORTAL_BLUEPRINTS and asked in LANGUAGES:
        session[SESSION_KEY] = asked


def _city_zone() -> str:
    return str(city.current().time_zone)


@contextmanager
def speaking(code: str | None) -> Iterator[None]:
    """Words and dates in ``code`` (an email to an owner who read the portal in it)."""
    with force_locale(code if code in LANGUAGES else DEFAULT):
        yield


def _formats() -> str:
    return FORMATS.get(language(), FORMATS[DEFAULT])


def long_date(d: date) -> str:
    """``Monday, March 2, 2026`` / ``lunes, 2 de marzo de 2026``."""
    return format_date(d, format="full", locale=_formats())


def clock_time(moment: datetime) -> str:
    """The time of day of ``moment`` in the city's zone, with the zone's abbreviation."""
    local = moment.astimezone(city.current().time_zone)
    return f"{format_time(local.replace(tzinfo=None), format='short', locale=_formats())} ({local.tzname()})"


def money(amount: float) -> str:
    """``$50.00``, in dollars as the reader's language writes them in the United States."""
    return format_currency(amount, "USD", locale=_formats())


def init_app(app: Flask) -> None:
    """Bind Flask-Babel to ``app``: the portal's catalogues, its locale, the city's zone."""
    Babel(app, default_locale=DEFAULT, default_translation_directories=str(TRANSLATIONS),
          locale_selector=_chosen, timezone_selector=_city_zone)
    app.before_request(_each_request)

    @app.context_processor
    def _languages() -> dict:
        return {"portal_languages": LANGUAGES, "portal_language": language}


def extract_notice_kinds(fileobj, keywords, comment_tags, options):
    """A Babel extractor (``babel.cfg``): each notice kind's title and what to do, which the
    portal shows in the reader's language (the law's sentences stay the letter's)."""
    for line, kind in enumerate(KINDS.values(), start=1):
        yield line, None, kind.title, [f"the title of notice kind {kind.id}"]
        yield line, None, kind.action, [f"what to do, notice kind {kind.id}; keep {{fields}} as they are"]
