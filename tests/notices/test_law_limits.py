"""Issue 29, "The law's limits on the city".

A notice is issued in the Utility Commission's name under its delegation to the
superintendent: while the rulebook's delegation is missing or a placeholder nothing is
approved or mailed, and ``flask doctor`` says so. Connecting to the sewer, its $5-a-day
penalty and a lateral replacement need a street opening, so the frozen-ground season
neither counts toward their deadlines nor accrues the penalty. The penalty's ten days'
notice cites the notice it follows. The Art. I kind is offered only for the sources
Art. I reaches, cites Art. I on its findings and prints a review route. Both databases.
"""

from __future__ import annotations

import io
from datetime import date, timedelta
from decimal import Decimal

import pytest
from pypdf import PdfReader

from gis.rulebook import RULEBOOK_DIR, load_rulebook
from server.core import city
from server.core.city import City
from server.core.extensions import db
from server.notices.article_numbers import human_readable
from server.notices.clock import accrue_penalty
from server.notices.election_calendar import deadline
from server.notices.kinds import notice_kind
from server.notices.models import MailingBatch, Notice
from server.notices.tick import tick
from server.operations import doctor
from tests.support.notices import MAILED_ON, add_finding, add_parcel, add_violation, draft_one, post, walk

ARCADIA = load_rulebook("arcadia")
DELEGATION = 'resolution = "Utility Commission Resolution 2009-07"'


@pytest.fixture
def placeholder_delegation(app, tmp_path, monkeypatch):
    """Give the app a rulebook like Arcadia's whose delegation is a placeholder; its path."""
    def use(resolution: str = 'resolution = "Utility Commission Resolution 20XX-XX (placeholder)"') -> str:
        text = (RULEBOOK_DIR / "arcadia.toml").read_text()
        assert DELEGATION in text
        path = tmp_path / "placeholder.toml"
        path.write_text(text.replace(DELEGATION, resolution))
        monkeypatch.setitem(app.extensions, city.EXTENSION, City.from_config({"LATERAL_RULEBOOK": str(path)}))
        return str(path)
    return use


@pytest.mark.parametrize("resolution", ['resolution = "Utility Commission Resolution 20XX-XX (placeholder)"',
                                        'resolution = "Resolution 2009-07", placeholder = true',
                                        'resolution = ""'])
def test_no_notice_is_approved_while_the_delegation_is_a_placeholder(client, auth, violation,
                                                                     placeholder_delegation, resolution):
    placeholder_delegation(resolution)
    notice = draft_one(client, auth)
    r = post(client, auth, "superintendent", f"/notices/{notice['id']}/approve")
    assert r.status_code == 409 and r.get_json()["error"]["code"] == "rulebook_choice_missing", r.get_json()
    assert r.get_json()["error"]["details"]["setting"] == "[municipality] commission_delegation"
    stored = db.session.get(Notice, notice["id"])
    assert stored.state == "draft" and stored.approved_at is None


def test_no_notice_is_mailed_while_the_delegation_is_a_placeholder(client, auth, violation, placeholder_delegation):
    notice = walk(client, auth, draft_one(client, auth)["id"], "approved")  # approved before the rulebook changed
    placeholder_delegation()
    r = post(client, auth, "clerk", "/mailings", {"notice_ids": [notice["id"]]})
    assert r.status_code == 409 and r.get_json()["error"]["code"] == "rulebook_choice_missing"
    assert db.session.get(Notice, notice["id"]).state == "approved"
    assert db.session.query(MailingBatch).count() == 0


def test_doctor_says_the_delegation_is_a_placeholder(app, placeholder_delegation, monkeypatch):
    from dataclasses import replace

    from server.core import settings

    path = placeholder_delegation()
    monkeypatch.setitem(app.extensions, settings.EXTENSION, replace(settings.of(app), rulebook=path))
    finding = doctor.check_rulebook_choices(app)
    assert not finding.ok and "commission_delegation is a placeholder" in finding.message


# ------------------------------------------------------------------ frozen ground (§ 315-13A(3))


@pytest.mark.parametrize(("rule", "section", "kind"), [("HOOKUP-365", "§ 315-11D", "HOOKUP-365"),
                                                       ("LATERAL-SDR26", "§ 315-13C(3)", "GENERAL-VIOLATION")])
