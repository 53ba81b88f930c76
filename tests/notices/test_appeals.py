"""Appeals (§ 315-21H): in time or accepted late, the Commission's 30 days, the decision
letter, and what each decision does to the notice; then the Common Council."""

from __future__ import annotations

import io
from datetime import timedelta

import pytest
from pypdf import PdfReader

from gis.rulebook import load_rulebook
from server.core.errors import LateralError, status_of
from server.core.extensions import db
from server.notices.appeals import file_appeal
from server.notices.calendar import deadline_for, fmt
from server.notices.models import Notice, NoticeAppeal, NoticeViolation
from server.notices.tick import tick
from tests.support.city_calendar import city_today
from tests.support.notices import APPEAL, MAILED_ON, SIGNED, draft_one, post, walk

ARCADIA = load_rulebook("arcadia")  # the test apps' rulebook; pure code is always told which

KIND = "CW-DISCONNECT-60"
FALLBACK = 5  # arcadia.toml [calendar] undelivered_fallback_days
FACTS = APPEAL["note"]


def _appeal(client, auth, notice_id, on, role="clerk", **extra):
    return post(client, auth, role, f"/notices/{notice_id}/appeal", {"on": on.isoformat(), "note": FACTS, **extra})


def _decide(client, auth, notice_id, decision, **extra):
    return post(client, auth, "clerk", f"/notices/{notice_id}/decide", {"decision": decision, **extra})


def _letter(client, auth, notice_id):
    r = post(client, auth, "clerk", f"/notices/{notice_id}/decision-letter", SIGNED)
    assert r.status_code == 200, r.get_json()
    return r.get_json()


def _pdf_text(client, auth, notice_id, appeal_id) -> str:
    r = client.get(f"/api/v1/notices/{notice_id}/appeals/{appeal_id}/letter.pdf", headers=auth["clerk"])
    assert r.status_code == 200 and r.mimetype == "application/pdf"
    return " ".join(page.extract_text() for page in PdfReader(io.BytesIO(r.data)).pages).replace("\n", " ")


@pytest.fixture
def delivered(client, auth, violation) -> dict:
    return walk(client, auth, draft_one(client, auth)["id"], "delivered")


def test_an_appeal_in_time_records_its_due_day_and_the_commissions_thirty_days(client, auth, delivered):
    filed = MAILED_ON + timedelta(days=3)
    r = _appeal(client, auth, delivered["id"], filed)
    assert r.status_code == 200, r.get_json()
    (appeal,) = r.get_json()["appeals"]
    assert appeal["level"] == "commission" and appeal["facts"] == FACTS and appeal["late_reason"] is None
    assert appeal["due_on"] == deadline_for("APPEAL-10", MAILED_ON, ARCADIA).date.isoformat()
    assert appeal["decide_by"] == deadline_for("APPEAL-DECISION-30", filed, ARCADIA).date.isoformat()


def test_a_late_appeal_is_recorded_with_its_filing_date_and_flagged_late(client, auth, delivered):
    due = deadline_for("APPEAL-10", MAILED_ON, ARCADIA).date
    why = "The owner was in hospital; the letter reached him on his return."
    r = _appeal(client, auth, delivered["id"], city_today(), late_reason=why)  # the clerk records it
    assert r.status_code == 200, r.get_json()
    (appeal,) = r.get_json()["appeals"]
    assert (appeal["filed_on"], appeal["due_on"], appeal["late"]) == (city_today().isoformat(), due.isoformat(), True)
    assert appeal["late_reason"] == why and appeal["heard"] is None
    assert r.get_json()["state"] == "appealed"


def test_the_decision_on_a_late_appeal_says_whether_it_was_heard(client, auth, delivered):
    notice_id = delivered["id"]
    before = client.get(f"/api/v1/notices/{notice_id}", headers=auth["clerk"]).get_json()["deadline"]
    _appeal(client, auth, notice_id, city_today() - timedelta(days=1))
    r = _decide(client, auth, notice_id, "upheld")
    assert r.status_code == 422 and "heard" in r.get_json()["error"]["details"]["fields"]
    assert db.session.query(NoticeAppeal).one().decision is None
    r = _decide(client, auth, notice_id, "overturned", heard=False)
    assert r.status_code == 422 and "decision" in r.get_json()["error"]["details"]["fields"]
    r = _decide(client, auth, notice_id, "upheld", heard=False)
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["deadline"] == before  # not heard: the notice's last day stands
    notice = _letter(client, auth, notice_id)
    assert notice["deadline"] == before and notice["appeals"][0]["heard"] is False
    text = _pdf_text(client, auth, notice_id, notice["appeals"][0]["id"])
    due = deadline_for("APPEAL-10", MAILED_ON, ARCADIA).date
    assert f"after the 10 days for an appeal under § 315-21H, which ended {fmt(due)}" in text
    assert "did not hear the appeal for that reason. The notice stands as mailed." in text


