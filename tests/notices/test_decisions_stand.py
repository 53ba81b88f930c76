"""Issue 29, "Decisions stand".

After the Commission overturns a notice the matter is closed: the violations it cites are
closed with the decision as the reason, the next routine draft does not issue them again,
and only a later inspection that finds the problem again opens a violation to notice.
Both databases.
"""

from __future__ import annotations

from datetime import timedelta

from server.core.extensions import db
from server.notices.calendar import fmt
from server.rules.models import Violation
from tests.support.city_calendar import city_today
from tests.support.notices import APPEAL, post
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
