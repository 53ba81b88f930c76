"""SpatiaLite under contention: writers take turns first come first served, across the
threads of a process and the processes of a host, and no client ever reads "database is
locked" (issue 18, item 5)."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
import uuid

import pytest
import requests

from server.core.dialects import _WriterQueue
from server.core.errors import LateralError, status_of
from tests.support.databases import make_migrated_app
from tests.support.live_server import LiveServer
from tests.support.sync import location


def test_threads_are_served_in_the_order_they_asked(tmp_path):
    queue = _WriterQueue(str(tmp_path / "city.sqlite"))
    order: list[str] = []
    first_in = threading.Event()
    release = threading.Event()

    def first():
        with queue.turn(10):
            first_in.set()
            release.wait(10)
            order.append("first")

    def later(name):
        with queue.turn(10):
            order.append(name)

    threads = [threading.Thread(target=first)]
    threads[0].start()
    assert first_in.wait(10)
    for name in ("second", "third", "fourth"):
        t = threading.Thread(target=later, args=(name,))
        t.start()
        threads.append(t)
        time.sleep(0.05)  # each takes its ticket before the next asks
    release.set()
    for t in threads:
        t.join(10)
    assert order == ["first", "second", "third", "fourth"]


def test_a_write_inside_a_write_is_the_same_turn(tmp_path):
    queue = _WriterQueue(str(tmp_path / "city.sqlite"))
    entered = []
    with queue.turn(1), queue.turn(1):
        entered.append("nested")
    with queue.turn(1):  # and the queue still moves
        entered.append("next")
    assert entered == ["nested", "next"]


def test_a_writer_that_waits_too_long_gets_a_503_and_the_queue_moves_on(tmp_path):
    queue = _WriterQueue(str(tmp_path / "city.sqlite"))
    holding, release = threading.Event(), threading.Event()

    def hold():
        with queue.turn(10):
            holding.set()
            release.wait(10)

    t = threading.Thread(target=hold)
    t.start()
    assert holding.wait(10)
    with pytest.raises(LateralError) as refused:
        with queue.turn(0.1):
            pass
    assert status_of(refused.value.code) == 503 and refused.value.code == "database_busy"
    assert refused.value.headers["Retry-After"].isdigit()
    release.set()
    t.join(10)
    with queue.turn(1):  # the abandoned ticket is skipped, not waited for
        pass


HOLDER = """
import sys, time
from server.core.dialects import _WriterQueue
queue = _WriterQueue(sys.argv[1])
with queue.turn(10):
    print(time.time(), flush=True)
    time.sleep(0.6)
    print(time.time(), flush=True)
"""


def test_processes_of_one_host_take_turns_too(tmp_path):
    database = str(tmp_path / "city.sqlite")
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, database], stdout=subprocess.PIPE, text=True,
                              cwd=str(__import__("pathlib").Path(__file__).resolve().parents[2]))
    began = float(holder.stdout.readline())
    queue = _WriterQueue(database)
    with queue.turn(10):
        mine = time.time()
    ended = float(holder.stdout.readline())
    holder.wait(10)
    assert began < ended <= mine + 0.01  # this process got its turn only after the other's ended


@pytest.mark.slow
def test_many_tablets_pushing_to_one_parcel_never_see_database_is_locked(tmp_path):
    from server.core.accounts.service import create_user, issue_token
    from server.core.extensions import db
    from server.field.checklist_templates import load_templates
    from server.field.models import Assignment
    from server.network import features
    from server.network.layers import LAYERS
    from tests.support.features import SAMPLES

    app, _ = make_migrated_app("spatialite", tmp_path, TUS_STAGING_DIR=str(tmp_path / "tus"),
                               BLOB_STORE={"backend": "local", "root": str(tmp_path / "blobs")})
    tablets = 24
    with app.app_context():
        load_templates()
        parcel_id = features.create_feature(LAYERS["parcels"], *SAMPLES["parcels"], None)[1]
        tokens = []
        for i in range(tablets):
            user = create_user(f"tablet{i}", "inspector", "correct horse battery")
            db.session.add(Assignment(inspector_id=user.id, parcel_id=parcel_id, template_id="clear-water-survey",
                                      status="open"))
            tokens.append(issue_token(user, "tablet")[0])
        db.session.commit()
    answers: list = []

    def tablet(token):
        for _ in range(3):
            record = {"uuid": str(uuid.uuid4()), "kind": "inspection", "data": {
                "template_id": "clear-water-survey", "template_version": 1, "parcel_id": parcel_id,
                "location": location(), "started_at": "2026-11-30T09:00:00-06:00",
                "finished_at": "2026-11-30T09:10:00-06:00", "answers": {"access": "granted", "sources": []},
                "photos": []}}
            r = requests.post(f"{server.url}/api/v1/sync/push", json={"records": [record]},
                              headers={"Authorization": f"Bearer {token}"}, timeout=120)
            answers.append((r.status_code, r.text))

    with LiveServer(app) as server:
        threads = [threading.Thread(target=tablet, args=(t,)) for t in tokens]
        for t in threads:
            t.start()
        for t in threads:
            t.join(180)
    assert len(answers) == tablets * 3
    assert not [a for a in answers if "locked" in a[1]]
    assert {status for status, _ in answers} == {200}
    assert all('"status":201' in text.replace(" ", "") for _, text in answers)
    with app.app_context():
        db.session.remove()
        db.engine.dispose()
