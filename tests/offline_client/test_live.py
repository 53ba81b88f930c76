"""The field client against a real server on each engine: the CLI end to end, resends,
terminal answers and a photo upload resumed from the server's offset."""

from __future__ import annotations

import io
import json

import pytest

from offline_client import cli
from offline_client.http import AuthRequired
from offline_client.store import Store
from offline_client.sync import Sync
from tests.support.databases import PASSWORD
from tests.support.field_client import (
    FAST,
    TAP_ANSWERS,
    assert_exactly_once,
    photos_for,
    record_inspection,
    server_state,
    sha256_file,
)


def _cli(monkeypatch, capsys, profile, *argv, stdin: str = "") -> tuple[int, str]:
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    code = cli.main(["--profile", str(profile), *argv])
    return code, capsys.readouterr().out


def test_the_command_line_records_and_syncs_an_inspection(live, real_photos, monkeypatch, capsys, tmp_path):
    profile = tmp_path / "cli-profile"
    photo = photos_for(real_photos, tmp_path / "cam", "cli", 1)[0]
    assert _cli(monkeypatch, capsys, profile, "login", live.url, "inspector1", stdin=PASSWORD + "\n")[0] == 0
    assert _cli(monkeypatch, capsys, profile, "pull")[0] == 0
    assert "tap\tv3" in _cli(monkeypatch, capsys, profile, "templates")[1]
    code, out = _cli(monkeypatch, capsys, profile, "start", "tap", str(live.parcel_id),
                     "--lon", "-91.5009", "--lat", "44.2531")
    record_uuid = out.strip()
    for item, value in TAP_ANSWERS.items():
        _cli(monkeypatch, capsys, profile, "answer", record_uuid, item, json.dumps(value))
    sha256 = _cli(monkeypatch, capsys, profile, "photo", record_uuid, "tap_photo", str(photo))[1].strip()
    _cli(monkeypatch, capsys, profile, "finish", record_uuid)
    code, out = _cli(monkeypatch, capsys, profile, "sync")
    assert code == 0, out
    status = json.loads(_cli(monkeypatch, capsys, profile, "status", "--json")[1])
    assert (status["queued"], status["photos_pending"], status["acknowledged"]) == (0, 0, 1)
    assert status["last_sync"] is not None
    assert_exactly_once(live.app, live.blob_root, {record_uuid: [sha256]})


def test_a_resend_after_a_lost_answer_is_stored_once(live, real_photos, tmp_path):
    store = live.profile(tmp_path / "tablet")
    record_uuid = record_inspection(store, live.parcel_id, photos_for(real_photos, tmp_path / "p", "re", 1))
    Sync(store, backoff=FAST).push()
    store._db.execute("UPDATE outbox SET state = 'sent'")  # as if the answer never came
    report = Sync(store, backoff=FAST).push()
    assert report.acknowledged == 1
    assert store.record(record_uuid)["code"] == "created"  # the first push's outcome
    assert server_state(live.app)["inspections"].count(record_uuid) == 1


def test_a_reused_uuid_is_rejected_and_the_reason_kept(live, tmp_path):
    store = live.profile(tmp_path / "tablet")
    first = record_inspection(store, live.parcel_id, [])
    Sync(store, backoff=FAST).push()
    data = json.loads(store.record(first)["body"])
    data["answers"]["notes"] = "changed after sending"
    other = live.profile(tmp_path / "other")
    other.enqueue("inspection", data, record_uuid=first)
    report = Sync(other, backoff=FAST).push()
    assert report.rejected == 1
    problem = other.status()["problems"][0]
    assert problem["status"] == 409 and problem["reason"].startswith("uuid_reused")


def test_an_invalid_inspection_is_rejected_with_the_server_reason(live, tmp_path):
    store = live.profile(tmp_path / "tablet")
    record_uuid = store.start_inspection("tap", live.parcel_id, {"type": "Point", "coordinates": [-91.5, 44.25]})
    store.answer(record_uuid, "clock_position", 99)  # beyond the item's max
    store.finish(record_uuid)
    report = Sync(store, backoff=FAST).push()
    assert (report.acknowledged, report.rejected) == (0, 1)
    assert store.status()["problems"][0]["status"] == 422
    assert record_uuid not in server_state(live.app)["inspections"]


