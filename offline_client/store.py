"""The field client's local state: one SQLite file per device profile.

A profile folder holds ``state.sqlite`` (WAL) and ``photos/`` (copies of every
attached photo, named by SHA-256, so the camera roll can be cleaned without losing
evidence). Every state change is one committed transaction, so a process killed at
any instant leaves a store that the next run can continue from:

- pulled data (templates, assignments, features by layer, the pull cursor) is
  replaced page by page with the cursor in the same transaction;
- a finished inspection moves from ``drafts`` into the ``outbox`` in one step,
  as canonical JSON that is sent byte for byte on every retry (the server answers a
  repeat with ``200 duplicate``, never a second copy);
- each photo remembers its tus upload URL as soon as the server hands it out, so a
  restarted process asks the server for the offset instead of starting again.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import tempfile
import time
import uuid as uuid_mod
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

SCHEMA = """
CREATE TABLE IF NOT EXISTS settings (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS templates (
    id   TEXT PRIMARY KEY,
    body TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS assignments (
    id   TEXT PRIMARY KEY,
    body TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS features (
    layer TEXT NOT NULL,
    id    TEXT NOT NULL,
    body  TEXT NOT NULL,
    PRIMARY KEY (layer, id)
);
CREATE TABLE IF NOT EXISTS drafts (
    uuid        TEXT PRIMARY KEY,
    data        TEXT NOT NULL,
    created_at  REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS outbox (
    uuid            TEXT PRIMARY KEY,
    kind            TEXT NOT NULL CHECK (kind IN ('inspection', 'feature_edit')),
    body            TEXT NOT NULL,
    state           TEXT NOT NULL DEFAULT 'queued'
                    CHECK (state IN ('queued', 'sent', 'acknowledged', 'rejected')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    last_error      TEXT,
    next_attempt_at REAL NOT NULL DEFAULT 0,
    status          INTEGER,
    code            TEXT,
    server_id       TEXT,
    queued_at       REAL NOT NULL,
    settled_at      REAL
);
CREATE TABLE IF NOT EXISTS photos (
    inspection_uuid TEXT NOT NULL,
    item_id         TEXT NOT NULL,
    sha256          TEXT NOT NULL,
    filename        TEXT NOT NULL,
    path            TEXT NOT NULL,
    size            INTEGER NOT NULL,
    upload_url      TEXT,
    offset          INTEGER NOT NULL DEFAULT 0,
    state           TEXT NOT NULL DEFAULT 'pending'
                    CHECK (state IN ('pending', 'uploaded', 'rejected')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    last_error      TEXT,
    next_attempt_at REAL NOT NULL DEFAULT 0,
    PRIMARY KEY (inspection_uuid, item_id, sha256)
);
CREATE INDEX IF NOT EXISTS outbox_due ON outbox (state, next_attempt_at);
CREATE INDEX IF NOT EXISTS photos_due ON photos (state, next_attempt_at);
"""

# The store's layout in numbered upgrade steps, as the web app's IndexedDB has with
# ``onupgradeneeded``: step N (``UPGRADES[N - 1]``) takes a file at ``PRAGMA
# user_version`` N - 1 to N, in one transaction with the new version number. Step 1 is
# the layout as first shipped, when files carried no version (so they read 0); it only
# creates what is missing, so such a file keeps its data. Never edit a step that has
# shipped: add the next one.
UPGRADES: tuple[str, ...] = (
    SCHEMA,  # 1: settings, templates, assignments, features, drafts, outbox, photos
)

# Outbox states a record can still leave; 'sent' means "on the wire when we last knew",
# and is sent again on the next push (the server recognises the repeat).
OPEN_STATES = ("queued", "sent")
#: Codes of edits the server kept for the superintendent (a stale base version, or an
#: inspector's edit outside their assigned parcels): acknowledged, shown as conflicts.
HELD = ("stale_version", "proposed")


class StoreError(ValueError):
    """A request the local store cannot carry out (unknown draft, template...)."""


def upgrade_schema(db: sqlite3.Connection, steps: tuple[str, ...] = UPGRADES) -> list[int]:
    """Bring a store file up to ``len(steps)``; returns the step numbers it ran.

    Each step runs under ``BEGIN IMMEDIATE`` and re-reads the version inside it, so two
    processes opening one profile at once upgrade it once.

    Raises:
        StoreError: The file was written by a newer client (a higher version).
    """
    ran = []
    while True:
        db.execute("BEGIN IMMEDIATE")
        try:
            version = db.execute("PRAGMA user_version").fetchone()[0]
            if version > len(steps):
                raise StoreError(f"this profile was written by a newer lateral-field (store version "
                                 f"{version}, this one knows {len(steps)}); update lateral-field")
            if version == len(steps):
                db.execute("COMMIT")
                return ran
            for statement in _statements(steps[version]):
                db.execute(statement)
            db.execute(f"PRAGMA user_version = {version + 1:d}")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")
        ran.append(version + 1)


def _statements(script: str) -> list[str]:
    """Split a step into statements (``executescript`` would commit the transaction)."""
    statements, pending = [], ""
    for line in script.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            statements.append(pending.strip())
            pending = ""
    if pending.strip():
        statements.append(pending.strip())
    return statements


@dataclass(frozen=True)
class OutboxRecord:
    uuid: str
    kind: str
    body: str
    state: str
    attempts: int


@dataclass(frozen=True)
class PhotoUpload:
    inspection_uuid: str
    item_id: str
    sha256: str
    filename: str
    path: Path
    size: int
    upload_url: str | None
    offset: int
    attempts: int


def canonical_json(data) -> str:
    """The one serialisation of a record: sorted keys, no spaces, UTF-8 kept."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def utc_now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


class Store:
    """The state of one device profile.

    Args:
        profile_dir: Folder of the profile; created if missing.
        clock: Seconds since the epoch (tests pass a fake).
    """

    def __init__(self, profile_dir: str | Path, clock=time.time) -> None:
        self.dir = Path(profile_dir)
        self.photo_dir = self.dir / "photos"
        self.photo_dir.mkdir(parents=True, exist_ok=True)
        self.clock = clock
        self._db = sqlite3.connect(self.dir / "state.sqlite", isolation_level=None, timeout=30)
        self._db.row_factory = sqlite3.Row
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")  # a tablet can lose power, not only a process
        try:
            upgrade_schema(self._db)
        except BaseException:
            self._db.close()
            raise

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @contextmanager
    def transaction(self, durable: bool = True) -> Iterator[sqlite3.Connection]:
        """BEGIN IMMEDIATE … COMMIT, rolled back on any exception.

        ``durable=False`` commits without waiting for the disk (WAL, synchronous=NORMAL):
        it survives the process being killed, and at worst a power cut takes it back.
        Only for what merely mirrors the server (an upload's URL and progress), where
        losing it costs a resend that the server recognises, never the inspector's work.
        """
        if not durable:
            self._db.execute("PRAGMA synchronous=NORMAL")
        try:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")
        finally:
            if not durable:
                self._db.execute("PRAGMA synchronous=FULL")

    # ------------------------------------------------------------ settings
    def get(self, key: str, default: str | None = None) -> str | None:
        row = self._db.execute("SELECT value FROM settings WHERE key = ?", (key,)).fetchone()
        return row["value"] if row else default

    def set(self, **values: str | None) -> None:
        """Set (or, with ``None``, remove) settings in one transaction."""
        with self.transaction() as tx:
            for key, value in values.items():
                _put_setting(tx, key, value)

    # ---------------------------------------------------------- pulled data
    def apply_pull(self, page: dict) -> None:
        """Apply one pull page and its cursor atomically.

        ``assignments`` and ``templates`` are complete on every page and replace what
        is stored. A ``reset`` page starts a full snapshot: cached features are
        dropped first, unless the page continues a snapshot already under way (a
        process killed between pages resumes from the stored cursor). Tombstones are
        applied after the page's features, so a feature deleted in the same page
        does not come back.
        """
        with self.transaction() as tx:
            snapshot_open = self.get("snapshot_open") == "1"
            if page.get("reset") and not snapshot_open:
                tx.execute("DELETE FROM features")
            for table in ("templates", "assignments"):
                if page.get(table) is not None:
                    tx.execute(f"DELETE FROM {table}")
                    for body in page[table]:
                        _upsert(tx, table, str(body["id"]), body)
            for layer, features in (page.get("features") or {}).items():
                for feature in features:
                    tx.execute(
                        "INSERT INTO features (layer, id, body) VALUES (?, ?, ?) "
                        "ON CONFLICT (layer, id) DO UPDATE SET body = excluded.body",
                        (layer, str(feature["id"]), canonical_json(feature)),
                    )
            for tomb in page.get("tombstones") or []:
                tx.execute(
                    "DELETE FROM features WHERE layer = ? AND id = ?", (tomb["layer"], str(tomb["id"]))
                )
            still_open = bool(page.get("more")) and (bool(page.get("reset")) or snapshot_open)
            _put_setting(tx, "snapshot_open", "1" if still_open else None)
            _put_setting(tx, "cursor", page.get("cursor"))

    def templates(self) -> list[dict]:
        return [json.loads(r["body"]) for r in self._db.execute("SELECT body FROM templates ORDER BY id")]

    def template(self, template_id) -> dict:
        row = self._db.execute("SELECT body FROM templates WHERE id = ?", (str(template_id),)).fetchone()
        if row is None:
            raise StoreError(f"no template {template_id}; run 'pull' first")
        return json.loads(row["body"])

    def assignments(self) -> list[dict]:
        return [json.loads(r["body"]) for r in self._db.execute("SELECT body FROM assignments ORDER BY id")]

    def features(self, layer: str) -> list[dict]:
        rows = self._db.execute("SELECT body FROM features WHERE layer = ? ORDER BY id", (layer,))
        return [json.loads(r["body"]) for r in rows]

    # -------------------------------------------------------------- drafts
    def start_inspection(
        self, template_id, parcel_id, location: dict | None = None, replaces: str | None = None
    ) -> str:
        """Open a draft inspection from a pulled template; returns its client UUID."""
        template = self.template(template_id)
        record_uuid = str(uuid_mod.uuid4())
        data = {
            "template_id": template["id"],
            "template_version": template.get("version"),
            "parcel_id": parcel_id,
            "location": location,
            "started_at": utc_now_iso(),
            "finished_at": None,
            "answers": {},
            "replaces": replaces,
        }
        with self.transaction() as tx:
            tx.execute(
                "INSERT INTO drafts (uuid, data, created_at) VALUES (?, ?, ?)",
                (record_uuid, canonical_json(data), self.clock()),
            )
        return record_uuid

    def draft(self, record_uuid: str) -> dict:
        row = self._db.execute("SELECT data FROM drafts WHERE uuid = ?", (record_uuid,)).fetchone()
        if row is None:
            raise StoreError(f"no draft inspection {record_uuid} (finished ones cannot change)")
        return json.loads(row["data"])

    def drafts(self) -> list[tuple[str, dict]]:
        rows = self._db.execute("SELECT uuid, data FROM drafts ORDER BY created_at")
        return [(r["uuid"], json.loads(r["data"])) for r in rows]

    def answer(self, record_uuid: str, item_id: str, value) -> None:
        with self.transaction() as tx:
            data = self.draft(record_uuid)
            data["answers"][str(item_id)] = value
            tx.execute("UPDATE drafts SET data = ? WHERE uuid = ?", (canonical_json(data), record_uuid))

    def attach_photo(self, record_uuid: str, item_id: str, source: str | Path) -> str:
        """Copy a photo into the profile and attach it to a draft; returns its SHA-256."""
        _add_photo_answer(json.loads(json.dumps(self.draft(record_uuid)["answers"])), str(item_id), "")
        source = Path(source)
        sha256, size, path = self._keep_copy(source)
        with self.transaction() as tx:
            data = self.draft(record_uuid)  # still a draft now that we hold the write lock
            _add_photo_answer(data["answers"], str(item_id), sha256)
            tx.execute("UPDATE drafts SET data = ? WHERE uuid = ?", (canonical_json(data), record_uuid))
            tx.execute(
                "INSERT OR IGNORE INTO photos (inspection_uuid, item_id, sha256, filename, path, size) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (record_uuid, str(item_id), sha256, source.name, str(path), size),
            )
        return sha256

    def _keep_copy(self, source: Path) -> tuple[str, int, Path]:
        """Copy ``source`` to ``photos/<sha256><suffix>`` (fsynced, renamed into place)."""
        digest = hashlib.sha256()
        fd, tmp_name = tempfile.mkstemp(dir=self.photo_dir, suffix=".part")
        size = 0
        try:
            with open(source, "rb") as src, os.fdopen(fd, "wb") as dst:
                while chunk := src.read(1 << 20):
                    digest.update(chunk)
                    dst.write(chunk)
                    size += len(chunk)
                dst.flush()
                os.fsync(dst.fileno())
            target = self.photo_dir / f"{digest.hexdigest()}{source.suffix.lower()}"
            os.replace(tmp_name, target)
            _fsync_dir(self.photo_dir)  # the rename survives a power cut before the row does
        except BaseException:
            Path(tmp_name).unlink(missing_ok=True)
            raise
        return digest.hexdigest(), size, target

    def finish(self, record_uuid: str) -> dict:
        """Close a draft and queue it for push, in one transaction; returns the record data."""
        with self.transaction() as tx:
            data = self.draft(record_uuid)
            data["finished_at"] = utc_now_iso()
            rows = tx.execute(
                "SELECT sha256, item_id, filename FROM photos WHERE inspection_uuid = ? "
                "ORDER BY item_id, sha256",
                (record_uuid,),
            ).fetchall()
            data["photos"] = [dict(r) for r in rows]
            self._enqueue(tx, record_uuid, "inspection", data)
            tx.execute("DELETE FROM drafts WHERE uuid = ?", (record_uuid,))
        return data

    # -------------------------------------------------------------- outbox
    def enqueue(self, kind: str, data: dict, record_uuid: str | None = None) -> str:
        """Queue a finished record (e.g. a ``feature_edit``); returns its UUID."""
        record_uuid = record_uuid or str(uuid_mod.uuid4())
        with self.transaction() as tx:
            self._enqueue(tx, record_uuid, kind, data)
        return record_uuid

    def _enqueue(self, tx, record_uuid: str, kind: str, data: dict) -> None:
        tx.execute(
            "INSERT INTO outbox (uuid, kind, body, queued_at) VALUES (?, ?, ?, ?)",
            (record_uuid, kind, canonical_json(data), self.clock()),
        )

    def due_records(self, limit: int, now: float | None = None) -> list[OutboxRecord]:
        """Open records whose back-off has passed, oldest first."""
        now = self.clock() if now is None else now
        rows = self._db.execute(
            "SELECT uuid, kind, body, state, attempts FROM outbox "
            "WHERE state IN ('queued', 'sent') AND next_attempt_at <= ? "
            "ORDER BY queued_at, uuid LIMIT ?",
            (now, limit),
        ).fetchall()
        return [OutboxRecord(**dict(r)) for r in rows]

    def mark_sent(self, uuids: Iterable[str]) -> None:
        """Record that a batch is about to go on the wire (before sending it)."""
        with self.transaction() as tx:
            tx.executemany(
                "UPDATE outbox SET state = 'sent', attempts = attempts + 1 "
                "WHERE uuid = ? AND state IN ('queued', 'sent')",
                [(u,) for u in uuids],
            )

    def settle(self, result: dict) -> str:
        """Apply one per-record push result (not a 5xx); returns the record's new state.

        200/201 acknowledge the record, and so do 409 ``stale_version`` and 202
        ``proposed``: the server kept the edit as a conflict for the superintendent, and sending it again
        would only answer ``duplicate``. Any other 4xx rejects it for good, keeping
        the server's code and message for the user. Photos the server already holds
        (not in ``missing_photos``) are marked uploaded.
        """
        status = int(result["status"])
        code = result.get("code")
        if status == 200 and result.get("outcome"):
            code = result["outcome"]  # a resend: what the first push got
        acknowledged = status in (200, 201) or code in HELD
        state = "acknowledged" if acknowledged else "rejected"
        note = None if code in ("created", "duplicate") else f"{code}: {result.get('message')}"
        with self.transaction() as tx:
            tx.execute(
                "UPDATE outbox SET state = ?, status = ?, code = ?, server_id = ?, last_error = ?, "
                "settled_at = ? WHERE uuid = ? AND state IN ('queued', 'sent')",
                (state, status, code, _opt_str(result.get("server_id")), note, self.clock(), result["uuid"]),
            )
            if acknowledged and result.get("missing_photos") is not None:
                missing = {s.lower() for s in result["missing_photos"]}
                held = [
                    (result["uuid"], r["item_id"], r["sha256"])
                    for r in tx.execute(
                        "SELECT item_id, sha256 FROM photos WHERE inspection_uuid = ? AND state = 'pending'",
                        (result["uuid"],),
                    )
                    if r["sha256"] not in missing
                ]
                tx.executemany(
                    "UPDATE photos SET state = 'uploaded', offset = size WHERE inspection_uuid = ? "
                    "AND item_id = ? AND sha256 = ?",
                    held,
                )
        return state

    def retry_later(self, uuids: Iterable[str], error: str, delay_for) -> None:
        """Put records back in the queue after a network error or 5xx.

        Args:
            uuids: Records of the failed batch.
            error: What went wrong, kept for ``status``.
            delay_for: ``attempts -> seconds`` (the back-off policy).
        """
        now = self.clock()
        with self.transaction() as tx:
            for record_uuid in uuids:
                row = tx.execute("SELECT attempts FROM outbox WHERE uuid = ?", (record_uuid,)).fetchone()
                tx.execute(
                    "UPDATE outbox SET state = 'queued', last_error = ?, next_attempt_at = ? "
                    "WHERE uuid = ? AND state IN ('queued', 'sent')",
                    (error, now + delay_for(row["attempts"]), record_uuid),
                )

    def next_attempt_at(self) -> float:
        """When the earliest record or photo in back-off may be tried again."""
        row = self._db.execute(
            "SELECT MIN(t) FROM (SELECT next_attempt_at AS t FROM outbox WHERE state IN ('queued', 'sent') "
            "UNION ALL SELECT p.next_attempt_at FROM photos p JOIN outbox o ON o.uuid = p.inspection_uuid "
            "WHERE p.state = 'pending' AND o.state = 'acknowledged')"
        ).fetchone()
        return row[0] if row[0] is not None else self.clock()

    def record(self, record_uuid: str) -> dict:
        row = self._db.execute("SELECT * FROM outbox WHERE uuid = ?", (record_uuid,)).fetchone()
        if row is None:
            raise StoreError(f"no queued record {record_uuid}")
        return dict(row)

    def records(self) -> list[dict]:
        return [dict(r) for r in self._db.execute("SELECT * FROM outbox ORDER BY queued_at, uuid")]

    # -------------------------------------------------------------- photos
    def due_photos(self, now: float | None = None) -> list[PhotoUpload]:
        """Pending photos of acknowledged records whose back-off has passed.

        A photo waits for its record: the server links it to an inspection it
        already knows, and it learns from the push which photos it lacks.
        """
        now = self.clock() if now is None else now
        rows = self._db.execute(
            "SELECT p.* FROM photos p JOIN outbox o ON o.uuid = p.inspection_uuid "
            "WHERE p.state = 'pending' AND o.state = 'acknowledged' AND p.next_attempt_at <= ? "
            "ORDER BY o.queued_at, p.item_id, p.sha256",
            (now,),
        ).fetchall()
        return [
            PhotoUpload(
                inspection_uuid=r["inspection_uuid"], item_id=r["item_id"], sha256=r["sha256"],
                filename=r["filename"], path=Path(r["path"]), size=r["size"],
                upload_url=r["upload_url"], offset=r["offset"], attempts=r["attempts"],
            )
            for r in rows
        ]

    def holds_uploaded(self, sha256: str) -> bool:
        """Whether a photo with these bytes is already uploaded (for another record or item)."""
        row = self._db.execute(
            "SELECT 1 FROM photos WHERE sha256 = ? AND state = 'uploaded' LIMIT 1", (sha256,)
        ).fetchone()
        return row is not None

    def _update_photo(self, photo: PhotoUpload, sql: str, *params) -> None:
        # An upload's state mirrors the server's (HEAD and HEAD /photos/<sha256> tell
        # it again), so it need not wait for the disk; the photo file and its row do.
        with self.transaction(durable=False) as tx:
            tx.execute(
                f"UPDATE photos SET {sql} WHERE inspection_uuid = ? AND item_id = ? AND sha256 = ?",
                (*params, photo.inspection_uuid, photo.item_id, photo.sha256),
            )

    def set_upload_url(self, photo: PhotoUpload, url: str | None) -> None:
        self._update_photo(photo, "upload_url = ?, offset = 0", url)

    def set_offset(self, photo: PhotoUpload, offset: int) -> None:
        self._update_photo(photo, "offset = ?", offset)

    def photo_uploaded(self, photo: PhotoUpload) -> None:
        self._update_photo(photo, "state = 'uploaded', offset = size, last_error = NULL")

    def photo_rejected(self, photo: PhotoUpload, reason: str) -> None:
        self._update_photo(photo, "state = 'rejected', last_error = ?", reason)

    def photo_retry_later(self, photo: PhotoUpload, error: str, delay_for) -> None:
        attempts = photo.attempts + 1
        self._update_photo(
            photo, "attempts = ?, last_error = ?, next_attempt_at = ?",
            attempts, error, self.clock() + delay_for(attempts),
        )

    def photos(self) -> list[dict]:
        return [dict(r) for r in self._db.execute("SELECT * FROM photos ORDER BY inspection_uuid, item_id")]

    # -------------------------------------------------------------- status
    def status(self) -> dict:
        """What the user needs to know before driving back out of signal."""
        counts = dict.fromkeys(("queued", "sent", "acknowledged", "rejected"), 0)
        for row in self._db.execute("SELECT state, COUNT(*) AS n FROM outbox GROUP BY state"):
            counts[row["state"]] = row["n"]
        pending = self._db.execute(
            "SELECT COUNT(*) AS n, COALESCE(SUM(p.size - p.offset), 0) AS bytes FROM photos p "
            "JOIN outbox o ON o.uuid = p.inspection_uuid WHERE p.state = 'pending' AND o.state != 'rejected'"
        ).fetchone()
        problems = [
            {"uuid": r["uuid"], "kind": r["kind"], "status": r["status"], "reason": r["last_error"]}
            for r in self._db.execute(
                "SELECT uuid, kind, status, last_error FROM outbox WHERE state = 'rejected' ORDER BY settled_at"
            )
        ]
        conflicts = [
            {"uuid": r["uuid"], "kind": r["kind"], "reason": r["last_error"]}
            for r in self._db.execute(
                "SELECT uuid, kind, last_error FROM outbox WHERE state = 'acknowledged' "
                "AND code IN ('stale_version', 'proposed') ORDER BY settled_at"
            )
        ]
        problems += [
            {"uuid": r["inspection_uuid"], "kind": "photo", "sha256": r["sha256"], "reason": r["last_error"]}
            for r in self._db.execute(
                "SELECT inspection_uuid, sha256, last_error FROM photos WHERE state = 'rejected'"
            )
        ]
        errors = [
            {"uuid": r["uuid"], "attempts": r["attempts"], "error": r["last_error"]}
            for r in self._db.execute(
                "SELECT uuid, attempts, last_error FROM outbox WHERE state IN ('queued', 'sent') "
                "AND last_error IS NOT NULL"
            )
        ]
        # Sent but not synced: the server has the record, not yet all its photos.
        awaiting_photos = self._db.execute(
            "SELECT COUNT(DISTINCT o.uuid) FROM outbox o JOIN photos p ON p.inspection_uuid = o.uuid "
            "WHERE o.state = 'acknowledged' AND p.state = 'pending'"
        ).fetchone()[0]
        return {
            "drafts": self._db.execute("SELECT COUNT(*) FROM drafts").fetchone()[0],
            "awaiting_photos": awaiting_photos,
            "queued": counts["queued"] + counts["sent"],
            "acknowledged": counts["acknowledged"],
            "rejected": counts["rejected"],
            "photos_pending": pending["n"],
            "photo_bytes_pending": pending["bytes"],
            "problems": problems,
            "conflicts": conflicts,
            "retrying": errors,
            "last_sync": self.get("last_sync"),
            "last_pull": self.get("last_pull"),
            "cursor": self.get("cursor"),
        }


def _upsert(tx, table: str, key: str, body: dict) -> None:
    tx.execute(
        f"INSERT INTO {table} (id, body) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET body = excluded.body",
        (key, canonical_json(body)),
    )


def _put_setting(tx, key: str, value) -> None:
    if value is None:
        tx.execute("DELETE FROM settings WHERE key = ?", (key,))
    else:
        tx.execute(
            "INSERT INTO settings (key, value) VALUES (?, ?) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (key, str(value)),
        )


def _add_photo_answer(answers: dict, item_id: str, sha256: str) -> None:
    """Name the photo in its answer: ``item`` → ``answers[item]``; ``group.item`` →
    the group's latest entry (answer the group first)."""
    if "." in item_id:
        group, item = item_id.split(".", 1)
        entries = answers.get(group)
        if not isinstance(entries, list) or not entries or not isinstance(entries[-1], dict):
            raise StoreError(f"answer the group {group!r} before attaching a photo to {item_id!r}")
        target, key = entries[-1], item
    else:
        target, key = answers, item_id
    digests = target.setdefault(key, [])
    if sha256 not in digests:
        digests.append(sha256)


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _opt_str(value) -> str | None:
    return None if value is None else str(value)

