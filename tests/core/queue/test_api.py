"""``GET /api/v1/jobs/<id>`` (server/core/queue/api.py): its submitter and supervisors read a job."""

from __future__ import annotations


def test_a_job_is_read_by_its_submitter_and_not_by_another_user(client, auth):
    r = client.post("/api/v1/rules/run", json={"rules": ["TAP-QUADRANT"]}, headers=auth["superintendent"])
    assert r.status_code == 202
    url = r.headers["Location"]
    mine = client.get(url, headers=auth["superintendent"])
    assert mine.status_code == 200 and mine.get_json()["state"] == "done"
    assert mine.get_json()["result"]["rules"] == ["TAP-QUADRANT"]
    assert [s["stage"] for s in mine.get_json()["steps"]][0] == "load"
    assert client.get(url, headers=auth["inspector"]).status_code == 404
    assert client.get(url, headers=auth["admin"]).status_code == 200


def test_no_such_job_is_404(client, auth):
    assert client.get("/api/v1/jobs/999999", headers=auth["admin"]).status_code == 404
