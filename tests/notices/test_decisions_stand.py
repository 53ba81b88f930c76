"""Issue 29, "Decisions stand".

After the Commission overturns a notice the matter is closed: the violations it cites are
closed with the decision as the reason, the next routine draft does not issue them again,
and only a later inspection that finds the problem again opens a violation to notice.
How long an upheld notice gives is the Commission's express choice in the rulebook
(``[appeals] upheld_period``, its resolution named), stated on the decision letter.
Both databases.
"""

from __future__ import annotations

import io
from datetime import date, timedelta

import pytest
from pypdf import PdfReader

from gis.rulebook import RULEBOOK_DIR, load_rulebook
from server.core import city
from server.core.city import City
from server.core.extensions import db
from server.notices.article_numbers import human_readable
from server.notices.calendar import deadline_for, fmt
from server.notices.models import NoticeAppeal
from server.rules.models import Violation
from tests.support.city_calendar import city_today
from tests.support.notices import APPEAL, MAILED_ON, SIGNED, draft_one, post, walk
from tests.support.resolutions import CW, at, send, sump_pump_notice, violations
from tests.support.sync import sump_pump, survey


def _overturn(client, auth, notice_id, filed, meeting):
    r = post(client, auth, "clerk", f"/notices/{notice_id}/appeal", {"on": filed.isoformat(), "note": APPEAL["note"]})
    assert r.status_code == 200, r.get_json()
    r = post(client, auth, "clerk", f"/notices/{notice_id}/decide",
             {"decision": "overturned", "on": meeting.isoformat()})
    assert r.status_code == 200, r.get_json()
    return r.get_json()


def test_an_overturned_notice_closes_its_violations_and_drafting_does_not_reissue_them(
        client, auth, templates, parcel):
    vid, notice_id = sump_pump_notice(client, auth, parcel.id)
    meeting = city_today() - timedelta(days=2)
    _overturn(client, auth, notice_id, city_today() - timedelta(days=17), meeting)

    closed = db.session.get(Violation, vid)
    assert closed.status == "waived"
    assert closed.waiver_reason.startswith(f"Overturned on appeal: the Utility Commission decided at its meeting "
                                           f"of {fmt(meeting)} that notice {notice_id} is overturned")
    r = post(client, auth, "superintendent", "/notices/draft")
    assert r.status_code == 201 and r.get_json() == []

    # New evidence: a later inspection finds the sump pump connected again.
    send(client, auth, survey(parcel.id, [sump_pump()], **at(1)))
    fresh = [v for v in violations(parcel.id, CW) if v.status == "open"]
    assert len(fresh) == 1 and fresh[0].id != vid
    drafted = post(client, auth, "superintendent", "/notices/draft").get_json()
    assert [f["violation_id"] for d in drafted for f in d["findings"]] == [fresh[0].id]


ARCADIA = load_rulebook("arcadia")
UPHELD = 'upheld_period = "notice_period"'
RESOLUTION = 'upheld_period_resolution = "Utility Commission Resolution 2009-08, adopted 2009-09-08"'


@pytest.fixture
def appeals_rulebook(app, tmp_path, monkeypatch):
    """Give the app a rulebook like Arcadia's with its [appeals] lines replaced."""
    def use(upheld: str, resolution: str = RESOLUTION) -> None:
        text = (RULEBOOK_DIR / "arcadia.toml").read_text()
        assert UPHELD in text and RESOLUTION in text
        path = tmp_path / "appeals.toml"
        path.write_text(text.replace(UPHELD, upheld).replace(RESOLUTION, resolution))
        monkeypatch.setitem(app.extensions, city.EXTENSION, City.from_config({"LATERAL_RULEBOOK": str(path)}))
    return use


