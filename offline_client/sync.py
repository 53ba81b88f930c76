"""Push, photo upload and pull against a Lateral server (protocol: ``docs/sync.md``).

Every step leaves the store consistent before it talks to the network and records
what it learned as soon as it learns it, so a kill at any instant costs at most a
resend, which the server recognises:

1. **push** — records are marked ``sent`` before the request; results settle them
   one by one (acknowledged, or rejected with the reason); a network error, 5xx or
   a cut-off answer puts the batch back in the queue with back-off.
2. **photos** — each photo the server lacks goes over tus; the client names the
   upload and stores its URL before the first byte, then one POST creates it with
   the first chunk (a whole photo, usually), so a restart resumes from the server's
   offset. A photo is marked uploaded only after the server confirms it holds the
   digest.
3. **pull** — pages applied with their cursor in one transaction.

Only one process syncs a profile at a time (an ``flock`` on ``sync.lock``).
"""

from __future__ import annotations

import fcntl
import json
import random
import threading
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path

from tusclient.client import TusClient
from tusclient.exceptions import TusCommunicationError

from offline_client.http import Api, ApiFailure, AuthRequired, SyncError, Transient
from offline_client.store import PhotoUpload, Store, utc_now_iso
from offline_client.tus import CHUNK_SIZE, PhotoFingerprint, PhotoUploader, StoreUrlStorage

PUSH_BATCH_RECORDS = 50
PUSH_BATCH_BYTES = 1024 * 1024  # well under the server's 2 MB body limit


class Busy(SyncError):
    """Another process is syncing this profile."""


@dataclass(frozen=True)
class Backoff:
    """Exponential back-off with jitter and a cap.

    The n-th consecutive failure waits ``min(cap, base * 2**(n-1))`` scaled by a
    random factor in [0.5, 1], so a crew of tablets coming back into signal together
    do not retry in lockstep.
    """

    base: float = 2.0
    cap: float = 300.0
    rng: Callable[[], float] = random.random

    def delay(self, attempts: int) -> float:
        ceiling = min(self.cap, self.base * 2 ** max(attempts - 1, 0))
        return ceiling * (0.5 + 0.5 * self.rng())


@dataclass
class SyncReport:
    """What one :meth:`Sync.sync` did."""

    acknowledged: int = 0
    rejected: int = 0
    retry: int = 0
    photos_uploaded: int = 0
    photos_rejected: int = 0
    photos_retry: int = 0
    pulled_pages: int = 0
    errors: list[str] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        return not (self.retry or self.photos_retry or self.errors)


