"""A reinspection assignment reaches the tablet with the notice it checks and its rule."""

from __future__ import annotations

from datetime import date, timedelta

from server.notices.tick import tick


def test_the_pulled_reinspection_names_its_notice_and_the_open_violations_rule(
        client, auth, templates, notice_in):
    notice = notice_in("delivered")
    tick(date.fromisoformat(notice["deadline"]) + timedelta(days=1))
    response = client.get("/api/v1/sync/pull", headers=auth["inspector"])
    assert response.status_code == 200, response.get_json()
    [assignment] = [a for a in response.get_json()["assignments"] if a["template_id"] == "reinspection"]
    pulled = assignment["notice"]
    assert (pulled["id"], pulled["kind"], pulled["state"]) == (notice["id"], notice["kind"], "overdue")
    assert pulled["rules"][0] == "CLEAR-WATER"  # the open violation's rule comes first
    assert notice["kind"] in pulled["rules"]