def _upheld_letter(client, auth) -> tuple[dict, str]:
    notice = walk(client, auth, draft_one(client, auth)["id"], "delivered")
    filed = MAILED_ON + timedelta(days=3)
    r = post(client, auth, "clerk", f"/notices/{notice['id']}/appeal",
             {"on": filed.isoformat(), "note": APPEAL["note"]})
    assert r.status_code == 200, r.get_json()
    r = post(client, auth, "clerk", f"/notices/{notice['id']}/decide", {"decision": "upheld"})
    assert r.status_code == 200, r.get_json()
    r = post(client, auth, "clerk", f"/notices/{notice['id']}/decision-letter", SIGNED)
    assert r.status_code == 200, r.get_json()
    mailed = r.get_json()
    pdf = client.get(f"/api/v1/notices/{notice['id']}/appeals/{mailed['appeals'][0]['id']}/letter.pdf",
                     headers=auth["clerk"])
    text = " ".join(p.extract_text() for p in PdfReader(io.BytesIO(pdf.data)).pages).replace("\n", " ")
    return {**mailed, "before": notice["deadline"], "filed": filed}, " ".join(text.split())


def test_the_upheld_letter_says_the_full_period_applies_under_the_named_resolution(client, auth, violation):
    notice, text = _upheld_letter(client, auth)
    # The notice appealed is cited by its date and article number, not by the city's record id.
    assert (f"Decision on your appeal of the notice mailed to you on {MAILED_ON:%A, %B} {MAILED_ON.day}, "
            f"{MAILED_ON.year}, certified mail article {human_readable(notice['article_number'])}") in text
    assert f"notice {notice['id']}" not in text
    assert ("Under Utility Commission Resolution 2009-08, adopted 2009-09-08, when a notice is upheld the full "
            "time the notice gave is counted again from this decision.") in text


def test_remaining_days_gives_the_days_left_when_the_appeal_was_received(client, auth, violation, appeals_rulebook):
    appeals_rulebook('upheld_period = "remaining_days"')
    notice, text = _upheld_letter(client, auth)
    left = (date.fromisoformat(notice["before"]) - notice["filed"]).days  # the notice's last day in force
    assert notice["appeals"][0]["comply_days"] == left
    assert f"you have the days that remained when your appeal was received ({left} days)" in text
    served = city_today() + timedelta(days=5)  # arcadia.toml undelivered_fallback_days
    assert notice["deadline"] == deadline_for("CW-DISCONNECT-60", served, ARCADIA, days=left).date.isoformat()


def test_an_upheld_decision_is_refused_while_the_rulebook_makes_no_choice(client, auth, violation, appeals_rulebook):
    appeals_rulebook("", "")
    notice = walk(client, auth, draft_one(client, auth)["id"], "delivered")
    post(client, auth, "clerk", f"/notices/{notice['id']}/appeal",
         {"on": (MAILED_ON + timedelta(days=3)).isoformat(), "note": APPEAL["note"]})
    r = post(client, auth, "clerk", f"/notices/{notice['id']}/decide", {"decision": "upheld"})
    assert r.status_code == 409 and r.get_json()["error"]["code"] == "rulebook_choice_missing"
    assert r.get_json()["error"]["details"]["setting"] == "[appeals] upheld_period"
    assert db.session.query(NoticeAppeal).one().decision is None


def test_the_decision_letter_has_its_ps_3877_line(client, auth, violation):
    notice, _ = _upheld_letter(client, auth)
    appeal = notice["appeals"][0]
    r = client.get(f"/api/v1/notices/{notice['id']}/appeals/{appeal['id']}/mailing-book.pdf", headers=auth["clerk"])
    assert r.status_code == 200 and r.mimetype == "application/pdf"
    text = " ".join(" ".join((p.extract_text() or "").split()) for p in PdfReader(io.BytesIO(r.data)).pages)
    assert "3877" in text and human_readable(appeal["letter_article_number"]) in text
    assert "ANN KULIG" in text


def test_a_decision_not_yet_mailed_has_no_mailing_book(client, auth, violation):
    notice = walk(client, auth, draft_one(client, auth)["id"], "appealed")
    appeal_id = db.session.query(NoticeAppeal).one().id
    r = client.get(f"/api/v1/notices/{notice['id']}/appeals/{appeal_id}/mailing-book.pdf", headers=auth["clerk"])
    assert r.status_code == 404 and r.get_json()["error"]["code"] == "not_mailed"


