"""Photos over tus into a real app: linked to their inspection, stored once, refused cleanly.

These tests need real commits (a live server in a thread), so each builds its own
migrated database with ``make_migrated_app``.
"""

from __future__ import annotations

import hashlib
import uuid as uuid_module
from pathlib import Path

import pytest
import requests
from sqlalchemy import func, select
from tusclient import client as tus_client
from tusclient.exceptions import TusCommunicationError

from server.core.audit import trail as audit
from server.core.storage import make_blob_store
from tests.support.databases import ENGINES, make_migrated_app
from tests.support.env import need_shared
from tests.support.live_server import LiveServer
from tests.support.storage import s3_config
from tests.support.sync import location

PHOTO = "es__jpg_gps_DSCN0010.jpg"  # Nikon with GPS, 160 kB
HEIC = "es__heic_samplefilehub.heif"
TRUNCATED_HEIF = "et__QuickTime.heic"


class Field:
    """A live Lateral app with one inspector, the checklists and a parcel."""

    def __init__(self, app, drop, server: LiveServer, token: str, parcel_id: int):
        self.app, self.drop, self.server = app, drop, server
        self.headers = {"Authorization": f"Bearer {token}"}
        self.parcel_id = parcel_id

    def url(self, path: str) -> str:
        return f"{self.server.url}{path}"

    def upload(self, path: Path, **metadata) -> None:
        client = tus_client.TusClient(self.url("/api/v1/uploads"), headers=self.headers)
        client.uploader(str(path), chunk_size=64 * 1024, metadata={"filename": path.name, **metadata}).upload()

    def push_survey(self, digest: str) -> dict:
        entry = {"source": "sump_pump", "discharges_to": "ground_surface", "connected_to_sanitary": "no",
                 "test": "visual", "test_result": "not_tested", "photo": [digest]}
        data = {"template_id": "clear-water-survey", "template_version": 1, "parcel_id": self.parcel_id,
                "location": location(), "started_at": "2026-11-30T09:00:00-06:00",
                "finished_at": "2026-11-30T09:20:00-06:00",
                "answers": {"access": "granted", "sources": [entry]},
                "photos": [{"sha256": digest, "item_id": "sources.photo", "filename": "sump.jpg"}]}
        uuid = str(uuid_module.uuid4())
        response = requests.post(self.url("/api/v1/sync/push"), headers=self.headers, timeout=30,
                                 json={"records": [{"uuid": uuid, "kind": "inspection", "data": data}]})
        return {"uuid": uuid, **response.json()["results"][0]}

    def inspection(self, uuid: str) -> dict:
        return requests.get(self.url(f"/api/v1/inspections/{uuid}"), headers=self.headers, timeout=30).json()

    def photo_rows(self) -> int:
        from server.core.extensions import db
        from server.field.models import Photo

        with self.app.app_context():
            return db.session.scalar(select(func.count()).select_from(Photo))


def _field(kind: str, tmp_path: Path, blob_store: dict):
    from server.core.accounts.service import create_user, issue_token
    from server.core.extensions import db
    from server.field.checklist_templates import load_templates
    from server.network import features
    from server.network.layers import LAYERS
    from tests.support.features import SAMPLES

    app, drop = make_migrated_app(kind, tmp_path, BLOB_STORE=blob_store,
                                  TUS_STAGING_DIR=str(tmp_path / "staging"))
    with app.app_context():
        user = create_user("field1", "inspector", "correct horse battery", "Field Inspector")
        token = issue_token(user, "tablet")[0]
        load_templates()
        geometry, props = SAMPLES["parcels"]
        _, parcel_id, _ = features.create_feature(LAYERS["parcels"], geometry, props, None)
        db.session.commit()
    return app, drop, token, parcel_id


@pytest.fixture(params=ENGINES)
def field(request, tmp_path):
    app, drop, token, parcel_id = _field(request.param, tmp_path,
                                         {"backend": "local", "root": str(tmp_path / "blobs")})
    try:
        with LiveServer(app) as server:
            yield Field(app, drop, server, token, parcel_id)
    finally:
        with app.app_context():
            from server.core.extensions import db

            db.session.remove()
            db.engine.dispose()
        if drop:
            drop()


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.realdata
def test_photo_pushed_before_upload_is_linked_when_it_arrives(field):
    path = need_shared("realdata", "photos", PHOTO)
    digest = sha256(path)
    pushed = field.push_survey(digest)
    assert pushed["missing_photos"] == [digest]
    assert field.inspection(pushed["uuid"])["photos_complete"] is False
    field.upload(path, sha256=digest, inspection_uuid=pushed["uuid"], item_id="sources.photo")
    body = field.inspection(pushed["uuid"])
    assert body["photos_complete"] is True
    assert body["photos"] == [{"sha256": digest, "item_id": "sources.photo", "filename": "sump.jpg",
                               "stored": True}]