class Sync:
    """Synchronises one profile's store with its server.

    Args:
        store: The profile.
        api: Built from the store's ``server_url``/``token`` settings if omitted.
        backoff: Retry policy for records and photos.
        chunk_size: Bytes per tus ``PATCH``.
    """

    def __init__(
        self, store: Store, api: Api | None = None, backoff: Backoff | None = None,
        chunk_size: int = CHUNK_SIZE,
    ) -> None:
        self.store = store
        if api is None:
            url = store.get("server_url")
            if not url:
                raise AuthRequired("not logged in: run 'lateral-field login URL USER'")
            api = Api(url, store.get("token"))
        self.api = api
        self.backoff = backoff or Backoff()
        self.chunk_size = chunk_size

    # ---------------------------------------------------------------- push
    def push(self, force: bool = False, report: SyncReport | None = None) -> SyncReport:
        """Send due outbox records in batches; ``force`` ignores back-off."""
        report = report or SyncReport()
        now = float("inf") if force else None
        sent_now: set[str] = set()
        while True:
            batch = [r for r in self.store.due_records(PUSH_BATCH_RECORDS, now) if r.uuid not in sent_now]
            batch = _fit(batch, PUSH_BATCH_BYTES)
            if not batch:
                return report
            sent_now.update(r.uuid for r in batch)
            self._push_batch(batch, report)

    def _push_batch(self, batch, report: SyncReport) -> None:
        uuids = [r.uuid for r in batch]
        self.store.mark_sent(uuids)
        try:
            results = self.api.push_raw(_push_body(batch))
        except (Transient, ApiFailure) as exc:
            # ApiFailure for a whole batch means the server refused its shape (size,
            # schema): keep the records and say why; a retry after an upgrade may pass.
            self.store.retry_later(uuids, str(exc), self.backoff.delay)
            report.retry += len(uuids)
            report.errors.append(str(exc))
            return
        answered = set()
        for result in results:
            answered.add(result["uuid"])
            if int(result["status"]) >= 500:
                self.store.retry_later([result["uuid"]], f"{result.get('code')}: {result.get('message')}",
                                       self.backoff.delay)
                report.retry += 1
            elif self.store.settle(result) == "acknowledged":
                report.acknowledged += 1
            else:
                report.rejected += 1
        unanswered = [u for u in uuids if u not in answered]
        if unanswered:
            self.store.retry_later(unanswered, "no result from the server", self.backoff.delay)
            report.retry += len(unanswered)

    # -------------------------------------------------------------- photos
    def upload_photos(
        self, force: bool = False, report: SyncReport | None = None, workers: int = 1
    ) -> SyncReport:
        """Upload every due photo of an acknowledged record.

        Args:
            force: Ignore back-off.
            report: Added to and returned.
            workers: Photos in flight at once; each worker has its own connection
                to the store and to the server.
        """
        report = report or SyncReport()
        photos = self.store.due_photos(float("inf") if force else None)
        if workers <= 1 or len(photos) <= 1:
            outcomes = [self._upload_one(photo) for photo in photos]
        else:
            local = threading.local()

            def run(photo: PhotoUpload):
                if not hasattr(local, "sync"):
                    local.sync = self._clone()
                return local.sync._upload_one(photo)

            with ThreadPoolExecutor(workers) as pool:
                outcomes = list(pool.map(run, photos))
        for outcome, error in outcomes:
            setattr(report, f"photos_{outcome}", getattr(report, f"photos_{outcome}") + 1)
            if error:
                report.errors.append(error)
        return report

    def _clone(self) -> Sync:
        token = self.api.session.headers.get("Authorization", "").removeprefix("Bearer ") or None
        return Sync(Store(self.store.dir, clock=self.store.clock), Api(self.api.base_url, token, self.api.timeout),
                    self.backoff, self.chunk_size)

    def _upload_one(self, photo: PhotoUpload) -> tuple[str, str | None]:
        """Upload one photo and record the outcome: (``uploaded``/``rejected``/``retry``, error)."""
        try:
            self._upload(photo)
        except _PhotoRefused as exc:
            self.store.photo_rejected(photo, str(exc))
            return "rejected", None
        except (SyncError, TusCommunicationError, OSError) as exc:
            self.store.photo_retry_later(photo, f"{exc.__class__.__name__}: {exc}", self.backoff.delay)
            return "retry", f"photo {photo.sha256[:12]}: {exc}"
        self.store.photo_uploaded(photo)
        return "uploaded", None

    def _upload(self, photo: PhotoUpload) -> None:
        if photo.upload_url is None and self.store.holds_uploaded(photo.sha256):
            return  # the same picture, attached elsewhere, is already on the server
        uploader = self._refused_or(photo, lambda: self._uploader(photo))
        # A 2xx to the request that carried the last byte means the server stored the
        # photo (its completion step answers 500 or 4xx otherwise).
        answered_complete = uploader.answered_complete
        while uploader.offset < photo.size:
            self._refused_or(photo, uploader.upload_chunk)
            answered_complete = uploader.offset >= photo.size
            if not answered_complete:
                self.store.set_offset(photo, uploader.offset)
        if not answered_complete and not self.api.has_photo(photo.sha256):
            # Every byte had arrived before this run, but the completion step may not
            # have finished (the server died, or answered 500): an empty PATCH at the
            # end runs it again.
            uploader.upload_chunk()
            if not self.api.has_photo(photo.sha256):
                raise Transient("the server has every byte but has not stored the photo yet")

    def _refused_or(self, photo: PhotoUpload, send):
        """``send()``, with the server's 4xx turned into what the photo's record needs."""
        try:
            return send()
        except TusCommunicationError as exc:
            if exc.status_code is not None and 400 <= exc.status_code < 500:
                self._client_error(photo, exc)
            raise

    def _uploader(self, photo: PhotoUpload) -> PhotoUploader:
        """A tuspy uploader standing at the server's offset of this photo's upload.

        A photo without an upload gets one named here (a UUID): its URL is committed to
        the store first, then one POST creates the upload with the first chunk. A
        stored URL is asked with HEAD; an upload the server no longer has (never
        created, expired, purged) is replaced by a new one.
        """
        client = TusClient(self.api.url("uploads"), headers=dict(self.api.session.headers))
        kwargs = dict(
            file_path=str(photo.path),
            client=client,
            chunk_size=self.chunk_size,
            metadata={
                "sha256": photo.sha256,
                "inspection_uuid": photo.inspection_uuid,
                "item_id": photo.item_id,
                "filename": photo.filename,
            },
            store_url=True,
            url_storage=StoreUrlStorage(self.store, photo),
            fingerprinter=PhotoFingerprint(photo),
        )
        if photo.upload_url is not None:
            try:
                uploader = PhotoUploader(self.api, **kwargs)  # HEADs the stored URL for the offset
                self.store.set_offset(photo, uploader.offset)  # the server's word on what arrived
                return uploader
            except TusCommunicationError as exc:
                if exc.status_code not in (404, 410):
                    raise
                photo = _forget_url(photo)
        # No upload yet: name it and store its URL before anything is sent.
        url = f"{self.api.url('uploads')}/{uuid.uuid4().hex}"
        self.store.set_upload_url(photo, url)
        photo = replace(photo, upload_url=url, offset=0)
        uploader = PhotoUploader(self.api, **{**kwargs, "store_url": False, "url_storage": None})
        uploader.url, uploader.offset = url, 0
        uploader.store_url, uploader.url_storage = True, StoreUrlStorage(self.store, photo)
        uploader.create_with_upload()
        if not uploader.answered_complete:
            self.store.set_offset(photo, uploader.offset)
        return uploader

    def _client_error(self, photo: PhotoUpload, exc: TusCommunicationError) -> None:
        status = exc.status_code
        if status == 401:
            raise AuthRequired("the server refused the device token; log in again") from exc
        if status in (404, 410):
            self.store.set_upload_url(photo, None)  # start a new upload next time
            return
        if status in (409, 423):
            return  # offset moved or a PATCH in flight: HEAD again next time
        code, message = _error_of(exc.response_content)
        raise _PhotoRefused(f"{status} {code}: {message}")

    # ---------------------------------------------------------------- pull
    def pull(self, limit: int | None = None, report: SyncReport | None = None) -> SyncReport:
        """Fetch pages until the server has no more."""
        report = report or SyncReport()
        while True:
            try:
                page = self.api.pull(self.store.get("cursor"), limit)
            except ApiFailure as exc:
                if exc.code != "bad_cursor" or self.store.get("cursor") is None:
                    raise
                self.store.set(cursor=None, snapshot_open=None)  # start over with a full snapshot
                continue
            self.store.apply_pull(page)
            report.pulled_pages += 1
            if not page.get("more"):
                self.store.set(last_pull=utc_now_iso())
                return report

    # ---------------------------------------------------------------- sync
    def sync(self, force: bool = True, pull: bool = True, workers: int = 1) -> SyncReport:
        """Push, upload photos, pull; ``last_sync`` is set only when all went through."""
        report = SyncReport()
        with self.exclusive():
            self.push(force, report)
            self.upload_photos(force, report, workers)
            if pull:
                try:
                    self.pull(report=report)
                except Transient as exc:
                    report.errors.append(f"pull: {exc}")
            if report.clean:
                self.store.set(last_sync=utc_now_iso())
        return report

    def sync_until_settled(
        self, deadline_s: float = 600.0, pull: bool = True, workers: int = 1, sleep=time.sleep
    ) -> SyncReport:
        """Repeat :meth:`sync`, honouring back-off, until nothing is left to send."""
        end = time.monotonic() + deadline_s
        while True:
            report = self.sync(force=False, pull=pull, workers=workers)
            status = self.store.status()
            if report.clean and not status["queued"] and not status["photos_pending"]:
                return report
            if time.monotonic() >= end:
                return report
            sleep(max(0.0, min(self.store.next_attempt_at() - self.store.clock(), end - time.monotonic())))

    @contextmanager
    def exclusive(self):
        path = Path(self.store.dir) / "sync.lock"
        with open(path, "a") as lock:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError as exc:
                raise Busy("another lateral-field process is syncing this profile") from exc
            try:
                yield
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)


class _PhotoRefused(Exception):
    """The server refused the photo itself (422 with a stable code)."""


def _fit(batch, max_bytes: int):
    """The longest prefix of ``batch`` under ``max_bytes`` (at least one record)."""
    kept, size = [], 0
    for record in batch:
        size += len(record.body.encode())
        if kept and size > max_bytes:
            break
        kept.append(record)
    return kept


def _push_body(batch) -> bytes:
    """The push request with each record's data spliced in as stored, byte for byte."""
    records = ",".join(
        f'{{"uuid":{json.dumps(r.uuid)},"kind":{json.dumps(r.kind)},"data":{r.body}}}' for r in batch
    )
    return f'{{"records":[{records}]}}'.encode()


def _forget_url(photo: PhotoUpload) -> PhotoUpload:
    return replace(photo, upload_url=None, offset=0)


def _error_of(content) -> tuple[str, str]:
    try:
        error = json.loads(content or b"{}").get("error") or {}
    except (ValueError, AttributeError):
        error = {}
    return error.get("code") or "refused", error.get("message") or ""