def test_a_late_appeal_heard_is_decided_on_its_merits(client, auth, delivered):
    notice_id = delivered["id"]
    _appeal(client, auth, notice_id, city_today() - timedelta(days=1))
    r = _decide(client, auth, notice_id, "overturned", heard=True)
    assert r.status_code == 200, r.get_json()
    notice = _letter(client, auth, notice_id)
    assert notice["appeals"][0]["heard"] is True
    assert "heard the appeal nonetheless and overturned the notice" in _pdf_text(
        client, auth, notice_id, notice["appeals"][0]["id"])


def test_an_appeal_sets_forth_its_facts(client, auth, delivered):
    r = post(client, auth, "clerk", f"/notices/{delivered['id']}/appeal", {"on": APPEAL["on"]})
    assert r.status_code == 422 and r.get_json()["error"]["details"]["fields"] == {"note": ["required"]}


def test_a_notice_never_mailed_has_nothing_to_appeal_404_not_mailed(client, auth, violation):
    # The workflow allows no appeal before mailing; the service holds the rule anyway, with
    # not_mailed's one status (404, as for its letter; the service said 409 before the catalogue).
    notice = db.session.get(Notice, draft_one(client, auth)["id"])
    with pytest.raises(LateralError) as refused:
        file_appeal(notice, {"on": MAILED_ON, "note": FACTS}, None)
    assert (refused.value.code, status_of(refused.value.code)) == ("not_mailed", 404)
    assert db.session.query(NoticeAppeal).count() == 0


def test_the_commissions_thirty_days_turn_overdue(client, auth, delivered):
    notice = _appeal(client, auth, delivered["id"], MAILED_ON + timedelta(days=3)).get_json()
    decide_by = notice["appeals"][0]["decide_by"]
    day_after = deadline_for("APPEAL-DECISION-30", MAILED_ON + timedelta(days=3), ARCADIA).date + timedelta(days=1)
    assert tick(day_after - timedelta(days=1))["decision_overdue"] == []
    assert tick(day_after)["decision_overdue"] == [notice["id"]]
    assert decide_by == (day_after - timedelta(days=1)).isoformat()


def test_upheld_keeps_the_notice_and_its_violations_and_counts_again_from_the_letter(client, auth, delivered):
    notice_id = delivered["id"]
    _appeal(client, auth, notice_id, MAILED_ON + timedelta(days=3))
    meeting = city_today() - timedelta(days=1)
    r = _decide(client, auth, notice_id, "upheld", on=meeting.isoformat())
    assert r.status_code == 200 and r.get_json()["state"] == "decided" and r.get_json()["deadline"] is None
    # Not closed: the cited violations stay with this notice, and drafting adds nothing.
    assert db.session.query(NoticeViolation).filter_by(notice_id=notice_id, closed=False).count() == 1
    assert post(client, auth, "superintendent", "/notices/draft").get_json() == []
    notice = _letter(client, auth, notice_id)
    expected = deadline_for(KIND, city_today() + timedelta(days=FALLBACK), ARCADIA).date
    assert notice["deadline"] == expected.isoformat()
    assert notice["deadline_steps"][0].startswith(f"appeal upheld by the commission at its meeting of {fmt(meeting)}")
    appeal = notice["appeals"][0]
    assert appeal["letter_mailed_on"] == city_today().isoformat() and len(appeal["letter_article_number"]) == 22
    text = _pdf_text(client, auth, notice_id, appeal["id"])
    assert "upheld the notice" in text and f"meeting of {fmt(meeting)}" in text
    assert f"on or before {fmt(expected)}" in text
    council_due = deadline_for("COUNCIL-APPEAL-10", city_today(), ARCADIA).date
    assert f"Common Council within 10 days after this notification, on or before {fmt(council_due)}" in text
    # The body's letter, signed by its named officer; the superintendent's delegation is not on it (issue 29).
    assert "issues notices in the name of" not in text
    assert text.rstrip().endswith(f"{SIGNED['signed_by']} for the Arcadia Utility Commission")
    # Its clock runs: past the new deadline the tick marks it overdue.
    assert tick(expected + timedelta(days=1))["overdue"] == [notice_id]