@pytest.mark.realdata
def test_original_comes_back_byte_for_byte_with_exif_facts(field):
    path = need_shared("realdata", "photos", PHOTO)
    digest = sha256(path)
    field.upload(path, sha256=digest)
    original = requests.get(field.url(f"/api/v1/photos/{digest}"), headers=field.headers, timeout=30)
    assert (original.status_code, original.headers["Content-Type"]) == (200, "image/jpeg")
    assert original.content == path.read_bytes()
    info = requests.get(field.url(f"/api/v1/photos/{digest}/info"), headers=field.headers, timeout=30).json()
    assert (info["make"], info["width"], info["height"]) == ("NIKON", 640, 480)
    assert (round(info["lat"], 4), round(info["lon"], 4)) == (43.4674, 11.8851)
    thumb = requests.get(field.url(f"/api/v1/photos/{digest}/thumbnail"), headers=field.headers, timeout=30)
    assert thumb.headers["Content-Type"] == "image/jpeg" and thumb.content[:2] == b"\xff\xd8"


@pytest.mark.realdata
def test_heic_is_accepted_and_displayed_as_jpeg(field):
    path = need_shared("realdata", "photos", HEIC)
    digest = sha256(path)
    field.upload(path, sha256=digest)
    display = requests.get(field.url(f"/api/v1/photos/{digest}/display"), headers=field.headers, timeout=30)
    assert display.status_code == 200 and display.content[:2] == b"\xff\xd8"


@pytest.mark.realdata
def test_display_and_thumbnail_are_made_on_first_request_and_kept(field, tmp_path):
    path = need_shared("realdata", "photos", PHOTO)
    digest = sha256(path)
    field.upload(path, sha256=digest)
    derived = tmp_path / "blobs" / "derived" / digest
    assert not derived.exists()  # not made inside the upload
    thumb = requests.get(field.url(f"/api/v1/photos/{digest}/thumbnail"), headers=field.headers, timeout=30)
    assert thumb.status_code == 200 and thumb.content[:2] == b"\xff\xd8"
    assert sorted(p.name for p in derived.iterdir()) == ["display.jpg", "thumbnail.jpg"]
    made = (derived / "display.jpg").stat().st_mtime_ns
    again = requests.get(field.url(f"/api/v1/photos/{digest}/display"), headers=field.headers, timeout=30)
    assert again.content == (derived / "display.jpg").read_bytes()
    assert (derived / "display.jpg").stat().st_mtime_ns == made  # served, not made again


@pytest.mark.realdata
def test_same_photo_twice_is_one_blob_and_one_row(field, tmp_path):
    path = need_shared("realdata", "photos", PHOTO)
    digest = sha256(path)
    field.upload(path, sha256=digest)
    field.upload(path, sha256=digest)
    originals = [p for p in (tmp_path / "blobs" / "blobs").rglob("*") if p.is_file()]
    assert [p.name for p in originals] == [digest]
    assert field.photo_rows() == 1


@pytest.mark.realdata
def test_stored_photo_row_and_its_audit_name_the_uploader(field):
    from server.core.accounts.models import User
    from server.core.audit.models import AuditEvent
    from server.core.extensions import db
    from server.field.models import Photo

    path = need_shared("realdata", "photos", PHOTO)
    digest = sha256(path)
    field.upload(path, sha256=digest, inspection_uuid="a1", item_id="tap_photo")
    field.upload(path, sha256=digest)  # the same bytes again: no second row, no second audit
    with field.app.app_context():
        photo = db.session.execute(select(Photo)).scalar_one()
        inspector = db.session.execute(select(User).filter_by(username="field1")).scalar_one()
        events = db.session.execute(select(AuditEvent).filter_by(subject_type="photo")).scalars().all()
        assert (photo.sha256, photo.size, photo.format) == (digest, path.stat().st_size, "JPEG")
        assert photo.upload_metadata == {"inspection_uuid": "a1", "item_id": "tap_photo", "filename": path.name}
        assert photo.uploaded_by_id == inspector.id and photo.uploaded_at is not None
        assert [(e.action, e.subject_id, e.user_id, e.after["sha256"]) for e in events] == [
            ("store", photo.id, inspector.id, digest)]
        # The photo's plain INSERT (record_now) joins the hash chain like every audit row.
        assert events[0].row_hash and audit.verify(db.session).intact


