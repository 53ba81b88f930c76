"""Two tablets push passing reinspections that resolve the same violation at the same moment.

Both requests read the violation (cited by a delivered notice) while it is still open.
On PostgreSQL the second to write finds its version moved on; it is told to send the
record again (503 ``retry``), with nothing of it stored, and the resend is stored and
finds nothing left to resolve. SQLite's one writer queues the second push behind the
first, so both are stored at once. These tests need real commits seen by two threads,
so each has its own database.
"""

from __future__ import annotations

import threading

import pytest
from sqlalchemy import select

from tests.support.databases import ENGINES, PASSWORD, fresh_app
from tests.support.resolutions import CW, at, reinspection
from tests.support.survey import notice_for
from tests.support.sync import push, record, sump_pump, survey

PUSHERS = 2
# How long a push that has read the open violations waits for the other to read them
# too: on SQLite the other is queued behind its write lock and never comes.
RENDEZVOUS_S = 2.0
# Of the two simultaneous pushes, what each engine answers (sorted by code).
OUTCOMES = {"spatialite": [(201, "created"), (201, "created")],
            "postgis": [(201, "created"), (503, "retry")]}


@pytest.fixture(params=ENGINES)
def live_field_app(request, tmp_path):
    """(engine, app, bearer headers by role) on a database the threads really commit to."""
    from server.core.accounts.service import create_user, issue_token
    from server.core.extensions import db
    from server.field.checklist_templates import load_templates

    with fresh_app(request.param, tmp_path) as app:
        with app.app_context():
            users = {role: create_user(f"{role}1", role, PASSWORD) for role in ("inspector", "superintendent", "clerk")}
            auth = {role: {"Authorization": f"Bearer {issue_token(u, 't')[0]}"} for role, u in users.items()}
            load_templates()
            db.session.commit()
            db.session.remove()
        yield request.param, app, auth


@pytest.fixture
def noticed_pump(live_field_app) -> tuple[int, int, int]:
    """A sump pump found connected a month ago and its notice mailed and delivered:
    (parcel id, the open violation's id, the notice's id)."""
    from server.core.accounts.models import User
    from server.core.extensions import db
    from server.field.models import Assignment
    from server.network import features
    from server.network.layers import LAYERS
    from server.rules.models import Violation
    from tests.support.features import SAMPLES

    _, app, auth = live_field_app
    with app.app_context():
        geometry, props = SAMPLES["parcels"]
        _, parcel_id, _ = features.create_feature(LAYERS["parcels"], geometry, props, None)
        # Both tablets are inspector1's, who is assigned the parcel (their visits count).
        inspector = db.session.scalar(select(User.id).filter_by(username="inspector1"))
        db.session.add(Assignment(inspector_id=inspector, parcel_id=parcel_id, template_id="reinspection"))
        db.session.commit()
        db.session.remove()
    client = app.test_client()
    [found] = push(client, auth["inspector"], record(survey(parcel_id, [sump_pump()], **at(30))))
    assert found["result"] == "fail", found
    notice_id = notice_for(client, auth, parcel_id, mailed_days_ago=20, delivered_days_ago=18)
    with app.app_context():
        [violation_id] = db.session.scalars(select(Violation.id).filter_by(parcel_id=parcel_id, rule_id=CW,
                                                                            status="open")).all()
        db.session.remove()
    return parcel_id, violation_id, notice_id


@pytest.fixture
def both_read_first(monkeypatch):
    """Hold each push, once it has read the open violations, until the other has too."""
    from server.notices import compliance

    arrived, ready = [0], threading.Condition()
    original = compliance._open_violations

    def open_violations(parcel_id):
        rows = original(parcel_id)
        with ready:
            arrived[0] += 1
            ready.notify_all()
            ready.wait_for(lambda: arrived[0] >= PUSHERS, timeout=RENDEZVOUS_S)
        return rows

    monkeypatch.setattr(compliance, "_open_violations", open_violations)


def push_together(app, headers, records: list[dict]) -> list[tuple[dict, dict]]:
    """Push each record from its own thread and client at once; (record, result) pairs."""
    results, start = {}, threading.Barrier(len(records))

    def send(rec):
        client = app.test_client()
        start.wait()
        [results[rec["uuid"]]] = push(client, headers, rec)

    threads = [threading.Thread(target=send, args=(rec,)) for rec in records]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    return [(rec, results[rec["uuid"]]) for rec in records]


def test_the_second_of_two_simultaneous_resolutions_is_told_to_retry(live_field_app, noticed_pump, both_read_first):
    from server.core.audit.models import AuditEvent
    from server.core.extensions import db
    from server.field.models import Inspection, PushRecord
    from server.notices.models import Notice
    from server.rules.models import Violation

    kind, app, auth = live_field_app
    parcel_id, violation_id, notice_id = noticed_pump
    records = [record(reinspection(parcel_id, CW, days_ago=d)) for d in (3, 2)]
    pairs = push_together(app, auth["inspector"], records)
    assert sorted((r["status"], r["code"]) for _, r in pairs) == OUTCOMES[kind], pairs

    retried = [rec for rec, r in pairs if r["code"] == "retry"]
    with app.app_context():
        # The loser left nothing behind: no inspection, no push record, no audit.
        for rec in retried:
            assert db.session.scalars(select(Inspection).filter_by(uuid=rec["uuid"])).all() == []
            assert db.session.scalars(select(PushRecord).filter_by(uuid=rec["uuid"])).all() == []
            assert [e for e in db.session.scalars(select(AuditEvent).filter_by(subject_type="inspection"))
                    if (e.after or {}).get("uuid") == rec["uuid"]] == []
        db.session.remove()

    client = app.test_client()
    for rec in retried:
        [again] = push(client, auth["inspector"], rec)
        assert (again["status"], again["code"], again["result"]) == (201, "created", "pass"), again

    with app.app_context():
        stored = {i.uuid: i for i in db.session.scalars(select(Inspection).filter_by(template_id="reinspection"))}
        assert sorted(stored) == sorted(rec["uuid"] for rec in records)
        assert {i.result for i in stored.values()} == {"pass"}
        first, second = sorted(stored.values(), key=lambda i: i.id)
        violation = db.session.get(Violation, violation_id)
        # The first stored resolved it, once; the second found nothing left open.
        assert (violation.status, violation.resolved_by_inspection_id) == ("resolved", first.id)
        resolves = db.session.scalars(select(AuditEvent).filter_by(
            action="resolve", subject_type="violation", subject_id=violation_id)).all()
        assert [e.after["inspection"] for e in resolves] == [first.uuid]
        notice = db.session.get(Notice, notice_id)
        assert (notice.state, notice.complied_reason) == ("complied", f"resolved by inspection {first.id}")
        complies = db.session.scalars(select(AuditEvent).filter_by(
            action="comply", subject_type="notice", subject_id=notice_id)).all()
        assert len(complies) == 1
        uuids = first.uuid, second.uuid
        db.session.remove()
    resolved = [client.get(f"/api/v1/inspections/{u}", headers=auth["superintendent"]).get_json()
                ["resolved_violation_ids"] for u in uuids]
    assert resolved == [[violation_id], []]