# ------------------------------------------------------------------ decision letters are accountable mail


def _decision_mailed(client, auth, decided_on: date, letter_on: date) -> tuple[dict, dict]:
    """A delivered notice appealed, upheld at the meeting of ``decided_on``, its letter mailed ``letter_on``."""
    notice = walk(client, auth, draft_one(client, auth)["id"], "delivered")
    r = post(client, auth, "clerk", f"/notices/{notice['id']}/appeal",
             {"on": (MAILED_ON + timedelta(days=3)).isoformat(), "note": APPEAL["note"]})
    assert r.status_code == 200, r.get_json()
    r = post(client, auth, "clerk", f"/notices/{notice['id']}/decide",
             {"decision": "upheld", "on": decided_on.isoformat()})
    assert r.status_code == 200, r.get_json()
    r = post(client, auth, "clerk", f"/notices/{notice['id']}/decision-letter",
             {**SIGNED, "mailed_on": letter_on.isoformat()})
    assert r.status_code == 200, r.get_json()
    return r.get_json(), r.get_json()["appeals"][0]


def _receipt(client, auth, notice, appeal, event, on, role="clerk"):
    return post(client, auth, role, f"/notices/{notice['id']}/appeals/{appeal['id']}/receipt",
                {"event": event, "on": on.isoformat()})


def test_the_decision_letter_s_delivery_starts_the_council_appeal_and_the_new_deadline(client, auth, violation):
    # Delivered a week after the fallback would have served it: the two counts differ by more
    # than any weekend or holiday can carry a deadline forward, whatever today is.
    letter_on, delivered_on = MAILED_ON + timedelta(days=6), MAILED_ON + timedelta(days=19)
    notice, appeal = _decision_mailed(client, auth, MAILED_ON + timedelta(days=5), letter_on)
    printed = date.fromisoformat(notice["deadline"])  # counted from mailing + the fallback days

    r = _receipt(client, auth, notice, appeal, "delivered", delivered_on)

    assert r.status_code == 200, r.get_json()
    stored = r.get_json()["appeals"][0]
    assert (stored["letter_delivery_event"], stored["letter_served_on"]) == ("delivered", delivered_on.isoformat())
    counted = deadline_for("CW-DISCONNECT-60", delivered_on, ARCADIA, days=stored["comply_days"]).date
    assert r.get_json()["deadline"] == max(counted, printed).isoformat() and counted > printed
    r = post(client, auth, "clerk", f"/notices/{notice['id']}/appeal",
             {"on": city_today().isoformat(), "note": APPEAL["note"]})
    assert r.status_code == 200, r.get_json()
    council = db.session.query(NoticeAppeal).filter_by(level="council").one()
    assert council.due_on == deadline_for("COUNCIL-APPEAL-10", delivered_on, ARCADIA).date


def test_a_decision_letter_s_receipt_is_recorded_once_and_not_unclaimed_early(client, auth, violation):
    letter_on = MAILED_ON + timedelta(days=6)
    notice, appeal = _decision_mailed(client, auth, MAILED_ON + timedelta(days=5), letter_on)
    early = _receipt(client, auth, notice, appeal, "unclaimed", letter_on + timedelta(days=2))
    assert early.status_code == 422 and early.get_json()["error"]["code"] == "invalid_date"
    assert _receipt(client, auth, notice, appeal, "delivered", letter_on - timedelta(days=1)).status_code == 422
    assert _receipt(client, auth, notice, appeal, "refused", letter_on + timedelta(days=2), "inspector").status_code \
        == 403
    assert _receipt(client, auth, notice, appeal, "refused", letter_on + timedelta(days=2)).status_code == 200
    again = _receipt(client, auth, notice, appeal, "delivered", letter_on + timedelta(days=3))
    assert again.status_code == 422
    assert db.session.get(NoticeAppeal, appeal["id"]).letter_delivery_event == "refused"
