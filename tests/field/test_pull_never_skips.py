"""Pulls never skip a change: writers and pullers run at once for a while, and every puller
sees every change exactly once (issue 18, item 4).

The writers create and edit taps in transactions that overlap and commit in an order
unlike their audit ids; the pullers page through the changes (small pages) while the
writers run, then drain. For each puller: every tap is seen, its last version is the
one in the database, and no (tap, version) reaches it twice.
"""

from __future__ import annotations

import random
import threading
import time
from collections import Counter

import pytest

from tests.support.databases import ENGINES, make_migrated_app

WRITERS, PULLERS, ROUNDS = 3, 2, 12


def _writer(app, seed: int, created: list, errors: list) -> None:
    from server.core.dialects import begin_write
    from server.core.extensions import db
    from server.network import features
    from server.network.layers import LAYERS
    from tests.support.features import SAMPLES, point

    rng = random.Random(seed)
    mine: dict[int, int] = {}  # tap id -> version
    clock: dict[int, float] = {}  # tap id -> clock position (each edit changes it)
    try:
        with app.app_context():
            for _ in range(ROUNDS):
                begin_write(db.session)
                if not mine or rng.random() < 0.6:
                    geometry = point(dx=0.0001 + rng.random() * 0.0003, dy=rng.random() * 0.0003)
                    _, fid, version = features.create_feature(LAYERS["taps"], geometry, SAMPLES["taps"][1], None)
                    created.append(fid)
                    clock[fid] = SAMPLES["taps"][1]["clock_position"]
                else:
                    fid = rng.choice(sorted(mine))
                    clock[fid] = rng.choice([p for p in (11.0, 11.5, 12.0, 0.5) if p != clock[fid]])
                    _, version = features.update_feature(LAYERS["taps"], fid, mine[fid], None,
                                                         {"clock_position": clock[fid]}, None)
                db.session.flush()
                time.sleep(rng.random() * 0.05)  # hold the transaction: commits interleave
                db.session.commit()
                mine[fid] = version
                time.sleep(rng.random() * 0.02)
            db.session.remove()
    except Exception as exc:  # reported by the test, not lost in a thread
        errors.append(exc)


def _puller(app, user_id: int, cursor: str, writing: threading.Event, seen: list, errors: list) -> None:
    from server.core.accounts.models import User
    from server.core.extensions import db
    from server.field import sync

    try:
        with app.app_context():
            while True:
                still_writing = writing.is_set()
                page = sync.pull(db.session.get(User, user_id), cursor, 7, 150)
                db.session.rollback()  # end the read transaction, as a request does
                cursor = page["cursor"]
                seen.extend((f["id"], f["properties"]["version"] if "version" in f["properties"] else f["version"])
                            for f in page["features"]["taps"])
                if not page["more"] and not still_writing:
                    break  # drained after the last writer finished
                time.sleep(0.01)
            db.session.remove()
    except Exception as exc:
        errors.append(exc)


@pytest.mark.slow
@pytest.mark.parametrize("kind", ENGINES)
def test_concurrent_writers_and_pullers_every_change_seen_exactly_once(kind, tmp_path):
    from sqlalchemy import select

    from server.core.accounts.models import User
    from server.core.accounts.service import create_user
    from server.core.extensions import db
    from server.field import sync
    from server.field.checklist_templates import load_templates
    from server.field.models import Assignment
    from server.network import features
    from server.network.layers import LAYERS
    from server.network.models import Tap
    from tests.support.features import SAMPLES

    app, drop = make_migrated_app(kind, tmp_path, TUS_STAGING_DIR=str(tmp_path / "tus"),
                                  BLOB_STORE={"backend": "local", "root": str(tmp_path / "blobs")})
    try:
        with app.app_context():
            user_id = create_user("field1", "inspector", "correct horse battery").id
            load_templates()
            parcel = features.create_feature(LAYERS["parcels"], *SAMPLES["parcels"], None)[1]
            db.session.add(Assignment(inspector_id=user_id, parcel_id=parcel, template_id="tap", status="open"))
            db.session.commit()
            # Each tablet has its snapshot before the writers start; from here on, changes only.
            page = sync.pull(db.session.get(User, user_id), None, 500, 150)
            while page["more"]:
                page = sync.pull(db.session.get(User, user_id), page["cursor"], 500, 150)
            cursor = page["cursor"]
            db.session.remove()

        writing, created, errors = threading.Event(), [], []
        writing.set()
        seen = [[] for _ in range(PULLERS)]
        pullers = [threading.Thread(target=_puller, args=(app, user_id, cursor, writing, seen[i], errors))
                   for i in range(PULLERS)]
        writers = [threading.Thread(target=_writer, args=(app, 315 + i, created, errors)) for i in range(WRITERS)]
        for t in pullers + writers:
            t.start()
        for t in writers:
            t.join(120)
        writing.clear()
        for t in pullers:
            t.join(120)
        assert not errors, errors

        with app.app_context():
            final = dict(db.session.execute(select(Tap.id, Tap.version)).all())
        assert set(created) == set(final) and len(created) >= WRITERS
        for got in seen:
            twice = [pair for pair, n in Counter(got).items() if n > 1]
            assert not twice, f"delivered more than once: {twice}"
            latest: dict[int, int] = {}
            for fid, version in got:
                latest[fid] = max(version, latest.get(fid, 0))
            assert latest == final  # every tap, at its last version: nothing skipped
        with app.app_context():
            db.session.remove()
            db.engine.dispose()
    finally:
        if drop:
            drop()


@pytest.mark.parametrize("kind", ENGINES)
def test_a_feature_changed_on_both_sides_of_a_page_boundary_comes_once(kind, tmp_path):
    from server.core.accounts.models import User
    from server.core.accounts.service import create_user
    from server.core.extensions import db
    from server.field import sync
    from server.field.checklist_templates import load_templates
    from server.field.models import Assignment
    from server.network import features
    from server.network.layers import LAYERS
    from tests.support.features import SAMPLES, point

    app, drop = make_migrated_app(kind, tmp_path, TUS_STAGING_DIR=str(tmp_path / "tus"),
                                  BLOB_STORE={"backend": "local", "root": str(tmp_path / "blobs")})
    try:
        with app.app_context():
            user = create_user("field1", "inspector", "correct horse battery")
            load_templates()
            parcel = features.create_feature(LAYERS["parcels"], *SAMPLES["parcels"], None)[1]
            db.session.add(Assignment(inspector_id=user.id, parcel_id=parcel, template_id="tap", status="open"))
            db.session.commit()
            cursor = sync.pull(user, None, 500, 150)["cursor"]
            taps = LAYERS["taps"]
            first = features.create_feature(taps, point(dx=0.0001), SAMPLES["taps"][1], None)[1]
            for i in range(7):
                features.create_feature(taps, point(dx=0.00012 + i * 0.00002), SAMPLES["taps"][1], None)
            features.update_feature(taps, first, 1, None, {"clock_position": 11.0}, None)
            db.session.commit()
            got = []
            more = True
            while more:
                page = sync.pull(db.session.get(User, user.id), cursor, 7, 150)
                cursor, more = page["cursor"], page["more"]
                got += [(f["id"], f["properties"].get("version", f.get("version"))) for f in page["features"]["taps"]]
            assert sorted(got) == sorted(set(got)) and len(got) == 8
            assert (first, 2) in got
            db.session.remove()
            db.engine.dispose()
    finally:
        if drop:
            drop()
