"""tuspy, wired to the local store and given the timeouts a field device needs.

tuspy resumes an upload when its URL storage knows the file: it asks the server for
the offset (``HEAD``) and continues from there. Here the URL storage *is* the SQLite
store, keyed by the photo's identity (inspection, item, SHA-256), so the URL is
committed the moment the server hands it out and a process killed mid-``PATCH``
resumes on restart instead of starting a second upload.

tuspy calls ``requests`` without a timeout and opens a connection per request; the
subclasses below send through the API's session (keep-alive, the same bearer token)
with the API's timeouts. One thing is added: :meth:`PhotoUploader.create_with_upload`,
tus creation-with-upload of an upload the client names itself (``upload_id``), so a
photo that fits in one chunk costs one request and a process killed inside that
request still knows the URL to resume at (the server's side: ``server/field/uploads/tus.py``).
"""

from __future__ import annotations

from base64 import b64encode
from dataclasses import replace
from urllib.parse import urljoin

import requests
from tusclient.exceptions import TusCommunicationError, TusUploadFailed
from tusclient.fingerprint.interface import Fingerprint
from tusclient.request import TusRequest
from tusclient.storage.interface import Storage
from tusclient.uploader import Uploader

from offline_client.http import Api
from offline_client.store import PhotoUpload, Store

CHUNK_SIZE = 4 * 1024 * 1024


class PhotoFingerprint(Fingerprint):
    """The photo's identity in the store, not a hash of the file tuspy would recompute."""

    def __init__(self, photo: PhotoUpload) -> None:
        self.key = f"{photo.inspection_uuid}|{photo.item_id}|{photo.sha256}"

    def get_fingerprint(self, fs) -> str:
        return self.key


class StoreUrlStorage(Storage):
    """tuspy's URL storage backed by the ``photos`` table (one row, one URL)."""

    def __init__(self, store: Store, photo: PhotoUpload) -> None:
        self.store = store
        self.photo = photo

    def get_item(self, key):
        return self.photo.upload_url

    def set_item(self, key, value) -> None:
        if value == self.photo.upload_url:
            return  # tuspy re-stores the URL it just read; keep the recorded offset
        self.store.set_upload_url(self.photo, value)
        self.photo = _with_url(self.photo, value)

    def remove_item(self, key) -> None:
        self.set_item(key, None)


def _with_url(photo: PhotoUpload, url: str | None) -> PhotoUpload:
    return replace(photo, upload_url=url, offset=0)


class _SessionTusRequest(TusRequest):
    """One PATCH through the API session, with its timeouts."""

    def __init__(self, uploader: PhotoUploader) -> None:
        super().__init__(uploader)
        self._api = uploader.api

    def perform(self) -> None:
        try:
            chunk = self.file.read(self._content_length)
            self.add_checksum(chunk)
            resp = self._api.session.patch(
                self._url, data=chunk, headers=self._request_headers, timeout=self._api.timeout
            )
            self.status_code = resp.status_code
            self.response_content = resp.content
            self.response_headers = {k.lower(): v for k, v in resp.headers.items()}
        except requests.RequestException as error:
            raise TusUploadFailed(error) from error
        finally:
            self.file.close()


class PhotoUploader(Uploader):
    """tuspy's ``Uploader`` sending through :class:`~offline_client.http.Api`."""

    def __init__(self, api: Api, *args, **kwargs) -> None:
        self.api = api
        # Set by create_with_upload: its 201 answered the request that carried the last byte.
        self.answered_complete = False
        super().__init__(*args, **kwargs)

    def get_offset(self) -> int:
        try:
            resp = self.api.session.head(self.url, headers=self.get_headers(), timeout=self.api.timeout)
        except requests.RequestException as error:
            raise TusCommunicationError(error) from error
        offset = resp.headers.get("upload-offset")
        if not _is_offset(offset):
            raise TusCommunicationError(
                f"offset request failed with status {resp.status_code}", resp.status_code, resp.content
            )
        return int(offset)

    def create_url(self) -> str:
        try:
            resp = self.api.session.post(
                self.client.url, headers=self.get_url_creation_headers(), timeout=self.api.timeout
            )
        except requests.RequestException as error:
            raise TusCommunicationError(error) from error
        url = resp.headers.get("location")
        if url is None:
            raise TusCommunicationError(
                f"upload creation failed with status {resp.status_code}", resp.status_code, resp.content
            )
        return urljoin(self.client.url, url)

    def create_with_upload(self) -> None:
        """Create the upload at ``self.url`` with one POST that carries the first chunk.

        ``self.url`` ends in a 32-hex-digit id the caller chose and stored; the server
        creates the upload under that id (409 if the id is taken). Afterwards
        ``self.offset`` is what the server holds.

        Raises:
            TusCommunicationError: the server refused (its status and body attached).
            TusUploadFailed: the network failed, or the answer was cut off.
        """
        upload_id = self.url.rstrip("/").rsplit("/", 1)[1]
        with self.get_file_stream() as stream:
            chunk = stream.read(self.get_request_length())
        headers = self.get_url_creation_headers()
        headers["upload-metadata"] = ",".join(
            [*self.encode_metadata(), f"upload_id {b64encode(upload_id.encode()).decode()}"])
        headers["content-type"] = "application/offset+octet-stream"
        if self.upload_checksum:
            digest = b64encode(self.checksum_algorithm(chunk).digest()).decode("ascii")
            headers["upload-checksum"] = f"{self.checksum_algorithm_name} {digest}"
        try:
            resp = self.api.session.post(self.client.url, data=chunk, headers=headers, timeout=self.api.timeout)
        except requests.RequestException as error:
            raise TusUploadFailed(error) from error
        offset = resp.headers.get("upload-offset")
        if resp.status_code != 201:
            raise TusCommunicationError(
                f"upload creation failed with status {resp.status_code}", resp.status_code, resp.content)
        if not _is_offset(offset):
            raise TusUploadFailed("the answer was cut off before its Upload-Offset")
        location = urljoin(self.client.url, resp.headers.get("location") or self.url)
        if location != self.url:  # a server that picks its own ids
            self.set_url(location)
        self.offset = int(offset)
        self.answered_complete = self.offset >= self.stop_at

    def _do_request(self) -> None:
        self.request = _SessionTusRequest(self)
        self.request.perform()
        if not 200 <= self.request.status_code < 300:
            raise TusUploadFailed("", self.request.status_code, self.request.response_content)
        if not _is_offset(self.request.response_headers.get("upload-offset")):
            # The connection closed inside the headers: http.client takes EOF for their
            # end. Treat it as the network failure it is; a HEAD will tell the offset.
            raise TusUploadFailed("the answer was cut off before its Upload-Offset")


def _is_offset(value: str | None) -> bool:
    return bool(value) and value.isdigit()