def test_connecting_and_replacing_a_lateral_do_not_count_the_frozen_season(client, auth, rule, section, kind):
    add_violation(add_parcel(), rule, section, "needs a street opening")
    notice = walk(client, auth, draft_one(client, auth)["id"], "delivered")
    assert notice["kind"] == kind
    served = date.fromisoformat(notice["served_on"])
    frozen = deadline(notice_kind(kind).deadline_rule, served, ARCADIA, street_opening=True).date
    plain = deadline(notice_kind(kind).deadline_rule, served, ARCADIA).date
    assert frozen > plain  # served in the autumn: the season falls inside the period
    assert date.fromisoformat(notice["deadline"]) >= frozen


@pytest.mark.parametrize(("kind", "through", "owed"), [
    ("HOOKUP-PENALTY", date(2026, 12, 10), "25.00"),   # 11-26 .. 11-30; December is frozen
    ("HOOKUP-PENALTY", date(2027, 4, 20), "50.00"),    # and 04-16 .. 04-20 after the thaw
    ("GENERAL-VIOLATION", date(2026, 12, 10), "75.00"),  # no street opening: every day
])
def test_the_hookup_penalty_does_not_accrue_while_the_ground_is_frozen(app, kind, through, owed):
    notice = Notice(kind=kind, deadline=date(2026, 11, 25), penalty_per_day=Decimal("5.00"))
    accrue_penalty(notice, through)
    assert notice.penalty_accrued == Decimal(owed)


# ------------------------------------------------------------------ letters cite the notice they follow


def _text(pdf: bytes) -> str:
    return " ".join(" ".join((p.extract_text() or "").split()) for p in PdfReader(io.BytesIO(pdf)).pages)


def _long(d: date) -> str:
    return f"{d:%A, %B} {d.day}, {d.year}"


def test_the_hookup_penalty_letter_cites_the_notice_it_follows(client, auth):
    add_violation(add_parcel(), "HOOKUP-365", "§ 315-11D", "Occupied dwelling not connected; main 60 ft away")
    first = walk(client, auth, draft_one(client, auth)["id"], "delivered")
    tick(date.fromisoformat(first["deadline"]) + timedelta(days=1))
    assert post(client, auth, "superintendent", f"/notices/{first['id']}/escalate").status_code == 200
    [follow] = client.get("/api/v1/notices?kind=HOOKUP-PENALTY", headers=auth["clerk"]).get_json()
    follow = walk(client, auth, follow["id"], "mailed")
    r = client.get(f"/api/v1/notices/{follow['id']}/letter.pdf", headers=auth["clerk"])
    assert r.status_code == 200
    cited = (f"This notice follows the notice mailed to you on {_long(MAILED_ON)}, certified mail article "
             f"{human_readable(first['article_number'])}, which required the connection by "
             f"{_long(date.fromisoformat(first['deadline']))}.")
    assert cited in _text(r.data)


# ------------------------------------------------------------------ Art. I: its sources, its section, a review


def _art_one(client, auth):
    return post(client, auth, "superintendent", "/notices/draft", {"clear_water_kind": "CW-REMOVE-150"}).get_json()


@pytest.mark.parametrize(("sources", "kind"), [
    (["sump_pump", "roof_downspout", "foundation_drain"], "CW-REMOVE-150"),
    (["sump_pump", "yard_drain"], "CW-DISCONNECT-60"),  # Art. I does not reach a yard drain
    (["other"], "CW-DISCONNECT-60"),
    ([], "CW-DISCONNECT-60"),  # no source recorded: nothing shows Art. I reaches it
])
def test_the_article_one_kind_is_offered_only_for_roof_foundation_and_sump_sources(client, auth, parcel, violation,
                                                                                   sources, kind):
    for source in sources:
        add_finding(parcel, source)
    add_finding(parcel, "yard_drain", connected="no")  # not connected: not a source in violation
    assert [n["kind"] for n in _art_one(client, auth)] == [kind]


def test_an_article_one_letter_cites_article_one_and_prints_a_chapter_68_review(client, auth, parcel, violation):
    add_finding(parcel, "sump_pump")
    [notice] = _art_one(client, auth)
    notice = walk(client, auth, notice["id"], "mailed")
    text = _text(client.get(f"/api/v1/notices/{notice['id']}/letter.pdf", headers=auth["clerk"]).data)
    assert "(Art. I (Ord. 112A, 1976))" in text and "(§ 315-13D)" not in text
    assert ("Under Wis. Stat. ch. 68 you may request a review of it by writing to the Arcadia Utility Commission "
            "at the address above within 30 days of receiving this notice (Wis. Stat. § 68.08)") in text
    assert "right to appeal" not in text
