"""What a letter shows besides words: the parcel's surroundings and the inspector's photos."""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

from flask import current_app
from geoalchemy2.shape import to_shape
from sqlalchemy import bindparam, literal, select

from server.core.dialects import bbox_filter
from server.core.extensions import db
from server.core.storage import BlobNotFound
from server.field.models import Inspection, InspectionPhoto
from server.network.models import Lateral, Parcel, SewerMain, Street
from server.notices.letters.documents import MapFeature
from server.notices.letters.notice import MAX_PHOTOS, thumbnail_dir
from server.notices.models import Notice

MAP_MARGIN = 0.6  # of the parcel's size, on each side
MAP_LIMIT = 40  # features per layer


@lru_cache(maxsize=4)
def _map_statements(dialect: str):
    """One statement per layer, built once: the bbox and parcel id are bound parameters."""
    bbox = tuple(bindparam(name) for name in ("minx", "miny", "maxx", "maxy"))
    statements = []
    for model, kind in ((Street, "street"), (Parcel, "parcel"), (SewerMain, "main"), (Lateral, "lateral")):
        label = Street.name if model is Street else literal("")
        stmt = select(model.geom, label).where(bbox_filter(model, bbox, dialect)).limit(MAP_LIMIT)
        if model is Parcel:
            stmt = stmt.where(Parcel.id != bindparam("parcel_id"))
        statements.append((stmt, kind))
    return tuple(statements)


def map_features(parcel: Parcel) -> tuple[MapFeature, ...]:
    """Streets (with their names), neighbouring parcels, mains and laterals around ``parcel`` for the small map."""
    minx, miny, maxx, maxy = to_shape(parcel.geom).bounds
    dx, dy = (maxx - minx) * MAP_MARGIN, (maxy - miny) * MAP_MARGIN
    params = {"minx": minx - dx, "miny": miny - dy, "maxx": maxx + dx, "maxy": maxy + dy, "parcel_id": parcel.id}
    features: list[MapFeature] = []
    for stmt, kind in _map_statements(db.session.get_bind().dialect.name):
        features += [MapFeature(to_shape(g), kind, label or "") for g, label in db.session.execute(stmt, params)]
    return tuple(features)


def _blob_store():
    """The photo blob store the app set up (``server/field/api/photos.py``), if any."""
    return current_app.extensions.get("lateral_blobs")


def photo_paths(notice: Notice) -> tuple[Path, ...]:
    """Photos of failed inspections of the parcel, newest first, as files on disk.

    Photos live in the blob store by SHA-256; each is copied once into the thumbnail
    folder so the letter code can shrink and embed it. No blob store configured, or
    a photo not uploaded yet: the letter goes without it.
    """
    store = _blob_store()
    if store is None:
        return ()
    digests = db.session.scalars(
        select(InspectionPhoto.sha256).join(Inspection, Inspection.id == InspectionPhoto.inspection_id)
        .where(Inspection.parcel_id == notice.parcel_id, Inspection.result == "fail")
        .order_by(Inspection.finished_at.desc(), InspectionPhoto.id)).all()
    paths: list[Path] = []
    for digest in dict.fromkeys(digests):
        path = thumbnail_dir() / f"photo-{digest}"
        if not path.exists():
            try:
                with store.open(digest) as src:
                    data = src.read()
            except (BlobNotFound, OSError):  # not uploaded yet: print without it
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_bytes(data)
            os.replace(tmp, path)
        paths.append(path)
        if len(paths) == MAX_PHOTOS:
            break
    return tuple(paths)
