"""The tus 1.0.0 protocol over a staging directory, independent of any web framework.

Extensions: creation, creation-with-upload, checksum, termination, expiration.
Each upload is two files
in the staging directory, named ``{key}`` = ``{owner tag}-{id}`` (ids are scoped per user:
one user's id neither collides with nor tells of another's): ``{key}.bin`` (the bytes
received so far, appended in chunks) and ``{key}.json`` (length, owner, metadata,
timestamps). The offset is the size of ``{key}.bin``: whatever reached the disk before a connection dropped counts,
so ``HEAD`` reports it and the client resumes from there.

The record is written once and then only appended to: one JSON object per line, the
first the whole upload, each later one the fields that changed (expiry, completion),
read back by merging the lines in order. A line cut by a crash is ignored, so no
temporary file and rename is needed per change. The record file also carries the
upload's lock (``flock``), so an upload is two files and nothing more: every
directory change waits for the file system's journal, and with other uploads
flushing their photos that wait is the cost of a small file.

The SHA-256 of the whole upload is computed while the bytes arrive (a running
hash per upload, kept in memory between PATCHes), so the completion hook gets the
digest without reading the file again. A PATCH that lands on another process
(gunicorn worker) or after a restart rebuilds the running hash from the bytes
already on disk.

Durability: each PATCH fsyncs the data file before it answers, so an
``Upload-Offset`` the server has acknowledged survives a crash (the offset *is*
the file size). The request carrying the last byte leaves that to the completion
hook, which stores the upload durably (or, if it fails, the data file is synced
before the 500): one flush per photo — what any server must do before
acknowledging it.

One request per photo: with creation-with-upload the ``POST`` that creates an upload
carries its bytes too. A client that must be able to resume an upload whose
creation answer it never saw names the upload itself: ``upload_id`` (32 hex
digits, e.g. a UUID4) in ``Upload-Metadata``. It stores the URL that id implies
before sending, and after a cut asks that URL with ``HEAD`` as for any other upload.
An id already in use is a 409; without ``upload_id`` the server picks the id.

Protocol: https://tus.io/protocols/resumable-upload (version 1.0.0).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import json
import logging
import os
import re
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping
from dataclasses import asdict, dataclass, field
from email.utils import formatdate
from pathlib import Path
from typing import BinaryIO

from server.core.errors import LateralError, status_of
from server.core.storage.base import fsync_path
from server.field.uploads.metadata import CHECKSUM_ALGORITHMS, HeaderError, parse_checksum, parse_metadata

log = logging.getLogger(__name__)

TUS_VERSION = "1.0.0"
TUS_EXTENSIONS = ("creation", "creation-with-upload", "checksum", "termination", "expiration")
OFFSET_CONTENT_TYPE = "application/offset+octet-stream"
DEFAULT_MAX_SIZE = 100 * 1024 * 1024
DEFAULT_EXPIRES_AFTER = 24 * 3600
# Bytes read from a request body per write. gunicorn receives up to 1 MiB per recv()
# and keeps what a smaller read leaves over by copying it into a new buffer, so reads
# of its own size copy each byte once instead of several times (measured: bench_sync).
CHUNK_SIZE = 1024 * 1024
# Running hashes of unfinished uploads kept per process (an evicted one is rebuilt from disk).
_MAX_RUNNING_HASHES = 256
_UPLOAD_ID = re.compile(r"^[0-9a-f]{32}$")
# Staged files are named <owner tag>-<upload id>: the first hex digits of the owner's SHA-256.
_OWNER_TAG = 16
_KEY = re.compile(r"^[0-9a-f]{16}-[0-9a-f]{32}$")
# A body stream that fails mid-read means the client went away.
_DISCONNECTS = (OSError, EOFError, ConnectionError)
# The fields of an upload's record that change after creation (appended as they do).
_CHANGING = ("expires", "completed", "sha256")

Response = tuple[int, dict[str, str], bytes]
CompletionHook = Callable[["UploadInfo", Path], None]


@dataclass
class UploadInfo:
    """What the server records about one upload (the ``{id}.json`` file).

    Attributes:
        id: 32 hex digits, the last segment of the upload URL.
        length: Total bytes the client declared (``Upload-Length``).
        owner: Id of the user who created it; nobody else can see it.
        metadata: Decoded ``Upload-Metadata`` (e.g. ``filename``, ``sha256``).
        created: Unix time of creation.
        expires: Unix time after which an unfinished upload is gone; each
            accepted PATCH pushes it forward.
        completed: True once the completion hook has succeeded.
        sha256: Hex SHA-256 of the whole upload, set once the last byte arrived
            (computed while receiving), before the completion hook runs.
        offset: Bytes received so far (read from the data file, not stored).
    """

    id: str
    length: int
    owner: str
    metadata: dict[str, str | None] = field(default_factory=dict)
    created: float = 0.0
    expires: float = 0.0
    completed: bool = False
    sha256: str | None = None
    offset: int = 0

    @property
    def key(self) -> str:
        """The staged files' name: the id scoped to its owner."""
        return _key(self.owner, self.id)


