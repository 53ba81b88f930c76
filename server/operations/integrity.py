"""Does the instance hold together? Photos, mailed letters and references, checked.

``flask --app server verify`` runs :func:`verify_instance` after a restore, or any
night: every problem is named, none is fixed here (evidence is not rewritten by a
check).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator

from sqlalchemy import exists, select

from server.core.audit import trail as audit
from server.core.audit.models import AuditEvent
from server.core.extensions import db
from server.core.storage import BlobNotFound, BlobStore, blob_key
from server.field.models import Photo
from server.notices.models import MailingBatch, Notice

Progress = Callable[[str], None]


def verify_instance(store: BlobStore, progress: Progress = lambda _: None, hash_blobs: bool = True) -> list[str]:
    """Every problem found, as sentences; an empty list means the instance is whole."""
    problems: list[str] = []
    progress("checking photos against the blob store")
    problems += list(_photo_problems(store, hash_blobs))
    progress("checking mailed letters against the audit trail")
    problems += list(_letter_problems())
    progress("checking references between rows")
    problems += list(reference_problems())
    progress("checking the audit trail's hash chain")
    chain = audit.verify(db.session)
    if not chain.intact:
        problems.append(f"audit trail: row {chain.broken_id} {chain.reason}")
    return problems


def _photo_problems(store: BlobStore, hash_blobs: bool) -> Iterator[str]:
    for photo_id, sha, size in db.session.execute(select(Photo.id, Photo.sha256, Photo.size).order_by(Photo.id)):
        try:
            if not hash_blobs:
                stored = store.size(sha)
                if stored != size:
                    yield f"photo {photo_id}: its blob is {stored} bytes, the row says {size}"
                continue
            digest = hashlib.sha256()
            for chunk in store.stream(blob_key(sha)):
                digest.update(chunk)
        except BlobNotFound:
            yield f"photo {photo_id}: no blob is stored for {sha}"
            continue
        if digest.hexdigest() != sha:
            yield f"photo {photo_id}: its blob hashes to {digest.hexdigest()}, not to its name {sha}"


def _audited_hashes(subject_type: str, field: str) -> dict[int, set[str]]:
    """The ``field`` values the audit trail recorded for each subject of a type."""
    seen: dict[int, set[str]] = {}
    rows = db.session.execute(select(AuditEvent.subject_id, AuditEvent.after)
                              .where(AuditEvent.subject_type == subject_type))
    for subject_id, after in rows:
        if isinstance(after, dict) and after.get(field):
            seen.setdefault(subject_id, set()).add(after[field])
    return seen


def _letter_problems() -> Iterator[str]:
    audited = _audited_hashes("notice", "letter_sha256")
    rows = db.session.execute(select(Notice.id, Notice.letter_sha256, Notice.letter_pdf)
                              .where(Notice.letter_sha256.is_not(None)).order_by(Notice.id))
    for notice_id, sha, pdf in rows:
        if pdf is None or hashlib.sha256(pdf).hexdigest() != sha:
            yield f"notice {notice_id}: the stored letter does not hash to its recorded SHA-256 {sha}"
        if sha not in audited.get(notice_id, set()):
            yield f"notice {notice_id}: the audit trail never recorded the letter SHA-256 {sha}"
    audited = _audited_hashes("mailing_batch", "letters_sha256")
    rows = db.session.execute(select(MailingBatch.id, MailingBatch.letters_sha256, MailingBatch.letters_pdf,
                                     MailingBatch.mailing_book_sha256, MailingBatch.mailing_book_pdf)
                              .order_by(MailingBatch.id))
    for batch_id, letters_sha, letters_pdf, book_sha, book_pdf in rows:
        if hashlib.sha256(letters_pdf).hexdigest() != letters_sha:
            yield f"mailing {batch_id}: its letters do not hash to their recorded SHA-256"
        if hashlib.sha256(book_pdf).hexdigest() != book_sha:
            yield f"mailing {batch_id}: its mailing book does not hash to its recorded SHA-256"
        if letters_sha not in audited.get(batch_id, set()):
            yield f"mailing {batch_id}: the audit trail never recorded its letters' SHA-256"


def reference_problems() -> Iterator[str]:
    """Every foreign key of the schema, each row's value looked for in the table it names.

    A database with its keys enforced never has such a row; a restore, a hand edit or
    SQLite without ``PRAGMA foreign_keys`` can. The table pointed at is always read
    through an alias: a self-reference (``notices.follow_up_of_id``) read without one
    compares each row with itself, and every follow-up looked dangling.
    """
    for child in db.metadata.sorted_tables:
        for fk in sorted(child.foreign_keys, key=lambda f: (f.parent.name, f.target_fullname)):
            column = child.c[fk.parent.name]
            parent = fk.column.table.alias("referenced")
            target = parent.c[fk.column.name]
            dangling = (select(column).where(column.is_not(None), ~exists().where(target == column))
                        .order_by(column).limit(6))
            values = db.session.execute(dangling).scalars().all()
            if values:
                shown = ", ".join(str(v) for v in values[:5]) + (", …" if len(values) > 5 else "")
                yield (f"{child.name}.{fk.parent.name} points at {fk.column.table.name} rows that do not exist "
                       f"({shown})")