def test_overturned_closes_the_notice(client, auth, delivered):
    notice_id = delivered["id"]
    _appeal(client, auth, notice_id, MAILED_ON + timedelta(days=3))
    assert _decide(client, auth, notice_id, "overturned").status_code == 200
    assert db.session.query(NoticeViolation).filter_by(notice_id=notice_id, closed=True).count() == 1
    notice = _letter(client, auth, notice_id)
    assert notice["deadline"] is None
    assert "overturned the notice" in _pdf_text(client, auth, notice_id, notice["appeals"][0]["id"])
    r = _appeal(client, auth, notice_id, city_today())
    assert r.status_code == 409 and r.get_json()["error"]["code"] == "invalid_transition"


def test_modified_states_its_terms_and_days(client, auth, delivered):
    notice_id = delivered["id"]
    _appeal(client, auth, notice_id, MAILED_ON + timedelta(days=3))
    r = _decide(client, auth, notice_id, "modified", note="Disconnect the sump pump only.")
    assert r.status_code == 422 and r.get_json()["error"]["details"]["fields"] == {"days": ["required"]}
    r = _decide(client, auth, notice_id, "modified", days=90)
    assert r.status_code == 422 and r.get_json()["error"]["details"]["fields"] == {"note": ["required when modified"]}
    r = _decide(client, auth, notice_id, "modified", days=90, note="Disconnect the sump pump only.")
    assert r.status_code == 200, r.get_json()
    notice = _letter(client, auth, notice_id)
    served = city_today() + timedelta(days=FALLBACK)
    assert notice["deadline"] == deadline_for(KIND, served, ARCADIA, days=90).date.isoformat()
    assert "Disconnect the sump pump only." in _pdf_text(client, auth, notice_id, notice["appeals"][0]["id"])


def test_the_council_appeal_runs_from_the_decision_letter(client, auth, delivered):
    notice_id = delivered["id"]
    _appeal(client, auth, notice_id, MAILED_ON + timedelta(days=3))
    _decide(client, auth, notice_id, "upheld")
    r = _appeal(client, auth, notice_id, city_today())
    assert r.status_code == 409 and r.get_json()["error"]["code"] == "decision_not_notified"
    _letter(client, auth, notice_id)
    r = _appeal(client, auth, notice_id, city_today())
    assert r.status_code == 200, r.get_json()
    council = r.get_json()["appeals"][1]
    assert council["level"] == "council" and council["decide_by"] is None
    assert council["due_on"] == deadline_for("COUNCIL-APPEAL-10", city_today(), ARCADIA).date.isoformat()
    assert _decide(client, auth, notice_id, "upheld").status_code == 200
    _letter(client, auth, notice_id)
    r = _appeal(client, auth, notice_id, city_today())
    assert r.status_code == 409 and r.get_json()["error"]["code"] == "no_further_appeal"


def test_a_decision_letter_is_signed_by_a_named_officer_and_the_council_s_on_its_letterhead(
        client, auth, delivered):
    notice_id = delivered["id"]
    _appeal(client, auth, notice_id, MAILED_ON + timedelta(days=3))
    _decide(client, auth, notice_id, "upheld", on=(city_today() - timedelta(days=2)).isoformat())
    r = post(client, auth, "clerk", f"/notices/{notice_id}/decision-letter")
    assert r.status_code == 422 and r.get_json()["error"]["details"]["fields"] == {"signed_by": ["required"]}
    assert db.session.query(NoticeAppeal).one().letter_mailed_on is None
    _letter(client, auth, notice_id)
    _appeal(client, auth, notice_id, city_today())
    _decide(client, auth, notice_id, "upheld")
    r = post(client, auth, "clerk", f"/notices/{notice_id}/decision-letter",
             {"signed_by": "Dana Reed, President of the Common Council"})
    assert r.status_code == 200, r.get_json()
    council = r.get_json()["appeals"][1]
    assert council["letter_signed_by"] == "Dana Reed, President of the Common Council"
    text = _pdf_text(client, auth, notice_id, council["id"])
    assert text.startswith("Common Council, City of Arcadia 203 W Main St")
    assert text.rstrip().endswith("Dana Reed, President of the Common Council for the Common Council")


def test_a_decision_letter_is_mailed_once(client, auth, delivered):
    notice_id = delivered["id"]
    _appeal(client, auth, notice_id, MAILED_ON + timedelta(days=3))
    _decide(client, auth, notice_id, "upheld")
    _letter(client, auth, notice_id)
    r = post(client, auth, "clerk", f"/notices/{notice_id}/decision-letter")
    assert r.status_code == 409 and r.get_json()["error"]["code"] == "no_decision_to_mail"