class UploadRejected(LateralError):
    """Raised by a completion hook to refuse a finished upload (e.g. not a photo).

    The server discards the upload and answers the final PATCH with the code's status
    (from the catalogue) and the error body, so the field client can tell the inspector why.
    """


class UploadDeferred(LateralError):
    """Raised by a completion hook that cannot store a finished upload *yet*.

    A full disk (``insufficient_storage``) or a blob store that is not answering
    (``store_unavailable``): the bytes stay in staging, the upload is not complete, and
    the same zero-byte PATCH (or a HEAD and PATCH) retries the hook once the store is
    back. Nothing counts as stored. ``retry_after`` (seconds) becomes ``Retry-After``.
    """

    def __init__(self, code: str, message: str, retry_after: int | None = None) -> None:
        super().__init__(code, message,
                         headers={"Retry-After": str(retry_after)} if retry_after is not None else None)
        self.retry_after = retry_after


# A write refused for want of space (or quota): the client may retry once space is freed.
NO_SPACE = frozenset({errno.ENOSPC, errno.EDQUOT})
DISK_FULL_MESSAGE = "the server's disk is full; the bytes received so far are kept, try again later"


class TusServer:
    """tus 1.0.0 request handling over a local staging directory.

    Args:
        staging_dir: Where partial uploads live; local disk, not shared with the
            blob store.
        on_complete: Called once with ``(info, data_path)`` when the last byte
            arrives; typically validates the photo and moves it to the blob store.
            Where it keeps the bytes it must make them durable (the blob stores
            fsync or upload them): the last PATCH is not fsynced twice.
            If it raises, the upload stays complete-but-unprocessed and a PATCH
            of zero bytes at the final offset runs it again.
        max_size: Largest ``Upload-Length`` accepted (``Tus-Max-Size``).
        expires_after: Seconds an unfinished upload survives without progress.
        chunk_size: Bytes read from the request body per write.
        lock_timeout: Seconds a PATCH waits for another PATCH on the same upload.
        clock: Returns Unix time; injectable for tests.
    """

    def __init__(
        self,
        staging_dir: str | os.PathLike,
        on_complete: CompletionHook | None = None,
        *,
        max_size: int = DEFAULT_MAX_SIZE,
        expires_after: float = DEFAULT_EXPIRES_AFTER,
        chunk_size: int = CHUNK_SIZE,
        lock_timeout: float = 10.0,
        clock: Callable[[], float] = time.time,
        max_staged_per_owner: int | None = None,
    ) -> None:
        self.staging_dir = Path(staging_dir)
        self.staging_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        self.on_complete = on_complete
        self.max_size = max_size
        self.max_staged_per_owner = max_staged_per_owner
        self.expires_after = expires_after
        self.chunk_size = chunk_size
        self.lock_timeout = lock_timeout
        self.clock = clock
        self._hashes: OrderedDict[str, tuple[int, hashlib._Hash]] = OrderedDict()
        self._hashes_lock = threading.Lock()

    # -- dispatch -----------------------------------------------------------

    def handle(
        self,
        method: str,
        upload_id: str | None,
        headers: Mapping[str, str],
        body: BinaryIO | None,
        owner_id: str,
        location_base: str = "",
    ) -> Response:
        """Answer one tus request.

        Args:
            method: HTTP method (after any ``X-HTTP-Method-Override``).
            upload_id: Last URL segment, or ``None`` for the collection URL.
            headers: Request headers (any case).
            body: Readable request body, read in chunks (PATCH only).
            owner_id: The authenticated user.
            location_base: URL of the collection, prefixed to new upload ids in
                ``Location``.

        Returns:
            ``(status, headers, body)``.
        """
        h = {k.lower(): v for k, v in headers.items()}
        method = method.upper()
        try:
            if method == "OPTIONS":
                return self.options()
            if h.get("tus-resumable") != TUS_VERSION:
                return _refuse(LateralError("tus_version_required", "Tus-Resumable 1.0.0 is required",
                                            headers={"Tus-Version": TUS_VERSION}))
            if upload_id is None:
                if method == "POST":
                    return self.create(h, owner_id, location_base, body)
                return _refuse(LateralError("method_not_allowed", "method not allowed on the collection"))
            if method == "HEAD":
                return self.head(upload_id, owner_id)
            if method == "PATCH":
                return self.patch(upload_id, h, body, owner_id)
            if method == "DELETE":
                return self.delete(upload_id, owner_id)
            return _refuse(LateralError("method_not_allowed", "method not allowed on an upload"))
        except LateralError as refusal:
            return _refuse(refusal)
        except OSError as exc:
            if exc.errno not in NO_SPACE:
                raise
            log.warning("tus %s: no space left for staging (%s)", method, exc)
            return _refuse(LateralError("insufficient_storage", DISK_FULL_MESSAGE))

    # -- the protocol -------------------------------------------------------

    def options(self) -> Response:
        """Capabilities (tus core §OPTIONS)."""
        return _reply(
            204,
            {
                "Tus-Version": TUS_VERSION,
                "Tus-Extension": ",".join(TUS_EXTENSIONS),
                "Tus-Max-Size": str(self.max_size),
                "Tus-Checksum-Algorithm": ",".join(CHECKSUM_ALGORITHMS),
            },
        )

    def create(
        self,
        h: Mapping[str, str],
        owner_id: str,
        location_base: str = "",
        body: BinaryIO | None = None,
    ) -> Response:
        """Start an upload (creation); ``Upload-Length`` is required.

        With ``Content-Type: application/offset+octet-stream`` the request body is
        the upload's first bytes (creation-with-upload), appended as a ``PATCH`` at
        offset 0 would be; the answer is 201 with ``Location`` and ``Upload-Offset``
        (or, if the bytes are refused, that refusal with ``Location`` so the
        client can carry on at the upload it created).
        """
        if "upload-defer-length" in h:
            raise LateralError("bad_request", "Upload-Defer-Length is not supported")
        length = _non_negative_int(h.get("upload-length"), "Upload-Length")
        if length > self.max_size:
            raise LateralError("too_large", f"Upload-Length exceeds Tus-Max-Size {self.max_size}")
        if self.max_staged_per_owner is not None:
            staged = self.staged_bytes(owner_id)
            if staged + length > self.max_staged_per_owner:
                raise LateralError("upload_quota_exceeded",
                                   f"your unfinished uploads hold {staged:,} bytes; with {length:,} more they would "
                                   f"pass {self.max_staged_per_owner:,}: finish or cancel one first")
        try:
            metadata = parse_metadata(h.get("upload-metadata"))
        except HeaderError as exc:
            raise LateralError("bad_request", str(exc)) from None
        wanted = metadata.get("upload_id")
        if wanted is not None and not _UPLOAD_ID.match(wanted):
            raise LateralError("bad_request", "upload_id must be 32 lower-case hex digits")
        now = self.clock()
        info = UploadInfo(
            id=wanted or uuid.uuid4().hex,
            length=length,
            owner=str(owner_id),
            metadata=metadata,
            created=now,
            expires=now + self.expires_after,
        )
        try:
            self._data_file(info.key).touch(mode=0o600, exist_ok=False)  # becomes the photo's blob
        except FileExistsError:
            # Only the caller's own upload can be there (ids are scoped per user): HEAD it.
            raise LateralError("upload_exists",
                               "you already have an upload with this upload_id; ask its URL with HEAD") from None
        self._create_record(info)
        location = f"{location_base.rstrip('/')}/{info.id}"
        if _carries_bytes(h):
            try:
                status, headers, payload = self.patch(info.id, {**h, "upload-offset": "0"}, body, owner_id)
            except LateralError as refusal:
                status, headers, payload = _refuse(refusal)
            headers["Location"] = location
            return (201 if status == 204 else status), headers, payload
        return _reply(201, {"Location": location, **self._progress_headers(info)})

    def head(self, upload_id: str, owner_id: str) -> Response:
        """Where the upload stands (core §HEAD); never cached.

        Waits for a PATCH in flight on the same upload, so a client resuming after
        a dropped connection reads the offset the server finally committed.
        """
        with self._locked(_key(owner_id, upload_id)):
            info = self._load(upload_id, owner_id)
        headers = self._progress_headers(info)
        headers["Upload-Length"] = str(info.length)
        headers["Cache-Control"] = "no-store"
        return _reply(200, headers)

    def patch(
        self, upload_id: str, h: Mapping[str, str], body: BinaryIO | None, owner_id: str
    ) -> Response:
        """Append bytes at ``Upload-Offset`` (core §PATCH, checksum extension)."""
        content_type = h.get("content-type", "").split(";")[0].strip().lower()
        if content_type != OFFSET_CONTENT_TYPE:
            raise LateralError("unsupported_media_type", f"Content-Type must be {OFFSET_CONTENT_TYPE}")
        offset = _non_negative_int(h.get("upload-offset"), "Upload-Offset")
        declared = None
        if h.get("content-length"):
            declared = _non_negative_int(h.get("content-length"), "Content-Length")
        checksum = None
        if h.get("upload-checksum"):
            try:
                checksum = parse_checksum(h["upload-checksum"])
            except HeaderError as exc:
                raise LateralError("bad_request", str(exc)) from None
        with self._locked(_key(owner_id, upload_id)):
            info = self._load(upload_id, owner_id)
            if offset != info.offset:
                raise LateralError("offset_mismatch", f"Upload-Offset {offset} does not match {info.offset}")
            if declared is not None and offset + declared > info.length:
                raise LateralError("bad_request", "the chunk would pass Upload-Length")
            if info.completed:
                # Nothing more to write (the data file may now be a stored blob).
                return _reply(204, self._progress_headers(info))
            self._append(info, body, declared, checksum)
            info.expires = self.clock() + self.expires_after
            if info.offset == info.length:
                return self._complete(info)
            self._record_changes(info)
            return _reply(204, self._progress_headers(info))

    def delete(self, upload_id: str, owner_id: str) -> Response:
        """Discard an upload (termination extension)."""
        with self._locked(_key(owner_id, upload_id)):
            info = self._load(upload_id, owner_id)
            self._remove(info.key)
        return _reply(204)

    def staged_bytes(self, owner_id: str) -> int:
        """Bytes ``owner_id``'s unfinished, unexpired uploads have claimed (their ``Upload-Length``)."""
        now = self.clock()
        total = 0
        for info_path in self.staging_dir.glob(f"{_owner_tag(owner_id)}-*.json"):
            info = self._read(info_path.stem)
            if info is not None and not info.completed and info.expires >= now:
                total += info.length
        return total

    def purge_expired(self) -> int:
        """Remove every upload past its expiry; returns how many were removed.

        Meant for a periodic job. An upload that is mid-PATCH is left for the next
        run. A record that cannot be read (a creation or removal a crash cut short)
        goes once it is as old as an unfinished upload may get.
        """
        now = self.clock()
        removed = 0
        for info_path in self.staging_dir.glob("*.json"):
            upload_id = info_path.stem
            if _UPLOAD_ID.match(upload_id):
                # Staged before ids were scoped per user: nobody can reach it now.
                if info_path.stat().st_mtime + self.expires_after < now:
                    self._remove(upload_id)
                    removed += 1
                continue
            try:
                with self._locked(upload_id, timeout=0):
                    info = self._read(upload_id)
                    if info is None:
                        expired = info_path.stat().st_mtime + self.expires_after < now
                    else:
                        expired = info.expires < now
                    if expired:
                        self._remove(upload_id)
                        removed += 1
            except (LateralError, FileNotFoundError):
                continue
        return removed

    def data_path(self, upload_id: str, owner_id: str) -> Path:
        """File holding the bytes of ``owner_id``'s upload ``upload_id``."""
        return self._data_file(_key(owner_id, upload_id))

    def _data_file(self, key: str) -> Path:
        return self.staging_dir / f"{_checked_key(key)}.bin"

    # -- internals ------------------------------------------------------------

    def _append(
        self,
        info: UploadInfo,
        body: BinaryIO | None,
        declared: int | None,
        checksum: tuple[str, bytes] | None,
    ) -> None:
        """Stream the body onto the data file; update ``info.offset``.

        Without a checksum, bytes that reached the disk before a disconnect stay
        committed. With one, a partial or wrong chunk cannot be verified and is
        cut off again (460 for a mismatch).
        """
        start = info.offset
        remaining = info.length - start
        hasher = CHECKSUM_ALGORITHMS[checksum[0]]() if checksum else None
        running = self._running_hash(info.key, start)
        received = 0
        disconnected = False
        path = self._data_file(info.key)
        # Unbuffered: a write the disk refuses fails here, not later in close(), so a
        # full disk can be answered with the offset cut back to what was there.
        try:
            with path.open("ab", buffering=0) as out:
                while body is not None:
                    try:
                        # One byte more than fits, to notice a body longer than declared.
                        chunk = body.read(min(self.chunk_size, remaining - received + 1))
                    except _DISCONNECTS:
                        disconnected = True
                        break
                    if not chunk:
                        break
                    if received + len(chunk) > remaining:
                        out.truncate(start)
                        raise LateralError("bad_request", "the chunk would pass Upload-Length")
                    _write_all(out, chunk)
                    received += len(chunk)
                    running.update(chunk)
                    if hasher:
                        hasher.update(chunk)
                out.flush()
                if declared is not None and received < declared:
                    disconnected = True
                if hasher and (disconnected or hasher.digest() != checksum[1]):
                    out.truncate(start)
                    info.offset = start
                    if not disconnected:
                        raise LateralError("checksum_mismatch", "Upload-Checksum does not match; chunk discarded")
                    return
                if start + received < info.length or self.on_complete is None:
                    os.fsync(out.fileno())
                # else the last byte arrived: the completion hook stores the upload durably
                # (its fsync or upload is the one the disk must do), or _complete syncs it
                # before answering if the hook fails: one flush of the photo, not two.
        except LateralError:
            raise
        except BaseException:
            # Whatever failed (a full disk, the hash), the offset stays what it was: the
            # bytes of this request are cut off again, so the next PATCH lands right;
            # handle() answers a full disk with 507.
            with contextlib.suppress(OSError):
                os.truncate(path, start)
            info.offset = start
            raise
        info.offset = start + received
        self._keep_running_hash(info.key, info.offset, running)
        if disconnected:
            log.info("upload %s: client went away at offset %d", info.id, info.offset)

    def _complete(self, info: UploadInfo) -> Response:
        headers = self._progress_headers(info)
        info.sha256 = self._running_hash(info.key, info.length).hexdigest()
        if self.on_complete is not None:
            try:
                self.on_complete(info, self._data_file(info.key))
            except UploadRejected as rejected:
                self._remove(info.key)
                return _refuse(rejected)
            except UploadDeferred as deferred:
                log.warning("upload %s: not stored yet: %s", info.id, deferred)
                fsync_path(self._data_file(info.key))
                self._record_changes(info)
                return _refuse(deferred, headers)
            except Exception:
                # The bytes are kept safe; a zero-byte PATCH at the end retries the hook.
                log.exception("upload %s: completion hook failed", info.id)
                fsync_path(self._data_file(info.key))
                self._record_changes(info)
                return _refuse(LateralError("completion_failed", "the upload arrived but could not be processed"),
                               headers)
        info.completed = True
        self._record_changes(info)
        self._forget_running_hash(info.key)
        return _reply(204, headers)

    def _running_hash(self, upload_id: str, offset: int) -> hashlib._Hash:
        """A copy of the SHA-256 of the upload's first ``offset`` bytes.

        From memory when this process received them; else read back from disk
        once (another worker took the earlier PATCHes, or the server restarted).
        A copy, so a chunk that is discarded again leaves the kept state intact.
        """
        with self._hashes_lock:
            kept = self._hashes.get(upload_id)
            if kept is not None and kept[0] == offset:
                return kept[1].copy()
        digest = hashlib.sha256()
        with self._data_file(upload_id).open("rb") as f:
            remaining = offset
            while remaining:
                chunk = f.read(min(self.chunk_size, remaining))
                if not chunk:
                    break
                digest.update(chunk)
                remaining -= len(chunk)
        return digest

    def _keep_running_hash(self, upload_id: str, offset: int, digest: hashlib._Hash) -> None:
        with self._hashes_lock:
            self._hashes[upload_id] = (offset, digest)
            self._hashes.move_to_end(upload_id)
            while len(self._hashes) > _MAX_RUNNING_HASHES:
                self._hashes.popitem(last=False)

    def _forget_running_hash(self, upload_id: str) -> None:
        with self._hashes_lock:
            self._hashes.pop(upload_id, None)

    def _progress_headers(self, info: UploadInfo) -> dict[str, str]:
        return {
            "Upload-Offset": str(info.offset),
            "Upload-Expires": formatdate(info.expires, usegmt=True),
        }

    def _info_path(self, upload_id: str, owner_id: str) -> Path:
        return self._info_file(_key(owner_id, upload_id))

    def _info_file(self, key: str) -> Path:
        return self.staging_dir / f"{_checked_key(key)}.json"

    def _read(self, upload_id: str) -> UploadInfo | None:
        try:
            lines = self._info_file(upload_id).read_bytes().split(b"\n")
            size = self._data_file(upload_id).stat().st_size
        except FileNotFoundError:
            return None
        raw = _merge_record(lines)
        if raw is None:
            return None
        raw.pop("offset", None)
        try:
            return UploadInfo(**raw, offset=size)
        except TypeError:  # not a record this server wrote
            return None

    def _load(self, upload_id: str, owner_id: str) -> UploadInfo:
        info = self._read(_key(owner_id, upload_id)) if _UPLOAD_ID.match(upload_id or "") else None
        # Someone else's upload is indistinguishable from no upload.
        if info is None or info.owner != str(owner_id):
            raise LateralError("not_found", "no such upload")
        if info.expires < self.clock():
            raise LateralError("upload_expired", "the upload has expired")
        return info

    def _create_record(self, info: UploadInfo) -> None:
        """The upload's record, whole, as its first line.

        The caller has claimed the id (created its data file), so a record already
        there is a leftover of a removal a crash cut short, and is overwritten.
        """
        record = asdict(info)
        record.pop("offset")
        with self._info_file(info.key).open("wb") as f:
            f.write(json.dumps(record).encode("utf-8"))

    def _record_changes(self, info: UploadInfo) -> None:
        """Append the fields that change after creation as one more line.

        The newline goes first, so a line a crash cut short stays a line of its own
        (skipped when read) instead of swallowing the next.
        """
        changes = {name: getattr(info, name) for name in _CHANGING}
        with self._info_file(info.key).open("ab") as f:
            f.write(b"\n" + json.dumps(changes).encode("utf-8"))

    def _remove(self, upload_id: str) -> None:
        self._forget_running_hash(upload_id)
        # (.lock: the lock files of servers before the record carried the lock)
        for suffix in (".bin", ".json", ".lock"):
            (self.staging_dir / f"{upload_id}{suffix}").unlink(missing_ok=True)

    @contextlib.contextmanager
    def _locked(self, upload_id: str, timeout: float | None = None) -> Iterator[None]:
        """Exclusive per-upload lock across threads and worker processes.

        ``flock`` on the upload's record, which is never replaced (only appended
        to), so every process locks the same file. A request that waited while the
        upload was removed finds it gone when it reads the record.
        """
        timeout = self.lock_timeout if timeout is None else timeout
        deadline = time.monotonic() + timeout
        try:
            lock = open(self._info_file(upload_id), "rb")  # noqa: SIM115 (closed below)
        except FileNotFoundError:
            raise LateralError("not_found", "no such upload") from None
        with lock:
            while True:
                try:
                    fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() >= deadline:
                        raise LateralError("upload_locked", "another request is writing this upload") from None
                    time.sleep(0.05)
            try:
                yield
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)


