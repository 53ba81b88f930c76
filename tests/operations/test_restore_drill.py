"""The restore drill: a city with synced inspections, photos and mailed letters is backed
up, wiped, restored and checked byte for byte, on both databases.
"""

from __future__ import annotations

import hashlib
import io
import json
import shutil
import uuid as uuid_module

import pytest
import requests
from PIL import Image
from sqlalchemy import select
from tusclient import client as tus_client

from server.core.extensions import db
from tests.support.databases import ENGINES, PASSWORD, make_migrated_app, postgis_database
from tests.support.live_server import LiveServer
from tests.support.sync import location


def _jpeg(seed: int) -> bytes:
    image = Image.new("RGB", (640, 480), (seed * 40 % 256, 90, 160))
    out = io.BytesIO()
    image.save(out, "JPEG", quality=85)
    return out.getvalue()


class City:
    """A committed city on ``kind`` with one synced survey (two photos) and mailed letters."""

    def __init__(self, kind, tmp_path):
        self.kind, self.tmp = kind, tmp_path
        self.blob_config = {"backend": "local", "root": str(tmp_path / "blobs")}
        self.app, self.drop = make_migrated_app(kind, tmp_path, BLOB_STORE=self.blob_config,
                                                TUS_STAGING_DIR=str(tmp_path / "tus"))
        self.url = self.app.config["SQLALCHEMY_DATABASE_URI"]

    def build(self) -> None:
        from server.core.accounts.service import create_user, issue_token
        from server.demo import seed as demo
        from server.field.checklist_templates import load_templates

        with self.app.app_context():
            demo.seed(parcels=200, with_users=False)
            load_templates()
            self.tokens = {
                role: {"Authorization": f"Bearer {issue_token(create_user(f'{role}1', role, PASSWORD), 't')[0]}"}
                for role in ("inspector", "superintendent", "clerk")}
            from server.network.models import Parcel

            self.parcel_id = db.session.scalars(select(Parcel.id).where(Parcel.mailing_street.is_not(None))
                                                .order_by(Parcel.id)).first()
            db.session.commit()
        with LiveServer(self.app) as server:
            digests = [self._upload(server.url, _jpeg(i)) for i in range(2)]
            self._push_survey(server.url, digests)
            self._draft_approve_mail(server.url)

    def _upload(self, base: str, data: bytes) -> str:
        path = self.tmp / f"{hashlib.sha256(data).hexdigest()[:8]}.jpg"
        path.write_bytes(data)
        client = tus_client.TusClient(f"{base}/api/v1/uploads", headers=self.tokens["inspector"])
        client.uploader(str(path), chunk_size=1 << 20, metadata={"filename": path.name}).upload()
        return hashlib.sha256(data).hexdigest()

    def _push_survey(self, base: str, digests: list[str]) -> None:
        sources = [{"source": "sump_pump", "discharges_to": "sanitary_sewer", "connected_to_sanitary": "yes",
                    "test": "dye", "test_result": "positive", "photo": digests}]
        data = {"template_id": "clear-water-survey", "template_version": 1, "parcel_id": self.parcel_id,
                "location": location(), "started_at": "2026-11-30T09:00:00-06:00",
                "finished_at": "2026-11-30T09:20:00-06:00", "answers": {"access": "granted", "sources": sources},
                "photos": [{"sha256": d, "item_id": "sources.photo", "filename": f"{d[:6]}.jpg"} for d in digests]}
        body = {"records": [{"uuid": str(uuid_module.uuid4()), "kind": "inspection", "data": data}]}
        r = requests.post(f"{base}/api/v1/sync/push", json=body, headers=self.tokens["inspector"], timeout=60)
        assert r.status_code == 200 and r.json()["results"][0]["status"] == 201, r.text

    def _draft_approve_mail(self, base: str) -> None:
        r = requests.post(f"{base}/api/v1/notices/draft", json={}, headers=self.tokens["superintendent"], timeout=60)
        assert r.status_code == 201, r.text
        ids = [n["id"] for n in r.json() if n["state"] == "draft"]
        assert ids, r.json()
        for notice_id in ids:
            r = requests.post(f"{base}/api/v1/notices/{notice_id}/approve", json={},
                              headers=self.tokens["superintendent"], timeout=60)
            assert r.status_code == 200, r.text
        r = requests.post(f"{base}/api/v1/mailings", json={"notice_ids": ids}, headers=self.tokens["clerk"],
                          timeout=120)
        assert r.status_code == 201, r.text
        r = requests.post(f"{base}/api/v1/mailings/{r.json()['id']}/record", json={"count": len(ids)},
                          headers=self.tokens["clerk"], timeout=120)
        assert r.status_code == 200, r.text

    def close(self) -> None:
        with self.app.app_context():
            db.session.remove()
            db.engine.dispose()
        if self.drop:
            self.drop()


@pytest.fixture(params=ENGINES)
def drill_city(request, tmp_path):
    city = City(request.param, tmp_path)
    try:
        city.build()
        yield city
    finally:
        city.close()


