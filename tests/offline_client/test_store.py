"""The local store: drafts, outbox, photos and pulled data survive any interruption."""

from __future__ import annotations

import hashlib
import json

import pytest

from offline_client.store import Store, StoreError, canonical_json
from offline_client.sync import Backoff, _push_body

TEMPLATE = {"id": "tap", "version": 2, "title": "Tap inspection", "items": []}


class Clock:
    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def store_clock() -> Clock:
    return Clock()


@pytest.fixture
def store(tmp_path, store_clock):
    with Store(tmp_path / "profile", clock=store_clock) as s:
        s.apply_pull({"cursor": "c1", "reset": True, "more": False, "templates": [TEMPLATE],
                      "assignments": [], "features": {}, "tombstones": []})
        yield s


@pytest.fixture
def photo(tmp_path):
    path = tmp_path / "IMG_1.jpg"
    path.write_bytes(b"\xff\xd8not really a jpeg\xff\xd9")
    return path


def _finished(store, photo=None) -> str:
    record_uuid = store.start_inspection("tap", 42)
    store.answer(record_uuid, "permit_number", "T-1")
    if photo is not None:
        store.attach_photo(record_uuid, "tap_photo", photo)
    store.finish(record_uuid)
    return record_uuid


def test_finish_moves_the_draft_into_the_outbox_as_canonical_json(store, photo):
    record_uuid = _finished(store, photo)
    record = store.record(record_uuid)
    data = json.loads(record["body"])
    assert record["state"] == "queued"
    assert record["body"] == canonical_json(data)
    assert data["template_version"] == 2
    assert data["answers"]["tap_photo"] == [data["photos"][0]["sha256"]]
    assert store.drafts() == []


def test_a_finished_inspection_cannot_change(store):
    record_uuid = _finished(store)
    with pytest.raises(StoreError):
        store.answer(record_uuid, "permit_number", "T-2")


def test_a_photo_is_copied_into_the_profile_by_digest(store, photo):
    record_uuid = store.start_inspection("tap", 42)
    sha256 = store.attach_photo(record_uuid, "tap_photo", photo)
    original = photo.read_bytes()
    photo.unlink()  # the camera roll is cleaned
    kept = store.photos()[0]
    assert sha256 == hashlib.sha256(original).hexdigest()
    assert open(kept["path"], "rb").read() == original


def test_a_photo_in_a_group_needs_the_group_answered_first(store, photo):
    record_uuid = store.start_inspection("tap", 42)
    with pytest.raises(StoreError, match="answer the group"):
        store.attach_photo(record_uuid, "sources.photo", photo)
    assert list(store.photo_dir.iterdir()) == []


def test_a_photo_in_a_group_is_named_in_the_latest_entry(store, photo):
    record_uuid = store.start_inspection("tap", 42)
    store.answer(record_uuid, "sources", [{"source": "sump_pump"}, {"source": "downspout"}])
    sha256 = store.attach_photo(record_uuid, "sources.photo", photo)
    assert store.draft(record_uuid)["answers"]["sources"][1]["photo"] == [sha256]


def test_a_record_marked_sent_is_sent_again_after_a_restart(tmp_path, store, store_clock):
    record_uuid = _finished(store)
    store.mark_sent([record_uuid])
    store.close()
    with Store(store.dir, clock=store_clock) as reopened:
        assert [r.uuid for r in reopened.due_records(10)] == [record_uuid]


@pytest.mark.parametrize("status,code", [(201, "created"), (200, "duplicate")])
def test_200_and_201_acknowledge_and_settle_photos_the_server_has(store, photo, status, code):
    record_uuid = _finished(store, photo)
    store.settle({"uuid": record_uuid, "status": status, "code": code, "server_id": 7, "missing_photos": []})
    assert store.record(record_uuid)["state"] == "acknowledged"
    assert store.status()["photos_pending"] == 0


def test_missing_photos_stay_pending_and_become_due(store, photo):
    record_uuid = _finished(store, photo)
    assert store.due_photos() == []  # not before the server knows the record
    sha256 = store.photos()[0]["sha256"]
    store.settle({"uuid": record_uuid, "status": 201, "code": "created", "missing_photos": [sha256]})
    assert [p.sha256 for p in store.due_photos()] == [sha256]
    status = store.status()
    assert (status["photo_bytes_pending"], status["awaiting_photos"]) == (photo.stat().st_size, 1)


@pytest.mark.parametrize("status,code", [(409, "uuid_reused"), (422, "invalid"), (403, "forbidden")])
def test_terminal_answers_reject_and_keep_the_reason(store, status, code):
    record_uuid = _finished(store)
    store.settle({"uuid": record_uuid, "status": status, "code": code, "message": "because"})
    assert store.due_records(10, now=float("inf")) == []
    assert store.status()["problems"] == [
        {"uuid": record_uuid, "kind": "inspection", "status": status, "reason": f"{code}: because"}
    ]


