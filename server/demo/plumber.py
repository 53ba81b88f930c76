"""The demo city's plumber: a verified license, a permit applied for online, and a CCTV
inspection whose video arrived, waiting in the superintendent's CCTV queue. Made through
the portal's own services (audited as the plumber's and the clerk's), in the seed's
transaction."""

from __future__ import annotations

import hashlib
import struct
import tempfile
from datetime import timedelta
from pathlib import Path

from sqlalchemy import select

from server.core import city
from server.core.accounts.models import User
from server.core.accounts.service import create_user
from server.core.extensions import db
from server.network.models import Parcel
from server.notices.models import Notice
from server.permits.models import Permit
from server.portal import cctv, plumber_permits, plumbers
from server.portal.cctv_models import CctvSubmittal
from server.portal.models import PlumberLicense

USERNAME = "plumber"
NAME = "Dana Kulig"
LICENSE = "MP-224466"


def _box(kind: bytes, payload: bytes) -> bytes:
    return struct.pack(">I", 8 + len(payload)) + kind + payload


def demo_video() -> bytes:
    """A small ISO media file (its boxes only: it stands for the plumber's recording)."""
    return (_box(b"ftyp", b"isom\x00\x00\x02\x00isommp41") + _box(b"moov", _box(b"mvhd", bytes(100)))
            + _box(b"mdat", bytes(range(256)) * 64))


def _quiet_parcels() -> list[int]:
    """Two parcels with no permit and no notice (the last of the city's)."""
    return list(db.session.scalars(select(Parcel.id).where(~Parcel.id.in_(select(Permit.parcel_id)),
                                                          ~Parcel.id.in_(select(Notice.parcel_id)))
                                   .order_by(Parcel.id.desc()).limit(2)))


def seed_plumber(password: str, blobs) -> CctvSubmittal:
    """The demo plumber (login ``plumber``), verified by the clerk, with an application sent
    online for a quiet parcel and a CCTV submittal of another, received."""
    applied_parcel, filmed_parcel = _quiet_parcels()
    today = city.current().today()
    clerk = db.session.scalar(select(User).filter_by(username="clerk"))
    # The published demo password would fail the policy; it exists only in a demo database.
    user = create_user(USERNAME, "plumber", password, NAME, enforce_policy=False)
    user.active = False
    db.session.add(PlumberLicense(user_id=user.id, license_number=LICENSE, expires_on=today + timedelta(days=300),
                                  email="dana@kulig-plumbing.example", phone="(608) 555-0190",
                                  company="Kulig Plumbing"))
    db.session.flush()
    plumbers.verify(user.id, clerk)
    applied = db.session.get_one(Parcel, applied_parcel).parcel_number
    plumber_permits.apply_for_permit(user, plumber_permits.Application(
        parcel_number=applied, kind="new_connection", connection_kind="gravity", connection_size_in=6.0,
        wastes="domestic sewage from a single-family dwelling", plumber_is_owner=True,
        work_description="New building sewer from the house to the main"))
    filmed = db.session.get_one(Parcel, filmed_parcel).parcel_number
    submittal = cctv.submit(user, cctv.Submission(
        parcel_number=filmed, inspected_on=(today - timedelta(days=1)).isoformat(),
        note="Camera from the cleanout to the main",
        observations=[{"code": "RFJ", "distance_ft": "12.5", "clock": "2", "grade": "2", "seconds": "4"},
                      {"code": "FC", "distance_ft": "31", "clock": "12", "grade": "3", "seconds": "9"}]))
    data = demo_video()
    sha = hashlib.sha256(data).hexdigest()
    if blobs is not None:  # into the blob store as a finished upload leaves it
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "lateral.mp4"
            path.write_bytes(data)
            blobs.put_file(path, sha)
    return cctv.attach_video(submittal.id, str(user.id), sha, "video/mp4", len(data), "lateral-cleanout.mp4")
