"""A large batch mailed as a job of the queue (server/notices/mailing.py ``run_mailing_job``,
issue #35): the same batch as ``POST /mailings``, once, its failure kept on the job."""

from __future__ import annotations

from server.notices.models import Notice
from tests.support.notices import add_parcel, add_violation, mail, post


def _approved(client, auth, n: int) -> list[int]:
    for _ in range(n):
        add_violation(add_parcel())
    ids = [d["id"] for d in post(client, auth, "superintendent", "/notices/draft").get_json()]
    for notice_id in ids:
        post(client, auth, "superintendent", f"/notices/{notice_id}/approve")
    return ids


def test_a_mailing_job_mails_the_batch_once(client, auth, app):
    ids = _approved(client, auth, 3)
    r = post(client, auth, "clerk", "/mailings/jobs", {"notice_ids": ids})
    assert r.status_code == 202, r.get_json()
    job = r.get_json()
    assert job["state"] == "done" and job["result"]["pieces"] == 3
    batch = client.get(f"/api/v1/mailings/{job['result']['batch_id']}", headers=auth["clerk"]).get_json()
    assert sorted(batch["notice_ids"]) == sorted(ids) and batch["state"] == "printed"
    from server.core.extensions import db
    assert all(db.session.get(Notice, i).state == "approved" for i in ids)  # printed, not mailed
    r = post(client, auth, "clerk", f"/mailings/{batch['id']}/record", {"count": 3})
    assert r.status_code == 200 and r.get_json()["state"] == "mailed", r.get_json()
    assert all(db.session.get(Notice, i).state == "mailed" for i in ids)


def test_a_mailing_job_that_cannot_mail_keeps_why_and_mails_nothing(client, auth, app):
    ids = _approved(client, auth, 1)
    assert mail(client, auth, ids).status_code == 200  # mailed already
    job = post(client, auth, "clerk", "/mailings/jobs", {"notice_ids": ids}).get_json()
    assert job["state"] == "failed" and job["error"] and job["result"] is None


def test_only_senders_queue_a_mailing(client, auth, app):
    ids = _approved(client, auth, 1)
    assert post(client, auth, "inspector", "/mailings/jobs", {"notice_ids": ids}).status_code == 403