def test_a_stale_feature_edit_is_sent_and_shown_as_a_conflict(store):
    record_uuid = store.enqueue("feature_edit", {"layer": "taps", "id": 3, "base_version": 1,
                                                 "properties": {"clock_position": 2}})
    store.settle({"uuid": record_uuid, "status": 409, "code": "stale_version", "message": "now v4"})
    status = store.status()
    assert store.record(record_uuid)["state"] == "acknowledged"
    assert status["conflicts"] == [{"uuid": record_uuid, "kind": "feature_edit", "reason": "stale_version: now v4"}]


def test_an_edit_outside_ones_assignments_is_shown_as_a_conflict(store):
    record_uuid = store.enqueue("feature_edit", {"layer": "laterals", "id": 5, "base_version": 1,
                                                 "properties": {"backflow_valve": True}})
    store.settle({"uuid": record_uuid, "status": 202, "code": "proposed", "message": "held as proposal 1"})
    assert store.record(record_uuid)["state"] == "acknowledged"
    assert store.status()["conflicts"] == [{"uuid": record_uuid, "kind": "feature_edit",
                                            "reason": "proposed: held as proposal 1"}]


def test_a_failed_batch_waits_for_its_back_off(store, store_clock):
    record_uuid = _finished(store)
    store.mark_sent([record_uuid])
    store.retry_later([record_uuid], "network: reset", lambda attempts: 8.0 * attempts)
    assert store.due_records(10) == []
    store_clock.now += 8.0
    assert [r.uuid for r in store.due_records(10)] == [record_uuid]
    assert store.status()["retrying"][0]["error"] == "network: reset"


def test_an_interrupted_transaction_leaves_nothing(store):
    record_uuid = store.start_inspection("tap", 42)
    with pytest.raises(RuntimeError), store.transaction() as tx:
        tx.execute("DELETE FROM drafts")
        raise RuntimeError("killed")
    assert store.draft(record_uuid)["parcel_id"] == 42


def test_a_reset_pull_replaces_features_and_tombstones_delete(store):
    store.apply_pull({"cursor": "c2", "reset": False, "more": False,
                      "features": {"taps": [{"id": 1}, {"id": 2}]}, "tombstones": []})
    store.apply_pull({"cursor": "c3", "reset": False, "more": False,
                      "features": {"taps": [{"id": 3}]}, "tombstones": [{"layer": "taps", "id": 1}]})
    assert [f["id"] for f in store.features("taps")] == [2, 3]
    store.apply_pull({"cursor": "c4", "reset": True, "more": True,
                      "features": {"taps": [{"id": 9}]}, "tombstones": []})
    store.apply_pull({"cursor": "c5", "reset": True, "more": False,
                      "features": {"taps": [{"id": 10}]}, "tombstones": []})  # same snapshot, page 2
    assert sorted(f["id"] for f in store.features("taps")) == [9, 10]
    assert store.get("cursor") == "c5"


def test_templates_and_assignments_are_replaced_on_every_page(store):
    store.apply_pull({"cursor": "c2", "more": False, "templates": [],
                      "assignments": [{"id": 5, "parcel_id": 42}]})
    assert store.templates() == []
    assert store.assignments() == [{"id": 5, "parcel_id": 42}]


@pytest.mark.parametrize("attempts", range(1, 12))
def test_back_off_doubles_up_to_its_cap_with_jitter(attempts):
    low = Backoff(base=2, cap=300, rng=lambda: 0.0).delay(attempts)
    high = Backoff(base=2, cap=300, rng=lambda: 1.0).delay(attempts)
    assert high == min(300, 2 * 2 ** (attempts - 1))
    assert low == high / 2


def test_the_push_body_carries_each_record_byte_for_byte(store):
    record_uuid = store.enqueue("feature_edit", {"layer": "taps", "id": 3, "base_version": 1,
                                                 "properties": {"depth_ft": 1.0, "note": "café"}})
    body = _push_body(store.due_records(10))
    assert store.record(record_uuid)["body"].encode() in body
    assert json.loads(body)["records"][0]["data"]["properties"]["depth_ft"] == 1.0


def test_only_an_uploads_progress_commits_without_waiting_for_the_disk(store, photo):
    """The inspector's work is synced to disk on every commit; an upload's URL and offset,
    which the server can tell again, are not (a power cut costs a resend)."""
    statements = []
    store._db.set_trace_callback(statements.append)
    record_uuid = _finished(store, photo)
    assert not any("synchronous=NORMAL" in s for s in statements)
    store.settle({"uuid": record_uuid, "status": 201, "code": "created",
                  "missing_photos": [store.photos()[0]["sha256"]]})
    statements.clear()
    due = store.due_photos()[0]
    store.set_upload_url(due, "http://h/api/v1/uploads/" + "a" * 32)
    store.set_offset(due, 3)
    store.photo_uploaded(due)
    relaxed = [s for s in statements if s.startswith("PRAGMA synchronous")]
    assert relaxed == ["PRAGMA synchronous=NORMAL", "PRAGMA synchronous=FULL"] * 3
    assert store._db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL again
    assert store.photos()[0]["state"] == "uploaded"
