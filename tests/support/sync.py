"""Records as a tablet sends them: surveys, feature edits, pushes and pulls, and the network
features and assignments they are made on."""

from __future__ import annotations

import uuid as uuid_module

from sqlalchemy import select

from server.core.accounts.models import User
from server.core.extensions import db
from server.field.models import Assignment
from server.network import features as feature_service
from server.network.layers import LAYERS
from tests.support.features import SAMPLES, X, Y

JPEG_SHA = "a" * 64


def make_feature(layer: str, geometry=None, **props) -> int:
    """Store a feature of ``layer`` (sample properties, overridden by ``props``); its id."""
    sample_geometry, base = SAMPLES[layer]
    _, fid, _ = feature_service.create_feature(LAYERS[layer], geometry or sample_geometry, {**base, **props}, None)
    db.session.commit()
    return fid


def assign(parcel_id: int, template_id: str, username: str = "inspector1") -> None:
    """Assign the parcel to ``username`` (once): their visits there count as evidence
    (server/notices/reinspections.py ``on_assignment``)."""
    inspector = db.session.scalar(select(User.id).filter_by(username=username))
    if db.session.scalar(select(Assignment.id).filter_by(inspector_id=inspector, parcel_id=parcel_id)) is None:
        db.session.add(Assignment(inspector_id=inspector, parcel_id=parcel_id, template_id=template_id))
        db.session.commit()


def new_uuid() -> str:
    return str(uuid_module.uuid4())


def location(dx=0.0001, dy=0.0001) -> dict:
    return {"type": "Point", "coordinates": [X + dx, Y + dy]}


def survey(parcel_id: int, sources=None, access="granted", **extra) -> dict:
    """A clear-water survey record's data; ``sources`` are group entries."""
    answers = {"access": access}
    if access == "granted":
        answers["sources"] = sources if sources is not None else []
    photos = [{"sha256": d, "item_id": "sources.photo", "filename": f"{d[:6]}.jpg"}
              for entry in (sources or []) for d in entry.get("photo", [])]
    return {"template_id": "clear-water-survey", "template_version": 1, "parcel_id": parcel_id,
            "location": location(), "started_at": "2026-11-30T09:00:00-06:00",
            "finished_at": "2026-11-30T09:40:00-06:00", "answers": answers, "photos": photos,
            "replaces": None, **extra}


def sump_pump(connected="yes", photo=JPEG_SHA) -> dict:
    return {"source": "sump_pump", "discharges_to": "sanitary_sewer" if connected == "yes" else "ground_surface",
            "connected_to_sanitary": connected, "test": "dye", "test_result": "positive" if connected == "yes"
            else "negative", "photo": [photo]}


def record(data: dict, kind="inspection", uuid=None) -> dict:
    return {"uuid": uuid or new_uuid(), "kind": kind, "data": data}


def push(client, headers, *records) -> list[dict]:
    response = client.post("/api/v1/sync/push", json={"records": list(records)}, headers=headers)
    assert response.status_code == 200, response.get_json()
    return response.get_json()["results"]


def assigned_tap() -> int:
    """A tap on the lateral of a parcel assigned to inspector1 (their edits apply there)."""
    parcel = make_feature("parcels", parcel_number="206-00901-0000")
    lateral = make_feature("laterals", parcel_id=parcel)
    inspector = db.session.scalar(select(User.id).filter_by(username="inspector1"))
    db.session.add(Assignment(inspector_id=inspector, parcel_id=parcel, template_id="clear-water-survey"))
    db.session.commit()
    return make_feature("taps", lateral_id=lateral)


def edit(tap_id: int, base_version: int, **props) -> dict:
    return record({"layer": "taps", "id": tap_id, "base_version": base_version, "properties": props},
                  kind="feature_edit")


def pull(client, headers, cursor=None, limit=None) -> dict:
    params = {k: v for k, v in (("cursor", cursor), ("limit", limit)) if v is not None}
    response = client.get("/api/v1/sync/pull", query_string=params, headers=headers)
    assert response.status_code == 200, response.get_json()
    return response.get_json()
