"""The portal in English and Spanish: a complete catalogue (every word the code passes
through ``_`` has its Spanish, with the same fields), the compiled catalogue the app serves
matching it, and the pages in the language the owner asked for, by the browser or the switch."""

from __future__ import annotations

import io
import re
from datetime import UTC, date, datetime

import pytest
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.mofile import read_mo
from babel.messages.pofile import read_po
from pypdf import PdfReader
from sqlalchemy import select

from server.core.extensions import db
from server.notices.kinds import KINDS
from server.notices.models import Notice
from server.portal import i18n
from server.portal.models import PortalAction
from tests.support.env import REPO_ROOT
from tests.support.portal import form_token, hold_code

CATALOGUES = REPO_ROOT / "server" / "portal" / "translations"
SPANISH_PO = CATALOGUES / "es" / "LC_MESSAGES" / "messages.po"
SPANISH_MO = CATALOGUES / "es" / "LC_MESSAGES" / "messages.mo"
#: ``%(name)s`` (gettext's) and ``{name}`` (a notice kind's str.format fields).
FIELDS = re.compile(r"%\((\w+)\)s|\{(\w+)\}")


def _extracted() -> set[str]:
    """Every word the portal's code passes through the catalogue today, read afresh from the
    sources with ``babel.cfg`` (as ``make translations`` does)."""
    with open(CATALOGUES / "babel.cfg") as f:
        method_map, options_map = parse_mapping_cfg(f)
    keywords = {**DEFAULT_KEYWORDS, "N_": None, "lazy": None}
    return {message if isinstance(message, str) else message[0]
            for _file, _line, message, _comments, _context in
            extract_from_dir(str(REPO_ROOT), method_map, options_map, keywords=keywords)}


@pytest.fixture(scope="module")
def spanish():
    with open(SPANISH_PO, "rb") as f:
        return read_po(f, locale="es")


def _translated(catalogue) -> dict[str, str]:
    return {m.id: m.string for m in catalogue if m.id and m.string and not m.fuzzy}


def test_every_word_of_the_portal_has_its_spanish(spanish):
    """A string wrapped later without its translation (or left fuzzy by an update) fails here."""
    missing = sorted(_extracted() - set(_translated(spanish)))
    assert not missing, f"no Spanish for {missing}: run `make translations` and translate them"


def test_the_extraction_reads_templates_python_and_the_notice_kinds():
    words = _extracted()
    assert {"Look up your notice", "the code is mistyped: check each letter and digit against the letter",
            "We received your proof"} <= words
    assert {k.title for k in KINDS.values()} | {k.action for k in KINDS.values()} <= words


def test_each_translation_keeps_the_fields_of_its_english(spanish):
    for m in spanish:
        if m.id and m.string:
            assert sorted(FIELDS.findall(m.id)) == sorted(FIELDS.findall(m.string)), m.id


def test_the_compiled_catalogue_is_the_current_one(spanish):
    """The .mo the app serves (committed) says what the .po says: `make translations` was run."""
    with open(SPANISH_MO, "rb") as f:
        compiled = {m.id: m.string for m in read_mo(f) if m.id}
    assert compiled == _translated(spanish)


# ------------------------------------------------------------------ the pages


def _open(browser, lettered, **headers):
    token = form_token(browser, "/portal/")
    r = browser.post("/portal/", data={"csrf_token": token, "code": lettered["code"],
                                       "parcel_number": lettered["parcel_number"]}, headers=headers)
    assert r.status_code == 302, r.get_data(as_text=True)
    return browser.get("/portal/notice", headers=headers).get_data(as_text=True)


SPANISH = {"Accept-Language": "es-US,es;q=0.9,en;q=0.5"}


def test_a_browser_asking_for_spanish_gets_the_walk_in_spanish(app, lettered):
    browser = app.test_client()
    start = browser.get("/portal/", headers=SPANISH).get_data(as_text=True)
    assert '<html lang="es">' in start and "Busque su aviso" in start and "Look up your notice" not in start
    page = _open(browser, lettered, **SPANISH)
    assert "Lo que encontramos" in page and "notificado" in page and "What we found" not in page
    assert "Aviso para" in page  # the notice kind's title
    assert "data-english-only" in page  # the law's sentences are the letter's, and it says so
    day = re.search(r"<strong>([^<]+)</strong>", page).group(1)
    assert re.fullmatch(r"\w+, \d{1,2} de \w+ de \d{4}", day), day  # "lunes, 2 de marzo de 2026"