def _describe(app) -> dict:
    from server.operations.backups import describe_instance

    with app.app_context():
        return describe_instance(db.session.connection())


def _wiped_instance(city):
    """A second, empty instance for the restore: a new database and an empty blob folder."""
    from server import create_app

    fresh_blobs = city.tmp / "restored-blobs"
    if city.kind == "spatialite":
        url, drop = f"sqlite:///{city.tmp / 'restored.sqlite'}", None
    else:
        url, drop = postgis_database()
    app = create_app({"SQLALCHEMY_DATABASE_URI": url, "TESTING": True, "SECRET_KEY": "test",
                      "BLOB_STORE": {"backend": "local", "root": str(fresh_blobs)},
                      "TUS_STAGING_DIR": str(city.tmp / "tus2")})
    return app, drop, fresh_blobs


@pytest.mark.slow
def test_backup_wipe_restore_verify_byte_for_byte(drill_city):
    before = _describe(drill_city.app)
    assert len(before["photos"]) == 2 and before["letters"] and before["row_counts"]["inspections"] == 1
    dest = drill_city.tmp / "backups"
    result = drill_city.app.test_cli_runner().invoke(args=["backup", str(dest)])
    assert result.exit_code == 0, result.output
    folder = dest / (dest / "LATEST").read_text().strip()
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["photos"] == before["photos"] and manifest["letters"] == before["letters"]
    assert manifest["row_counts"] == before["row_counts"]

    # The old instance is gone: its database and its photos.
    shutil.rmtree(drill_city.tmp / "blobs")
    app, drop, fresh_blobs = _wiped_instance(drill_city)
    try:
        result = app.test_cli_runner().invoke(args=["restore", str(dest)])
        assert result.exit_code == 0, result.output
        after = _describe(app)
        assert after == {**before, "row_counts": before["row_counts"]}
        for sha in before["photos"]:
            stored = fresh_blobs / "blobs" / sha[:2] / sha[2:4] / sha
            assert hashlib.sha256(stored.read_bytes()).hexdigest() == sha
        with app.app_context():
            from server.notices.models import Notice

            for notice_id, sha in before["letters"].items():
                pdf = db.session.get(Notice, int(notice_id)).letter_pdf
                assert hashlib.sha256(pdf).hexdigest() == sha
        result = app.test_cli_runner().invoke(args=["verify"])
        assert result.exit_code == 0, result.output
        # Restoring again over the restored data is refused: restore only builds empty instances.
        again = app.test_cli_runner().invoke(args=["restore", str(dest)])
        assert again.exit_code != 0 and "empty" in again.output
    finally:
        with app.app_context():
            db.session.remove()
            db.engine.dispose()
        if drop:
            drop()


@pytest.mark.slow
def test_a_nightly_backup_copies_only_new_blobs(drill_city):
    dest = drill_city.tmp / "backups"
    runner = drill_city.app.test_cli_runner()
    first = runner.invoke(args=["backup", str(dest)])
    assert first.exit_code == 0 and "2 of 2 blobs copied" in first.output, first.output
    second = runner.invoke(args=["backup", str(dest)])
    assert second.exit_code == 0 and "0 of 2 blobs copied" in second.output, second.output
    assert len([p for p in dest.iterdir() if p.is_dir() and p.name != "blobs"]) == 2
    from server.core import jobs

    with drill_city.app.app_context():
        assert jobs.last_run(jobs.BACKUP) is not None  # what `doctor` reads


@pytest.mark.slow
def test_verify_names_a_missing_blob_a_damaged_blob_and_a_tampered_letter(drill_city):
    from sqlalchemy import text

    from server.core.dialects import drop_write_once_trigger

    sha_missing, sha_damaged = sorted(_describe(drill_city.app)["photos"])
    root = drill_city.tmp / "blobs" / "blobs"
    (root / sha_missing[:2] / sha_missing[2:4] / sha_missing).unlink()
    (root / sha_damaged[:2] / sha_damaged[2:4] / sha_damaged).write_bytes(b"not the photo")
    with drill_city.app.app_context():
        # Behind the app's back: the write-once trigger is dropped, as an intruder would.
        for ddl in drop_write_once_trigger(db.session.connection(), "notices", "mailed_on"):
            db.session.execute(text(ddl))
        notice_id = db.session.execute(text("SELECT min(id) FROM notices WHERE letter_sha256 IS NOT NULL")).scalar()
        db.session.execute(text("UPDATE notices SET letter_sha256 = :s WHERE id = :i"), {"s": "0" * 64, "i": notice_id})
        db.session.commit()
    result = drill_city.app.test_cli_runner().invoke(args=["verify"])
    assert result.exit_code == 1
    assert f"no blob is stored for {sha_missing}" in result.output
    assert f"not to its name {sha_damaged}" in result.output
    assert f"notice {notice_id}: the stored letter does not hash" in result.output
    assert f"notice {notice_id}: the audit trail never recorded" in result.output
