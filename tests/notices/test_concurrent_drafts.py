"""Two superintendents drafting at once never put one violation in two notices."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from threading import Barrier

from sqlalchemy import func, select

from server.core.extensions import db
from server.notices.models import Notice, NoticeViolation
from tests.support.notices import add_parcel, add_violation, post

THREADS, PARCELS = 4, 6


def test_concurrent_drafts_give_each_violation_one_notice(committed_app, committed_tokens):
    with committed_app.app_context():
        violation_ids = [add_violation(add_parcel()).id for _ in range(PARCELS)]
        db.session.commit()
        db.session.remove()
    barrier = Barrier(THREADS)

    def draft(_):
        client = committed_app.test_client()
        barrier.wait()
        r = post(client, committed_tokens, "superintendent", "/notices/draft")
        return r.status_code, r.get_json()

    with ThreadPoolExecutor(THREADS) as pool:
        results = list(pool.map(draft, range(THREADS)))
    assert {status for status, _ in results} <= {201, 409}, results
    assert all(body["error"]["code"] == "violation_already_noticed" for status, body in results if status == 409)
    drafted = [n["id"] for status, body in results if status == 201 for n in body]
    with committed_app.app_context():
        links = db.session.execute(select(NoticeViolation.violation_id, func.count())
                                   .group_by(NoticeViolation.violation_id)).all()
        assert sorted(links) == [(v, 1) for v in violation_ids]
        assert sorted(drafted) == sorted(db.session.scalars(select(Notice.id)))
        assert db.session.scalar(select(func.count(Notice.id))) == PARCELS
        db.session.remove()
