"""Backups that restore: a consistent copy of the database and the photo evidence.

A backup folder ``DEST`` holds one sub-folder per backup (``20261201T023000Z/``) with
the database file, the list of blob-store objects and a ``manifest.json`` of what the
instance held (row counts, photo and letter hashes), plus ``DEST/blobs/``: a mirror of
a local blob store shared by every backup in ``DEST``. Objects are named by their
content, so a nightly run copies only the photos that are new since the last one.
An S3 blob store is not copied (the bucket's own versioning or replication keeps its
bytes); its backup records every key and size, and the originals' SHA-256s, so a
restore can prove nothing is missing.

The database is copied first and the blobs second: a photo's blob is stored before
its row, so every photo row in the copy has its blob in the mirror.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from alembic.migration import MigrationContext
from sqlalchemy import func, select

from server.core import dialects, jobs
from server.core.audit.anchors import anchor
from server.core.errors import LateralError
from server.core.extensions import db
from server.core.storage import BlobStore, LocalBlobStore
from server.core.storage.base import CHUNK_SIZE, blob_key
from server.core.transaction import own_transaction

FORMAT = 1
MANIFEST = "manifest.json"
OBJECTS = "blobs.json"
LATEST = "LATEST"
MIRROR = "blobs"

Progress = Callable[[str], None]


@dataclass
class BackupReport:
    """What one backup wrote."""

    folder: Path
    database_file: str
    objects: int
    objects_copied: int
    bytes_copied: int
    manifest: dict = field(repr=False)


def take_backup(dest: str | os.PathLike, store: BlobStore, progress: Progress = lambda _: None) -> BackupReport:
    """Back up the running instance into ``dest`` (created if absent).

    Raises:
        LateralError: ``backup_failed`` when the database cannot be copied (the
            message names the tool's own error).
    """
    root = Path(dest)
    taken_at = datetime.now(UTC)
    folder = root / taken_at.strftime("%Y%m%dT%H%M%S%fZ")
    root.mkdir(mode=0o700, parents=True, exist_ok=True)
    folder.mkdir(mode=0o700, exist_ok=False)
    # The chain's head before the copy, outside the database too: the copy has at least
    # these rows, and a later cut of the trail's tail shows against it (audit verify).
    audit_head = anchor(db.session, f"backup {folder.name}")
    progress(f"copying the database into {folder}")
    try:
        database_file, manifest = dialects.snapshot_database(db.engine, folder, describe_instance)
    except Exception as exc:  # pg_dump's own message is the useful part
        detail = getattr(exc, "stderr", None) or str(exc)
        raise LateralError("backup_failed", f"the database could not be copied: {detail.strip()}") from exc
    objects = dict(store.iter_keys())
    copied = copied_bytes = 0
    if isinstance(store, LocalBlobStore):
        progress(f"copying new blobs ({len(objects)} objects in the store)")
        copied, copied_bytes = _mirror(store.root, root / MIRROR, objects)
    (folder / OBJECTS).write_text(json.dumps(objects, sort_keys=True))
    manifest |= {
        "format": FORMAT,
        "taken_at": taken_at.isoformat(),
        "engine": db.engine.dialect.name,
        "audit_head": {"rows": audit_head.rows, "hash": audit_head.head},
        "database_file": database_file,
        "database_sha256": _file_sha256(folder / database_file),
        "blob_store": {"backend": "local" if isinstance(store, LocalBlobStore) else "s3",
                       "mirrored": isinstance(store, LocalBlobStore), "objects": len(objects),
                       "bytes": sum(objects.values())},
    }
    _write_atomic(folder / MANIFEST, json.dumps(manifest, indent=2, sort_keys=True))
    _write_atomic(root / LATEST, folder.name + "\n")
    keep_private(root)  # this backup, the photo mirror and the pointer to the latest
    # The copy ran in no write transaction (on SQLite one would hold the write lock, and
    # keep every writer waiting, for the whole copy): the record that the backup ran is a
    # short transaction of its own, after it.
    with own_transaction():
        jobs.record_run(jobs.BACKUP, {
            "folder": str(folder), "taken_at": manifest["taken_at"], "database_sha256": manifest["database_sha256"],
            "objects": len(objects), "objects_copied": copied,
        })
    return BackupReport(folder, database_file, len(objects), copied, copied_bytes, manifest)


def describe_instance(conn) -> dict:
    """Row counts, photo hashes and letter hashes of the database ``conn`` sees."""
    from server.field.models import Photo
    from server.notices.models import MailingBatch, Notice

    counts = {t.name: conn.execute(select(func.count()).select_from(t)).scalar()
              for t in sorted(db.metadata.sorted_tables, key=lambda t: t.name)}
    photos = dict(conn.execute(select(Photo.sha256, Photo.size).order_by(Photo.sha256)).all())
    letters = {str(i): sha for i, sha in conn.execute(
        select(Notice.id, Notice.letter_sha256).where(Notice.letter_sha256.is_not(None)).order_by(Notice.id))}
    batches = {str(i): [a, b] for i, a, b in conn.execute(
        select(MailingBatch.id, MailingBatch.letters_sha256, MailingBatch.mailing_book_sha256)
        .order_by(MailingBatch.id))}
    revision = MigrationContext.configure(conn).get_current_revision()
    return {"alembic_revision": revision, "row_counts": counts, "photos": photos,
            "letters": letters, "mailing_batches": batches}


def find_backup(src: str | os.PathLike) -> Path:
    """The backup folder ``src`` names: itself, or the latest one in a ``DEST`` folder.

    Raises:
        LateralError: ``no_backup`` when there is none there.
    """
    path = Path(src)
    if (path / MANIFEST).is_file():
        return path
    if (path / LATEST).is_file():
        latest = path / (path / LATEST).read_text().strip()
        if (latest / MANIFEST).is_file():
            return latest
    raise LateralError("no_backup", f"{path} holds no backup (no {MANIFEST}, and no {LATEST} naming one)")


def restore_backup(src: str | os.PathLike, database_url: str, store: BlobStore,
                   progress: Progress = lambda _: None) -> dict:
    """Rebuild an empty instance from a backup; returns the backup's manifest.

    The database must be empty (a new SQLite path, or a new PostgreSQL database):
    restoring over live data is refused, so a wrong command cannot overwrite a city.
    Blobs are copied back from the mirror through the store's own hash check; for a
    backup of an S3 store, every object it listed must already be in the bucket.

    Raises:
        LateralError: ``no_backup``; ``database_not_prepared`` (the message says what
            an administrator must run first; nothing is touched); ``not_empty``;
            ``damaged_backup`` (a file no longer hashes to what the manifest says, or
            objects are missing); ``restore_failed`` (the tool's own error).
    """
    folder = find_backup(src)
    manifest = json.loads((folder / MANIFEST).read_text())
    database_file = folder / manifest["database_file"]
    if _file_sha256(database_file) != manifest["database_sha256"]:
        raise LateralError("damaged_backup", f"{database_file} does not hash to the manifest's SHA-256")
    preparation = dialects.restore_preparation(database_url)
    if preparation:
        raise LateralError("database_not_prepared", "nothing was restored: " + "; ".join(preparation),
                           {"missing": preparation})
    if not dialects.database_is_empty(database_url):
        raise LateralError("not_empty", "the database already holds Lateral's tables; restore rebuilds an "
                                        "empty instance: point DATABASE_URL at a new, empty database first")
    objects = json.loads((folder / OBJECTS).read_text())
    mirror = folder.parent / MIRROR
    if manifest["blob_store"]["mirrored"]:
        progress(f"copying {len(objects)} blobs back")
        missing = [key for key in objects if not (mirror / key).is_file()]
        if missing:
            raise LateralError("damaged_backup", f"{len(missing)} blobs are missing from {mirror}",
                               {"missing": missing[:20]})
        for key in objects:
            _put_back(store, mirror / key, key)
    else:
        absent = [key for key in objects if not store.exists_key(key)]
        if absent:
            raise LateralError("damaged_backup", f"{len(absent)} objects the backup listed are not in the "
                                                 "blob store", {"missing": absent[:20]})
    progress(f"restoring the database from {database_file.name}")
    try:
        dialects.restore_database(database_url, database_file)
    except subprocess.CalledProcessError as exc:  # pg_restore's own message is the useful part
        detail = (exc.stderr or str(exc)).strip()
        raise LateralError("restore_failed", f"the database could not be restored: {detail}") from exc
    return manifest


def compare_with_manifest(manifest: dict) -> list[str]:
    """Differences between the instance now and what a backup's manifest recorded."""
    now = describe_instance(db.session.connection())
    problems = []
    for key in ("alembic_revision", "photos", "letters", "mailing_batches"):
        if now[key] != manifest[key]:
            problems.append(f"{key.replace('_', ' ')} differ from the backup's")
    for table, count in manifest["row_counts"].items():
        if now["row_counts"].get(table) != count:
            problems.append(f"table {table} has {now['row_counts'].get(table)} rows; the backup had {count}")
    return problems


def _mirror(source_root: Path, mirror: Path, objects: dict[str, int]) -> tuple[int, int]:
    """Copy the objects the mirror lacks (named by content, so present means equal)."""
    copied = copied_bytes = 0
    for key, size in objects.items():
        target = mirror / key
        if target.is_file() and target.stat().st_size == size:
            continue
        _copy_atomic(source_root / key, target)
        copied, copied_bytes = copied + 1, copied_bytes + size
    return copied, copied_bytes


def _put_back(store: BlobStore, path: Path, key: str) -> None:
    if store.exists_key(key):
        return
    if key.startswith("blobs/"):
        sha = key.rsplit("/", 1)[1]
        if blob_key(sha) == key:
            store.put_file(path, sha)  # hashed again: a damaged mirror cannot become evidence
            return
    store.put_bytes(key, path.read_bytes())


def _copy_atomic(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(".incoming-" + target.name)
    with open(source, "rb") as src, open(partial, "wb") as out:
        for chunk in iter(lambda: src.read(CHUNK_SIZE), b""):
            out.write(chunk)
        out.flush()
        os.fsync(out.fileno())
    os.replace(partial, target)


def keep_private(folder: Path) -> None:
    """Only Lateral's own account reads a backup: password hashes and owners' details are in it.

    Files 0600, folders 0700, whatever the tools that wrote them (pg_dump, SQLite's backup) made.
    """
    folder.chmod(0o700)
    for path in folder.rglob("*"):
        path.chmod(0o700 if path.is_dir() else 0o600)


def _write_atomic(path: Path, text: str) -> None:
    partial = path.with_name("." + path.name + ".partial")
    with open(partial, "w") as out:
        out.write(text)
        out.flush()
        os.fsync(out.fileno())
    os.replace(partial, path)


def _file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(CHUNK_SIZE), b""):
            digest.update(chunk)
    return digest.hexdigest()