def test_an_interrupted_upload_resumes_from_the_server_offset(live, real_photos, tmp_path):
    store = live.profile(tmp_path / "tablet")
    photo = photos_for(real_photos, tmp_path / "p", "resume", 1)[0]
    record_uuid = record_inspection(store, live.parcel_id, [photo])
    sync = Sync(store, backoff=FAST, chunk_size=32 * 1024)
    sync.push()
    uploader = sync._uploader(store.due_photos()[0])  # one POST: creates it with the first chunk
    uploader.upload_chunk()
    uploader.upload_chunk()
    url = store.photos()[0]["upload_url"]
    assert url and uploader.offset == 96 * 1024
    store.close()  # the process dies here

    reopened = Store(tmp_path / "tablet")  # a new process opens the same folder
    resumed = Sync(reopened, backoff=FAST)
    assert resumed._uploader(reopened.due_photos()[0]).offset == 96 * 1024
    assert reopened.status()["photo_bytes_pending"] == photo.stat().st_size - 96 * 1024
    report = resumed.upload_photos()
    assert report.photos_uploaded == 1
    assert reopened.photos()[0]["upload_url"] == url  # the same upload, not a second one
    assert_exactly_once(live.app, live.blob_root, {record_uuid: [sha256_file(photo)]})


def test_a_photo_the_server_already_holds_is_not_sent_again(live, real_photos, tmp_path):
    photo = photos_for(real_photos, tmp_path / "p", "dup", 1)[0]
    first, second = live.profile(tmp_path / "a"), live.profile(tmp_path / "b")
    one = record_inspection(first, live.parcel_id, [photo])
    Sync(first, backoff=FAST).sync()
    two = record_inspection(second, live.parcel_id, [photo])
    report = Sync(second, backoff=FAST).sync()
    assert report.clean and second.status()["photos_pending"] == 0
    assert second.photos()[0]["upload_url"] is None  # never uploaded: the server had it
    assert_exactly_once(live.app, live.blob_root, {one: [sha256_file(photo)], two: [sha256_file(photo)]})


def test_a_corrupt_cursor_starts_a_fresh_snapshot(live, tmp_path):
    store = live.profile(tmp_path / "tablet")
    store.set(cursor="not-a-cursor")
    Sync(store, backoff=FAST).pull()
    assert store.get("cursor") not in (None, "not-a-cursor")
    assert [t["id"] for t in store.templates()].count("tap") == 1


def test_a_revoked_token_asks_for_a_new_login_and_keeps_the_queue(live, tmp_path):
    store = live.profile(tmp_path / "tablet")
    record_uuid = record_inspection(store, live.parcel_id, [])
    store.set(token="lat_revoked-or-never-issued")
    with pytest.raises(AuthRequired):
        Sync(store, backoff=FAST).push()
    assert store.due_records(10, now=float("inf"))[0].uuid == record_uuid


def test_an_upload_whose_creation_never_arrived_is_named_again(live, real_photos, tmp_path):
    """The URL is stored before the POST; if the POST never reached the server, HEAD says
    404 and the photo goes up under a new name, once."""
    store = live.profile(tmp_path / "tablet")
    photo = photos_for(real_photos, tmp_path / "p", "lost-post", 1)[0]
    record_uuid = record_inspection(store, live.parcel_id, [photo])
    sync = Sync(store, backoff=FAST)
    sync.push()
    lost = f"{sync.api.url('uploads')}/{'0' * 32}"
    store.set_upload_url(store.due_photos()[0], lost)  # as a process killed before its POST left
    assert sync.upload_photos().photos_uploaded == 1
    url = store.photos()[0]["upload_url"]
    assert url != lost and url.startswith(sync.api.url("uploads") + "/")
    assert_exactly_once(live.app, live.blob_root, {record_uuid: [sha256_file(photo)]})


def test_a_photo_goes_up_in_one_request_under_the_name_the_client_chose(live, real_photos, tmp_path):
    store = live.profile(tmp_path / "tablet")
    photo = photos_for(real_photos, tmp_path / "p", "one-post", 1)[0]
    record_inspection(store, live.parcel_id, [photo])
    sync = Sync(store, backoff=FAST)
    sync.push()
    sent = []
    sync.api.session.hooks["response"].append(lambda r, *a, **k: sent.append(f"{r.request.method} {r.url}"))
    assert sync.upload_photos().photos_uploaded == 1
    url = store.photos()[0]["upload_url"]
    assert sent == [f"POST {sync.api.url('uploads')}"]  # no HEAD, no PATCH
    assert len(url.rsplit("/", 1)[1]) == 32