def _merge_record(lines: list[bytes]) -> dict | None:
    """An upload's record from its lines: the first whole, later ones its changes.

    ``None`` if the first line is not a record (a creation cut short by a crash: the
    upload was never acknowledged). A later line that does not parse was cut short
    by a crash and is skipped.
    """
    try:
        record = json.loads(lines[0])
    except ValueError:
        return None
    if not isinstance(record, dict):
        return None
    for line in lines[1:]:
        try:
            change = json.loads(line) if line.strip() else None
        except ValueError:
            continue
        if isinstance(change, dict):
            record.update((k, v) for k, v in change.items() if k in _CHANGING)
    return record


def _carries_bytes(h: Mapping[str, str]) -> bool:
    """A creation request with upload bytes (creation-with-upload), even zero of them."""
    return h.get("content-type", "").split(";")[0].strip().lower() == OFFSET_CONTENT_TYPE


def _key(owner_id: str, upload_id: str) -> str:
    """Where ``owner_id``'s upload ``upload_id`` is kept: ids are scoped per user, so one user's
    id never collides with, or tells of, another's."""
    if not _UPLOAD_ID.match(upload_id or ""):
        raise LateralError("not_found", "no such upload")
    return f"{_owner_tag(owner_id)}-{upload_id}"


def _owner_tag(owner_id: str) -> str:
    return hashlib.sha256(str(owner_id).encode()).hexdigest()[:_OWNER_TAG]


