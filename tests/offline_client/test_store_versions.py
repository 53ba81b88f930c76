"""The store's layout is versioned (PRAGMA user_version) and upgraded step by step."""

from __future__ import annotations

import sqlite3

import pytest

from offline_client import store as store_mod
from offline_client.store import Store, StoreError, upgrade_schema

# The layout every store file had before versions were counted, frozen here as it
# shipped (not imported), so the test keeps meaning what it says when steps are added.
UNVERSIONED_LAYOUT = """
CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE templates (id TEXT PRIMARY KEY, body TEXT NOT NULL);
CREATE TABLE assignments (id TEXT PRIMARY KEY, body TEXT NOT NULL);
CREATE TABLE features (layer TEXT NOT NULL, id TEXT NOT NULL, body TEXT NOT NULL, PRIMARY KEY (layer, id));
CREATE TABLE drafts (uuid TEXT PRIMARY KEY, data TEXT NOT NULL, created_at REAL NOT NULL);
CREATE TABLE outbox (
    uuid TEXT PRIMARY KEY,
    kind TEXT NOT NULL CHECK (kind IN ('inspection', 'feature_edit')),
    body TEXT NOT NULL,
    state TEXT NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'sent', 'acknowledged', 'rejected')),
    attempts INTEGER NOT NULL DEFAULT 0,
    last_error TEXT,
    next_attempt_at REAL NOT NULL DEFAULT 0,
    status INTEGER,
    code TEXT,
    server_id TEXT,
    queued_at REAL NOT NULL,
    settled_at REAL
);
CREATE TABLE photos (
    inspection_uuid TEXT NOT NULL, item_id TEXT NOT NULL, sha256 TEXT NOT NULL,
    filename TEXT NOT NULL, path TEXT NOT NULL, size INTEGER NOT NULL, upload_url TEXT,
    offset INTEGER NOT NULL DEFAULT 0,
    state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'uploaded', 'rejected')),
    attempts INTEGER NOT NULL DEFAULT 0, last_error TEXT, next_attempt_at REAL NOT NULL DEFAULT 0,
    PRIMARY KEY (inspection_uuid, item_id, sha256)
);
INSERT INTO settings VALUES ('cursor', 'c-old');
INSERT INTO outbox (uuid, kind, body, queued_at) VALUES ('u-1', 'inspection', '{"answers":{}}', 1.0);
"""


def _version(path) -> int:
    with sqlite3.connect(path) as db:
        return db.execute("PRAGMA user_version").fetchone()[0]


@pytest.fixture
def old_profile(tmp_path):
    profile = tmp_path / "profile"
    profile.mkdir()
    with sqlite3.connect(profile / "state.sqlite") as db:
        db.executescript(UNVERSIONED_LAYOUT)
    return profile


def test_a_new_store_is_at_the_latest_version(tmp_path):
    Store(tmp_path / "p").close()
    assert _version(tmp_path / "p" / "state.sqlite") == len(store_mod.UPGRADES)


def test_an_unversioned_store_upgrades_and_keeps_its_records(old_profile):
    with Store(old_profile) as store:
        assert store.get("cursor") == "c-old"
        assert [r["uuid"] for r in store.records()] == ["u-1"]
        store.enqueue("feature_edit", {"layer": "taps"})  # the upgraded file works
    assert _version(old_profile / "state.sqlite") == len(store_mod.UPGRADES)


def test_a_current_store_is_left_alone(tmp_path):
    Store(tmp_path / "p").close()
    with sqlite3.connect(tmp_path / "p" / "state.sqlite", isolation_level=None) as db:
        assert upgrade_schema(db) == []


def test_each_numbered_step_runs_once_in_order(old_profile):
    steps = (*store_mod.UPGRADES,
             "ALTER TABLE outbox ADD COLUMN note TEXT;\nCREATE INDEX outbox_note ON outbox (note);")
    with sqlite3.connect(old_profile / "state.sqlite", isolation_level=None) as db:
        assert upgrade_schema(db, steps) == [1, 2]
        assert upgrade_schema(db, steps) == []
        assert "note" in {row[1] for row in db.execute("PRAGMA table_info(outbox)")}
        assert db.execute("SELECT uuid FROM outbox").fetchall() == [("u-1",)]
    assert _version(old_profile / "state.sqlite") == 2


def test_a_failing_step_leaves_the_file_at_its_version(old_profile):
    steps = (*store_mod.UPGRADES, "ALTER TABLE outbox ADD COLUMN note TEXT;\nTHIS IS NOT SQL;")
    with sqlite3.connect(old_profile / "state.sqlite", isolation_level=None) as db:
        with pytest.raises(sqlite3.OperationalError):
            upgrade_schema(db, steps)
        assert "note" not in {row[1] for row in db.execute("PRAGMA table_info(outbox)")}
    assert _version(old_profile / "state.sqlite") == 1


def test_a_store_from_a_newer_client_is_refused_untouched(old_profile):
    with sqlite3.connect(old_profile / "state.sqlite") as db:
        db.execute("PRAGMA user_version = 99")
    with pytest.raises(StoreError, match="newer lateral-field"):
        Store(old_profile)
    assert _version(old_profile / "state.sqlite") == 99