def test_english_is_the_default_and_the_browsers_other_languages_fall_back_to_it(app, lettered):
    for headers in ({}, {"Accept-Language": "fr-CA,fr;q=0.9"}):
        page = app.test_client().get("/portal/", headers=headers).get_data(as_text=True)
        assert '<html lang="en">' in page and "Look up your notice" in page


def test_the_switch_on_the_page_is_kept_for_the_pages_that_follow(app, lettered):
    browser = app.test_client()
    english = browser.get("/portal/").get_data(as_text=True)
    assert 'href="/portal/?lang=es"' in english and "Español" in english
    assert "Busque su aviso" in browser.get("/portal/?lang=es").get_data(as_text=True)
    page = _open(browser, lettered)  # no Accept-Language: the choice holds
    assert "Lo que encontramos" in page and 'href="/portal/notice?lang=en"' in page
    assert "What we found" in browser.get("/portal/notice?lang=en").get_data(as_text=True)


def test_a_refusal_is_in_the_owners_language(app, lettered):
    browser = app.test_client()
    token = form_token(browser, "/portal/?lang=es")
    r = browser.post("/portal/", data={"csrf_token": token, "code": lettered["code"], "parcel_number": "999"})
    assert r.status_code == 404 and "ningún aviso corresponde" in r.get_data(as_text=True)


def test_staff_pages_and_the_api_stay_english(app, lettered, client):
    login = client.get("/login", headers=SPANISH).get_data(as_text=True)
    assert "Password" in login and "Idioma" not in login
    r = client.post("/api/v1/portal/lookup", json={"code": lettered["code"], "parcel_number": "999"},
                    headers=SPANISH)
    assert "no notice answers" in r.get_json()["error"]["message"]


def test_an_appeal_filed_in_spanish_has_its_receipt_and_language(app, lettered):
    browser = app.test_client()
    _open(browser, lettered, **SPANISH)
    r = browser.post("/portal/appeal", data={"csrf_token": form_token(browser, "/portal/appeal"),
                                             "facts": "El bajante va al césped.", "fee": "yes"}, headers=SPANISH)
    assert r.status_code == 302, r.get_data(as_text=True)
    action = db.session.scalar(select(PortalAction).filter_by(notice_id=lettered["id"], kind="appeal"))
    assert action.language == "es"
    page = browser.get(r.headers["Location"], headers=SPANISH).get_data(as_text=True)
    assert "Recibimos su apelación" in page and "Su número de recibo es" in page
    pdf = browser.get(f"/portal/appeal/{action.id}/receipt.pdf", headers=SPANISH)
    text = PdfReader(io.BytesIO(pdf.data)).pages[0].extract_text()
    assert "Número de recibo" in text and "Recibida en línea" in text and "césped" in text


def test_dates_times_and_money_are_written_the_languages_us_way_in_the_citys_zone(app):
    moment = datetime(2026, 3, 2, 18, 5, tzinfo=UTC)  # noon in Arcadia (CST)
    with app.test_request_context("/portal/"):
        with i18n.speaking("es"):
            assert i18n.long_date(date(2026, 3, 2)) == "lunes, 2 de marzo de 2026"
            assert i18n.clock_time(moment) == "12:05\u202fp.m. (CST)" and i18n.money(50) == "$50.00"
        with i18n.speaking("en"):
            assert i18n.long_date(date(2026, 3, 2)) == "Monday, March 2, 2026"
            assert i18n.clock_time(moment) == "12:05\u202fPM (CST)" and i18n.money(50) == "$50.00"


def test_a_value_filled_into_a_translation_stays_text(app):
    """A stored value inside a translated sentence is escaped like any other (never markup)."""
    browser = app.test_client()
    hold_code(browser)
    notice = db.session.scalars(select(Notice).order_by(Notice.id.desc())).first()
    notice.parcel_number = "<i>999</i>"
    db.session.flush()
    page = browser.get("/portal/notice?lang=es").get_data(as_text=True)
    assert "Parcela &lt;i&gt;999&lt;/i&gt;" in page and "<i>999</i>" not in page
