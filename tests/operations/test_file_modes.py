"""What Lateral writes is for its own account only (issue 30): the SQLite file, backups,
photos and uploads 0600 in 0700 folders, and ``flask doctor`` says when they are not."""

from __future__ import annotations

import json
import os
import stat

import pytest

from server import UMASK
from server.core.storage.local import LocalBlobStore
from server.field.uploads.tus import TusServer
from server.operations import doctor
from tests.support.databases import fresh_app


def mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_the_app_sets_its_umask(app):
    current = os.umask(UMASK)
    os.umask(current)
    assert current == 0o027


def test_photos_are_private(tmp_path):
    store = LocalBlobStore(tmp_path / "blobs")
    key = store.put_bytes("evidence/a.jpg", b"\xff\xd8 a photo")
    assert mode(tmp_path / "blobs") == 0o700
    blob = next(p for p in (tmp_path / "blobs").rglob("*") if p.is_file())
    assert mode(blob) == 0o600, key
    assert all(mode(p) == 0o700 for p in (tmp_path / "blobs").rglob("*") if p.is_dir())


def test_staged_uploads_are_private(tmp_path):
    TusServer(tmp_path / "tus", on_complete=lambda *_: None)
    assert mode(tmp_path / "tus") == 0o700


def test_the_sqlite_file_and_a_backup_are_private(tmp_path):
    with fresh_app("spatialite", tmp_path) as app:
        database = tmp_path / "lateral.sqlite"
        os.chmod(database, 0o644)  # as an older release left it
        with app.app_context():
            from server.core.extensions import db

            db.engine.dispose()
            db.session.execute(db.text("SELECT 1"))  # a new connection keeps the file private again
            assert mode(database) == 0o600
            result = app.test_cli_runner().invoke(args=["backup", str(tmp_path / "backups")])
            assert result.exit_code == 0, result.output
        backups = tmp_path / "backups"
        assert mode(backups) == 0o700
        loose = [(p, oct(mode(p))) for p in backups.rglob("*") if mode(p) != (0o700 if p.is_dir() else 0o600)]
        assert any(backups.rglob("*")) and not loose
        # The backup also wrote the audit chain's head down outside the database (issue 30).
        manifest = json.loads(next(backups.rglob("manifest.json")).read_text())
        anchors = (tmp_path / "audit-anchors.log").read_text()
        assert manifest["audit_head"]["hash"] in anchors and '"source": "backup ' in anchors


@pytest.fixture
def loose_staging(app, tmp_path, monkeypatch):
    folder = tmp_path / "staging"
    folder.mkdir()
    folder.chmod(0o755)
    monkeypatch.setattr(app.extensions[doctor.TUS], "staging_dir", folder)
    return folder


def test_doctor_reports_a_folder_others_can_read(app, loose_staging):
    finding = doctor.check_file_modes(app)
    assert not finding.ok and str(loose_staging) in finding.message and "0755" in finding.message
    loose_staging.chmod(0o700)
    assert doctor.check_file_modes(app).ok
