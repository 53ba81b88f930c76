"""Two inspectors saving the same feature at once: one wins, the other gets 412.

These tests need real commits seen by two threads, so each has its own migrated
database instead of the rolled-back test transaction.
"""

from __future__ import annotations

import threading

import pytest

from tests.support.databases import ENGINES, PASSWORD, fresh_app
from tests.support.features import feature


@pytest.fixture(params=ENGINES)
def live_app(request, tmp_path):
    from server.core.accounts.service import create_user, issue_token
    from server.core.extensions import db

    with fresh_app(request.param, tmp_path) as app:
        with app.app_context():
            user = create_user("sup", "superintendent", PASSWORD)
            token = issue_token(user, "t")[0]
            db.session.commit()
        yield app, {"Authorization": f"Bearer {token}"}


def test_simultaneous_patches_from_one_version_let_exactly_one_through(live_app):
    app, headers = live_app
    client = app.test_client()
    fid = client.post("/api/v1/taps", json=feature("taps"), headers=headers).get_json()["id"]
    barrier = threading.Barrier(6)
    statuses = []

    def edit(position):
        barrier.wait()
        r = app.test_client().patch(
            f"/api/v1/taps/{fid}", json={"type": "Feature", "properties": {"clock_position": position}},
            headers={**headers, "If-Match": '"1"'},
        )
        statuses.append(r.status_code)

    threads = [threading.Thread(target=edit, args=(11.0 + i * 0.1,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(statuses) == [200, 412, 412, 412, 412, 412]
    assert client.get(f"/api/v1/taps/{fid}", headers=headers).headers["ETag"] == '"2"'