@pytest.mark.realdata
def test_truncated_heif_is_a_4xx_and_leaves_nothing(field, tmp_path):
    path = need_shared("realdata", "photos", TRUNCATED_HEIF)
    with pytest.raises(TusCommunicationError) as raised:
        field.upload(path, sha256=sha256(path))
    assert raised.value.status_code == 422
    assert b"truncated" in (raised.value.response_content or b"")
    assert field.photo_rows() == 0
    assert not [p for p in (tmp_path / "blobs").rglob("*") if p.is_file()]
    assert not [p for p in (tmp_path / "staging").rglob("*") if p.is_file() and not p.name.endswith(".lock")]


def test_a_100_megapixel_png_is_a_422_naming_the_limit_and_leaves_nothing(field, tmp_path):
    """Issue 15 row 13: a small PNG of 10,000 × 10,000 pixels was accepted from any role;
    its first display image took ~430 MiB in the worker."""
    from PIL import Image

    path = tmp_path / "big.png"
    Image.new("L", (10_000, 10_000)).save(path, optimize=True)
    assert path.stat().st_size < 300_000
    with pytest.raises(TusCommunicationError) as raised:
        field.upload(path, sha256=sha256(path))

    assert raised.value.status_code == 422
    error = raised.value.response_content.decode()
    assert "decompression_bomb" in error and "100.0 megapixels" in error and "limit is 50 megapixels" in error
    assert field.photo_rows() == 0
    assert not [p for p in (tmp_path / "blobs").rglob("*") if p.is_file()]
    assert not [p for p in (tmp_path / "staging").rglob("*") if p.is_file() and not p.name.endswith(".lock")]


def test_a_big_png_whose_decoder_fails_is_kept_and_can_be_retried(field, tmp_path):
    """Issue 15 item 8: a big non-JPEG is decoded in a child process with an address-space
    limit. If that child fails, the display image answers 503: no 500, the original stays
    stored, and a retry works (the upload side: tests/field/uploads/test_photo_ingest.py)."""
    from PIL import Image

    path = tmp_path / "big.png"
    Image.new("RGB", (5000, 3600), "navy").save(path)
    digest = sha256(path)
    field.upload(path, sha256=digest)
    assert field.photo_rows() == 1
    field.app.config["PHOTO_DECODE_MEMORY_MIB"] = 200
    display = requests.get(field.url(f"/api/v1/photos/{digest}/display"), headers=field.headers, timeout=60)
    error = display.json()["error"]
    assert (display.status_code, error["code"]) == (503, "display_failed")
    assert "the original is kept" in error["message"] and display.headers["Retry-After"] == "60"
    original = requests.get(field.url(f"/api/v1/photos/{digest}"), headers=field.headers, timeout=30)
    assert original.status_code == 200 and original.content == path.read_bytes()
    assert not (tmp_path / "blobs" / "derived" / digest).exists()

    field.app.config["PHOTO_DECODE_MEMORY_MIB"] = 1536
    display = requests.get(field.url(f"/api/v1/photos/{digest}/display"), headers=field.headers, timeout=60)
    assert display.status_code == 200 and display.content[:2] == b"\xff\xd8"


def test_uploads_need_a_login(field):
    response = requests.post(field.url("/api/v1/uploads"), timeout=30,
                             headers={"Tus-Resumable": "1.0.0", "Upload-Length": "10"})
    assert response.status_code == 401


def test_unknown_photo_is_404(field):
    response = requests.head(field.url(f"/api/v1/photos/{'0' * 64}"), headers=field.headers, timeout=30)
    assert response.status_code == 404


@pytest.mark.realdata
def test_s3_backend_stores_the_photo(tmp_path, moto_endpoint):
    config = s3_config(moto_endpoint)
    app, drop, token, parcel_id = _field("spatialite", tmp_path, config)
    path = need_shared("realdata", "photos", PHOTO)
    digest = sha256(path)
    with LiveServer(app) as server:
        field = Field(app, drop, server, token, parcel_id)
        field.upload(path, sha256=digest)
        original = requests.get(field.url(f"/api/v1/photos/{digest}"), headers=field.headers, timeout=30)
        store = make_blob_store(config)
        assert not store.exists_key(f"derived/{digest}/display.jpg")
        display = requests.get(field.url(f"/api/v1/photos/{digest}/display"), headers=field.headers, timeout=30)
    assert original.content == path.read_bytes()
    assert store.exists(digest)
    assert display.status_code == 200 and display.content[:2] == b"\xff\xd8"
    assert store.exists_key(f"derived/{digest}/display.jpg")
    assert store.exists_key(f"derived/{digest}/thumbnail.jpg")
    with app.app_context():
        from server.core.extensions import db

        db.session.remove()
        db.engine.dispose()
