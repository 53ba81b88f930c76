"""A pull never skips a change whose transaction commits late (PostgreSQL hands out
audit ids before commit; SQLite serialises writers)."""

from __future__ import annotations

import threading
import time

import pytest

from tests.support.databases import ENGINES, make_migrated_app

HOLD_SECONDS = 1.5


def _touch_tap(app, tap_id: int, inserted: threading.Event | None = None, release=None):
    """Record a change to a tap in the audit trail; optionally hold the commit."""
    from server.core.audit import trail as audit
    from server.core.dialects import begin_write
    from server.core.extensions import db

    with app.app_context():
        begin_write(db.session)  # as a write request does (SQLite: BEGIN IMMEDIATE)
        audit.record("update", "tap", tap_id, None, None)
        db.session.flush()
        if inserted is not None:
            inserted.set()
            release.wait(HOLD_SECONDS)
        db.session.commit()
        db.session.remove()


def _pull(app, user_id: int, cursor, out: list):
    from server.core.accounts.models import User
    from server.core.extensions import db
    from server.field import sync

    with app.app_context():
        out.append(sync.pull(db.session.get(User, user_id), cursor, 500, 150))
        db.session.remove()


@pytest.mark.parametrize("kind", ENGINES)
def test_a_late_committing_change_is_not_skipped(kind, tmp_path):
    from server.core.accounts.service import create_user
    from server.core.extensions import db
    from server.field.checklist_templates import load_templates
    from server.field.models import Assignment
    from server.network import features
    from server.network.layers import LAYERS
    from tests.support.features import SAMPLES, point

    app, drop = make_migrated_app(kind, tmp_path, TUS_STAGING_DIR=str(tmp_path / "tus"),
                                  BLOB_STORE={"backend": "local", "root": str(tmp_path / "blobs")})
    try:
        with app.app_context():
            user_id = create_user("field1", "inspector", "correct horse battery").id
            load_templates()
            parcel = features.create_feature(LAYERS["parcels"], *SAMPLES["parcels"], None)[1]
            late = features.create_feature(LAYERS["taps"], point(dx=0.0001), SAMPLES["taps"][1], None)[1]
            early = features.create_feature(LAYERS["taps"], point(dx=0.00015), SAMPLES["taps"][1], None)[1]
            db.session.add(Assignment(inspector_id=user_id, parcel_id=parcel, template_id="tap", status="open"))
            db.session.commit()
        first: list = []
        _pull(app, user_id, None, first)

        inserted, release = threading.Event(), threading.Event()
        slow = threading.Thread(target=_touch_tap, args=(app, late, inserted, release))
        slow.start()
        assert inserted.wait(10)
        quick = threading.Thread(target=_touch_tap, args=(app, early))
        quick.start()
        if kind == "postgis":
            quick.join(10)  # commits while the slow writer still holds its audit id
        pages: list = []
        puller = threading.Thread(target=_pull, args=(app, user_id, first[0]["cursor"], pages))
        puller.start()
        time.sleep(0.5)  # the pull reads (or, on PostgreSQL, waits) while the slow writer holds
        release.set()
        for t in (slow, quick, puller):
            t.join(30)
        _pull(app, user_id, pages[0]["cursor"], pages)
        seen = {f["id"] for page in pages for f in page["features"]["taps"]}
        assert {late, early} <= seen
        with app.app_context():
            db.session.remove()
            db.engine.dispose()
    finally:
        if drop:
            drop()
