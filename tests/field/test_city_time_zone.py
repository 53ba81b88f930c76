"""The city's calendar (rulebook ``[municipality] time_zone``): an evening visit in
Arcadia is that day's, not UTC's next; "today" is Arcadia's today, not the server's."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest
from sqlalchemy import select

from gis.rulebook import RULEBOOK_DIR, RulebookError, load_rulebook
from server.core.extensions import db
from server.network.models import ClearWaterFinding
from server.notices import clock as notice_clock
from server.notices.clock import today
from server.rules.models import Violation
from tests.support.notices import mail, post
from tests.support.resolutions import CW, send, violations
from tests.support.sync import JPEG_SHA, location, sump_pump, survey

# 7:30 pm on Friday 27 November 2026 in Arcadia (CST, UTC-6).
EVENING = "2026-11-28T01:30:00Z"
ARCADIA_DAY = date(2026, 11, 27)


@pytest.fixture
def set_clock(monkeypatch):
    """Stop the notice workflow's clock at an instant: ``clock(datetime)``."""
    def set_to(moment: datetime) -> None:
        monkeypatch.setattr(notice_clock, "utcnow", lambda: moment)
    return set_to


def test_today_is_the_city_s_day_not_the_server_s(app, set_clock):
    set_clock(datetime(2026, 11, 28, 3, 0, tzinfo=UTC))  # 9 pm on the 27th in Arcadia
    assert today() == ARCADIA_DAY


def test_an_evening_visit_is_observed_on_the_city_s_day(client, auth, templates, parcel_id):
    send(client, auth, survey(parcel_id, [sump_pump()], started_at="2026-11-28T01:00:00Z", finished_at=EVENING))
    finding = db.session.execute(select(ClearWaterFinding)).scalar_one()
    assert finding.observed_on == ARCADIA_DAY


def test_an_evening_reinspection_resolves_on_the_city_s_day(client, auth, templates, parcel_id, set_clock):
    set_clock(datetime(2026, 11, 30, 15, 0, tzinfo=UTC))
    send(client, auth, survey(parcel_id, [sump_pump()], started_at="2026-11-02T15:00:00Z",
                              finished_at="2026-11-02T15:40:00Z"))
    [vid] = [v.id for v in violations(parcel_id, CW)]
    r = post(client, auth, "superintendent", "/notices/draft", {"parcel_ids": [parcel_id]})
    notice_id = r.get_json()[0]["id"]
    for event, role, body in [("approve", "superintendent", {}), ("mail", "clerk", {"mailed_on": "2026-11-05"}),
                              ("deliver", "clerk", {"on": "2026-11-09"})]:
        r = (mail(client, auth, [notice_id], date(2026, 11, 5)) if event == "mail"
             else post(client, auth, role, f"/notices/{notice_id}/{event}", body))
        assert r.status_code in (200, 201), (event, r.get_json())
    send(client, auth, {"template_id": "reinspection", "template_version": 2, "parcel_id": parcel_id,
                        "location": location(), "started_at": "2026-11-28T01:00:00Z", "finished_at": EVENING,
                        "replaces": None,
                        "answers": {"notice_reference": "notice of the 60-day letter", "violation_rule": CW,
                                    "corrected": "yes", "evidence_photo": [JPEG_SHA]},
                        "photos": [{"sha256": JPEG_SHA, "item_id": "evidence_photo", "filename": "after.jpg"}]})
    body = client.get(f"/api/v1/notices/{notice_id}", headers=auth["clerk"]).get_json()
    assert (body["state"], body["complied_on"]) == ("complied", ARCADIA_DAY.isoformat())
    assert body["violations_resolved_on"] == ARCADIA_DAY.isoformat()
    assert db.session.get(Violation, vid).status == "resolved"


@pytest.mark.parametrize("zone", ["America/Arcadia", "", "Central"])
def test_a_rulebook_with_an_unknown_time_zone_does_not_load(tmp_path, zone):
    text = (RULEBOOK_DIR / "arcadia.toml").read_text()
    path = tmp_path / f"badzone{len(zone)}.toml"
    path.write_text(text.replace('[municipality]\n', f'[municipality]\ntime_zone = "{zone}"\n', 1)
                    .replace('time_zone = "America/Chicago"\n', ""))
    with pytest.raises(RulebookError, match=r"\[municipality\] time_zone"):
        load_rulebook(str(path))


def test_arcadia_keeps_central_time():
    assert load_rulebook("arcadia").time_zone.key == "America/Chicago"
