"""CCTV submittals as a test makes them: a verified plumber, a lateral to film, video bytes
with the right signatures, and the tus requests a browser would send."""

from __future__ import annotations

import base64
import struct
from datetime import timedelta
from itertools import count

from sqlalchemy import select

from server.core import city
from server.core.accounts.service import create_user
from server.core.extensions import db
from server.core.models import utcnow
from server.portal.cctv_models import CctvSubmittal
from server.portal.models import PlumberLicense

PASSWORD = "pipe wrench and a level"
_numbers = count(1)


def add_plumber(username: str | None = None, verified: bool = True):
    """A plumber's login with a license good for a year (verified by the clerk unless not)."""
    n = next(_numbers)
    user = create_user(username or f"cctv-plumber{n}", "plumber", PASSWORD, f"Pat Plumber {n}")
    user.active = verified
    db.session.add(PlumberLicense(user_id=user.id, license_number=f"MP-{220000 + n}",
                                  expires_on=city.current().today() + timedelta(days=365),
                                  email=f"cctv-plumber{n}@example.org", verified_at=utcnow() if verified else None))
    db.session.flush()
    return user


def log_in(client, user) -> None:
    r = client.post("/login", data={"username": user.username, "password": PASSWORD})
    assert r.status_code == 302, r.get_data(as_text=True)


def session_token(client) -> str:
    client.get("/portal/plumbers/cctv/")  # any page makes the session's token
    with client.session_transaction() as session:
        return session["csrf_token"]


def _box(kind: bytes, payload: bytes) -> bytes:
    return struct.pack(">I", 8 + len(payload)) + kind + payload


def mp4_bytes(brand: bytes = b"isom", mdat: int = 4096) -> bytes:
    """An ISO base media file: ftyp, moov and mdat boxes (structure only, no playable frames)."""
    return (_box(b"ftyp", brand + b"\x00\x00\x02\x00" + brand + b"mp41") + _box(b"moov", _box(b"mvhd", bytes(100)))
            + _box(b"mdat", bytes(range(256)) * (mdat // 256)))


def webm_bytes(size: int = 2048) -> bytes:
    """An EBML header with DocType webm, then filler (structure only)."""
    header = b"\x42\x86\x81\x01\x42\xf7\x81\x01\x42\xf2\x81\x04\x42\xf3\x81\x08\x42\x82\x84webm"
    return b"\x1a\x45\xdf\xa3" + bytes([0x80 | len(header)]) + header + bytes(size)


def form(number: str, **extra) -> dict:
    """The submittal form for parcel ``number`` with two observations."""
    data = {"parcel_number": number, "inspected_on": city.current().today().isoformat(),
            "obs-1-code": "FM", "obs-1-distance_ft": "23.5", "obs-1-clock": "12", "obs-1-grade": "4",
            "obs-1-seconds": "1", "obs-1-remark": "under the driveway",
            "obs-2-code": "RMJ", "obs-2-distance_ft": "41", "obs-2-clock": "3", "obs-2-grade": "2",
            "obs-2-seconds": "", "obs-2-remark": ""}
    data.update(extra)
    return data


def submit(client, number: str, **extra):
    return client.post("/portal/plumbers/cctv/new", data={"csrf_token": session_token(client), **form(number, **extra)})


def latest() -> CctvSubmittal:
    return db.session.scalar(select(CctvSubmittal).order_by(CctvSubmittal.id.desc()).limit(1))


def _metadata(**values: str) -> str:
    return ",".join(f"{k} {base64.b64encode(v.encode()).decode()}" for k, v in values.items())


def upload(client, submittal_id: int, data: bytes, length: int | None = None, filename: str = "lateral.mp4"):
    """Create the upload with its bytes in one request (tus creation-with-upload), as the session's user."""
    return client.post("/api/v1/portal/cctv/uploads", data=data, headers={
        "Tus-Resumable": "1.0.0", "Upload-Length": str(len(data) if length is None else length),
        "Upload-Metadata": _metadata(submittal_id=str(submittal_id), filename=filename),
        "Content-Type": "application/offset+octet-stream", "X-CSRF-Token": session_token(client)})


def create_upload(client, submittal_id: int, length: int, filename: str = "lateral.mp4"):
    """Create an upload without bytes (tus creation); its URL is ``Location``."""
    return client.post("/api/v1/portal/cctv/uploads", headers={
        "Tus-Resumable": "1.0.0", "Upload-Length": str(length),
        "Upload-Metadata": _metadata(submittal_id=str(submittal_id), filename=filename),
        "X-CSRF-Token": session_token(client)})


def patch(client, location: str, offset: int, data: bytes):
    return client.patch(location, data=data, headers={
        "Tus-Resumable": "1.0.0", "Upload-Offset": str(offset), "Content-Type": "application/offset+octet-stream",
        "X-CSRF-Token": session_token(client)})


def head(client, location: str):
    return client.head(location, headers={"Tus-Resumable": "1.0.0"})