def _checked_key(key: str) -> str:
    if not _KEY.match(key or ""):
        raise LateralError("not_found", "no such upload")
    return key


def _non_negative_int(value: str | None, name: str) -> int:
    # ASCII digits only ("²".isdigit() is true, int("²") fails) and within a 64-bit column.
    text = (value or "").strip()
    if not (text.isascii() and text.isdigit()) or len(text) > 19 or int(text) > 2**63 - 1:
        raise LateralError("bad_request", f"{name} must be a non-negative integer below 2^63")
    return int(text)


def _write_all(out, chunk: bytes) -> None:
    """Write the whole chunk to an unbuffered file (a raw write may take only part of it)."""
    view = memoryview(chunk)
    while view:
        view = view[out.write(view):]


def _reply(status: int, headers: dict[str, str] | None = None) -> Response:
    """A success: ``status`` with the protocol's headers and no body."""
    return status, {"Tus-Resumable": TUS_VERSION, **(headers or {})}, b""


def _refuse(error: LateralError, headers: dict[str, str] | None = None) -> Response:
    """A refusal in the project's shape, ``{"error": {"code", "message", "details"}}``; its
    status is the code's in the catalogue (``server/core/errors/catalogue.py``), as for any
    other answer of the app."""
    out = {"Tus-Resumable": TUS_VERSION, **(headers or {}), **error.headers, "Content-Type": "application/json"}
    body = {"error": {"code": error.code, "message": error.message, "details": error.details}}
    return status_of(error.code), out, json.dumps(body).encode("utf-8")
