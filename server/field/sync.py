"""Field sync: push records idempotently, pull the assigned area from a cursor.

See ``docs/sync.md`` for the protocol. Each pushed record runs in its own savepoint;
the audit trail (``audit_events.id``) is the change sequence pulls follow.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import logging
import math
from collections.abc import Callable
from dataclasses import dataclass

import shapely
from marshmallow import Schema, ValidationError
from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm.exc import StaleDataError

from gis.geojson import GeometryError, parse_geometry
from server.core.access.roles import INSPECTOR, SUPERVISORS
from server.core.accounts.models import User
from server.core.audit import trail as audit
from server.core.audit.models import AuditEvent
from server.core.dialects import audit_high_water
from server.core.errors import LateralError, invalid_fields, status_of
from server.core.extensions import db
from server.core.models import utcnow
from server.field import events, outcomes
from server.field import inspections as inspection_service
from server.field.assignments import assignment_out, open_assignments
from server.field.checklist_templates import current_templates, template_out
from server.field.checklists import content_hash
from server.field.models import PUSH_KINDS, Assignment, Inspection, PushRecord, SyncConflict
from server.field.schemas import InspectionData, feature_edit_schema
from server.network import features as feature_service
from server.network.layers import LAYERS, pulled_layers
from server.network.models import Parcel

log = logging.getLogger(__name__)

# Layers an inspector may edit from the field (a tap's position, a lateral's
# material; ``Layer.field_editable``); other layers keep the feature API's roles.
FIELD_EDIT_LAYERS = frozenset(name for name, layer in LAYERS.items() if layer.field_editable)
# What a device pulls, in snapshot order (``Layer.pull_order``); edits name one of them.
PULL_LAYERS = tuple(layer.name for layer in pulled_layers())
FeatureEditData = feature_edit_schema(PULL_LAYERS)
#: The push outcome of an inspector's edit outside their assigned parcels.
PROPOSED = "proposed"
SUBJECT_LAYERS = {LAYERS[name].subject: name for name in PULL_LAYERS}
METRES_PER_DEGREE = 111_320.0


# ---------------------------------------------------------------------- push

def push(records: list[dict], actor: User) -> list[dict]:
    """Apply each record in its own savepoint; one result per record, in order."""
    return [push_record(record, actor) for record in records]


def push_record(record: dict, actor: User) -> dict:
    uuid, kind, data = str(record["uuid"]), record["kind"], record["data"]
    digest = content_hash({"kind": kind, "data": data})
    known = _known(uuid)
    if known is not None:
        return _resend(known, uuid, digest, data)
    savepoint = db.session.begin_nested()
    try:
        result = _apply(uuid, kind, data, digest, actor)
        savepoint.commit()
        return result
    except LateralError as exc:
        savepoint.rollback()
        code = "invalid" if exc.code == "invalid_fields" else exc.code
        return _refused(uuid, LateralError(code, exc.message), details=exc.details)
    except IntegrityError:
        # A concurrent request stored this UUID, corrected the same inspection, or
        # opened the same violation first; it has committed, so look again.
        savepoint.rollback()
        known = _known(uuid)
        if known is not None:
            return _resend(known, uuid, digest, data)
        lost = RECORD_KINDS[kind].lost_race(uuid, data)
        return lost if lost is not None else _retry(uuid)
    except StaleDataError:
        # A concurrent request changed a row this record changes (resolved the same
        # violation, complied the same notice) and committed first: the version read here
        # is gone. Sent again, the record is weighed against what that request left.
        savepoint.rollback()
        return _retry(uuid)
    except Exception:
        savepoint.rollback()
        log.exception("push of record %s failed", uuid)
        return _refused(uuid, LateralError("internal_error", "the server failed on this record; nothing was stored"))


def _known(uuid: str) -> PushRecord | None:
    return db.session.execute(select(PushRecord).filter_by(uuid=uuid)).scalar_one_or_none()


def _retry(uuid: str) -> dict:
    return _refused(uuid, LateralError("retry", "a simultaneous push touched the same records; send it again"))


def _result(uuid: str, status: int, code: str, message: str, server_id=None, **extra) -> dict:
    return {"uuid": uuid, "status": status, "code": code, "message": message, "server_id": server_id,
            "missing_photos": extra.pop("missing_photos", []), **extra}


def _refused(uuid: str, error: LateralError, **extra) -> dict:
    """A record's result for an error: its code's status from the catalogue, like an answer's."""
    return _result(uuid, status_of(error.code), error.code, error.message, **extra)


def _resend(known: PushRecord, uuid: str, digest: str, data) -> dict:
    if known.content_hash != digest:
        return _refused(uuid, LateralError(
            "uuid_reused", f"{uuid} was already pushed with other content; a correction is a new record "
                           "with its own UUID (for an inspection, naming the one it replaces)"),
            details={"received_at": known.received_at.isoformat()})
    extra = {"outcome": known.outcome}
    if known.conflict_id is not None:
        extra["conflict_id"] = known.conflict_id
    extra.update(RECORD_KINDS[known.kind].resent(known, data))
    return _result(uuid, 200, "duplicate", "already received; nothing changed", known.server_id, **extra)


def _load(schema, data) -> dict:
    try:
        return schema.load(data)
    except ValidationError as exc:
        raise invalid_fields(exc.messages) from None  # reported per record as "invalid"


def _apply(uuid: str, kind: str, data, digest: str, actor: User) -> dict:
    handler = RECORD_KINDS[kind]
    return handler.apply(uuid, _load(handler.schema(), data), digest, actor)


def _remember(uuid, kind, digest, outcome, server_id, conflict_id, actor) -> None:
    db.session.add(PushRecord(uuid=uuid, kind=kind, content_hash=digest, outcome=outcome,
                              server_id=server_id, conflict_id=conflict_id, user_id=actor.id))
    db.session.flush()


# --------------------------------------------------------------- inspections

def apply_inspection(uuid: str, data: dict, digest: str, actor: User) -> dict:
    """Store a finished inspection (or a correction naming the one it replaces)."""
    inspection, missing = inspection_service.create_inspection(uuid, data, digest, actor)
    _remember(uuid, "inspection", digest, "created", inspection.id, None, actor)
    return _result(uuid, 201, "created", f"inspection stored ({inspection.result})", inspection.id,
                   missing_photos=missing, result=inspection.result)


def _inspection_resent(known: PushRecord, data: dict) -> dict:
    # A resend still learns which photos the server lacks, and the evaluation it got.
    digests = {p.get("sha256") for p in data.get("photos") or [] if isinstance(p, dict)}
    extra = {"missing_photos": inspection_service.missing_photos(digests)}
    inspection = db.session.get(Inspection, known.server_id) if known.server_id else None
    if inspection is not None:
        extra["result"] = inspection.result
    return extra


def _inspection_lost_race(uuid: str, data) -> dict | None:
    # The unique replaces_id: another correction of the same inspection committed first.
    if isinstance(data, dict) and data.get("replaces"):
        return _refused(uuid, LateralError("already_replaced", "another correction of this inspection arrived first"))
    return None


# ------------------------------------------------------------- feature edits

def _may_edit(layer_name: str, user: User) -> bool:
    layer = LAYERS[layer_name]
    return user.role in layer.write_roles or (layer_name in FIELD_EDIT_LAYERS and user.role == INSPECTOR)


def _validate_edit(layer, edit: dict) -> None:
    """Refuse a malformed edit now, so a conflict only ever holds an applicable change."""
    if edit.get("properties"):
        try:
            layer.properties().load(edit["properties"], partial=True)
        except ValidationError as exc:
            raise LateralError("invalid", "the edit's properties break the layer's contract",
                               {"fields": {"properties": exc.messages}}) from None
    if edit.get("geometry") is not None:
        try:
            parse_geometry(edit["geometry"], layer.geometry_types)
        except GeometryError as exc:
            raise LateralError("invalid", f"geometry: {exc}", {"fields": {"geometry": [str(exc)]}}) from None


def feature_parcel(layer_name: str, obj) -> int | None:
    """The parcel a network feature serves, along its layer's ``parcel_path`` (a lateral's
    own; a tap's or a tracer wire's lateral's); None for the shared network (manholes,
    mains) or a path that ends short of a parcel."""
    layer = LAYERS[layer_name]
    if not layer.parcel_path:
        return None
    row, at = obj, layer
    for column in layer.parcel_path[:-1]:
        if getattr(row, column) is None:
            return None
        model = at.references[column]
        row = db.session.get(model, getattr(row, column))
        if row is None:
            return None
        at = next(lay for lay in LAYERS.values() if lay.model is model)
    return getattr(row, layer.parcel_path[-1])


def outside_assignments(layer_name: str, obj, actor: User) -> bool:
    """Whether an inspector's edit reaches past the parcels assigned to them (open or done,
    not cancelled): such an edit is only a proposal for the superintendent."""
    if actor.role != INSPECTOR or layer_name not in FIELD_EDIT_LAYERS:
        return False
    parcel_id = feature_parcel(layer_name, obj)
    if parcel_id is None:
        return True
    return db.session.scalar(
        select(Assignment.id).where(Assignment.inspector_id == actor.id, Assignment.parcel_id == parcel_id,
                                    Assignment.status.in_(("open", "done"))).limit(1)) is None


def apply_feature_edit(uuid: str, edit: dict, digest: str, actor: User) -> dict:
    """Apply an edit made from ``base_version``; hold it as a conflict if stale, or as a
    proposal when an inspector edits network outside their assigned parcels."""
    layer = LAYERS[edit["layer"]]
    if not _may_edit(layer.name, actor):
        raise LateralError("forbidden", f"{actor.role}s do not edit {layer.name} from the field")
    obj = db.session.get(layer.model, edit["id"])
    if obj is None:
        raise LateralError("unknown_feature", f"no {layer.subject.replace('_', ' ')} with id {edit['id']}")
    _validate_edit(layer, edit)
    if outside_assignments(layer.name, obj, actor):
        conflict = _hold_conflict(uuid, layer, obj, edit, actor, why=PROPOSED)
        _remember(uuid, "feature_edit", digest, PROPOSED, None, conflict.id, actor)
        return _result(uuid, 202, PROPOSED,
                       f"{layer.subject.replace('_', ' ')} {obj.id} is outside the parcels assigned to you; "
                       f"the edit is held as proposal {conflict.id} for the superintendent and was not applied",
                       conflict_id=conflict.id, current_version=obj.version)
    if obj.version != edit["base_version"]:
        conflict = _hold_conflict(uuid, layer, obj, edit, actor)
        _remember(uuid, "feature_edit", digest, "stale_version", None, conflict.id, actor)
        return _refused(uuid, LateralError(
            "stale_version", f"{layer.subject.replace('_', ' ')} {obj.id} is at version {obj.version}, not "
                             f"{edit['base_version']}; the edit is held as conflict {conflict.id} for the "
                             "superintendent and was not applied"),
            conflict_id=conflict.id, current_version=obj.version)
    _, version = feature_service.update_feature(layer, obj.id, edit["base_version"], edit.get("geometry"),
                                                edit.get("properties"), actor)
    _remember(uuid, "feature_edit", digest, "created", obj.id, None, actor)
    return _result(uuid, 201, "created", f"{layer.subject.replace('_', ' ')} {obj.id} updated", obj.id,
                   version=version)


def _hold_conflict(uuid: str, layer, obj, edit: dict, actor: User, why: str = "stale_version") -> SyncConflict:
    current, _ = feature_service.feature_text_by_id(layer, obj.id)
    conflict = SyncConflict(
        record_uuid=uuid, layer=layer.name, feature_id=obj.id, base_version=edit["base_version"],
        current_version=obj.version, current=json.loads(current),
        proposed={"properties": edit.get("properties"), "geometry": edit.get("geometry")},
        status="open", created_by_id=actor.id)
    db.session.add(conflict)
    db.session.flush()
    audit.record("hold", "sync_conflict", conflict.id, None,
                 {"layer": layer.name, "feature_id": obj.id, "base_version": edit["base_version"],
                  "current_version": obj.version, "proposed": conflict.proposed, "why": why}, actor)
    return conflict


def list_conflicts(status: str) -> list[SyncConflict]:
    return list(db.session.execute(
        select(SyncConflict).filter_by(status=status).order_by(SyncConflict.id)).scalars())


def resolve_conflict(conflict_id: int, decision: str, actor: User) -> SyncConflict:
    """Apply the held edit on top of the feature as it is now, or discard it."""
    conflict = db.session.get(SyncConflict, conflict_id)
    if conflict is None:
        raise LateralError("not_found", f"no sync conflict {conflict_id}")
    if conflict.status != "open":
        raise LateralError("already_resolved", f"conflict {conflict_id} was already {conflict.status}")
    before = {"status": conflict.status}
    if decision == "apply":
        layer = LAYERS[conflict.layer]
        obj = db.session.get(layer.model, conflict.feature_id)
        if obj is None:
            raise LateralError("feature_gone", f"{layer.subject} {conflict.feature_id} no longer exists")
        _, version = feature_service.update_feature(
            layer, obj.id, obj.version, conflict.proposed.get("geometry"),
            conflict.proposed.get("properties"), actor)
        conflict.applied_version = version
    conflict.status = "applied" if decision == "apply" else "discarded"
    conflict.resolved_by_id = actor.id
    conflict.resolved_at = utcnow()
    db.session.flush()
    audit.record("resolve", "sync_conflict", conflict.id, before,
                 {"status": conflict.status, "applied_version": conflict.applied_version}, actor)
    return conflict


# ------------------------------------------------------------- record kinds

def _nothing_more(known: PushRecord, data) -> dict:
    return {}


def _no_race(uuid: str, data) -> dict | None:
    return None


@dataclass(frozen=True)
class RecordKind:
    """How the server takes one kind of pushed record (``docs/sync.md``, Push).

    Attributes:
        name: The record's ``kind`` on the wire and in ``push_records.kind``.
        schema: The marshmallow schema its ``data`` is loaded with.
        apply: ``(uuid, loaded data, digest, actor) -> result``: stores the record and
            remembers its UUID (``_remember``) in the record's savepoint.
        resent: ``(known PushRecord, data) -> extra result fields`` for a repeat.
        lost_race: ``(uuid, data) -> result or None`` when storing hit a unique constraint
            and the UUID is still unknown: the answer naming the race this kind can
            lose; ``None`` asks the client to send it again.
    """

    name: str
    schema: type[Schema]
    apply: Callable[[str, dict, str, User], dict]
    resent: Callable[[PushRecord, dict], dict] = _nothing_more
    lost_race: Callable[[str, dict], dict | None] = _no_race


# The one table of record kinds. Its names are the stored vocabulary ``PUSH_KINDS``
# (the push schema's ``OneOf`` and ``push_records``' CHECK come from that tuple); a
# kind added to one and not the other fails here, at import.
RECORD_KINDS: dict[str, RecordKind] = {kind.name: kind for kind in (
    RecordKind("inspection", InspectionData, apply_inspection, _inspection_resent, _inspection_lost_race),
    RecordKind("feature_edit", FeatureEditData, apply_feature_edit),
)}
if tuple(RECORD_KINDS) != PUSH_KINDS:
    raise RuntimeError(f"record kinds {tuple(RECORD_KINDS)} differ from PUSH_KINDS {PUSH_KINDS}")


# ---------------------------------------------------------------------- pull

class BadCursor(LateralError):
    def __init__(self):
        super().__init__("bad_cursor", "the cursor is not one this server issued; pull without it")


def encode_cursor(state: dict) -> str:
    raw = json.dumps(state, separators=(",", ":"), sort_keys=True).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(text: str | None) -> dict | None:
    if not text:
        return None
    try:
        state = json.loads(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)))
    except (binascii.Error, ValueError):
        raise BadCursor() from None
    if not isinstance(state, dict) or state.get("v") != 1 or state.get("m") not in ("snap", "inc"):
        raise BadCursor()
    return state


#: Whose tablet holds the whole city's network, to reach any parcel offline (the
#: superintendent's, who corrects the network from the field); an inspector's holds the
#: blocks of their assignments and a margin (``assigned_area``).
WHOLE_CITY_ROLES = SUPERVISORS
WHOLE_CITY = (-180.0, -90.0, 180.0, 90.0)


def assigned_area(parcel_ids: list[int], margin_m: float) -> tuple[float, float, float, float] | None:
    """Bounding box of the parcels, grown by ``margin_m`` metres; None for no parcels."""
    if not parcel_ids:
        return None
    geoms = db.session.execute(select(Parcel.geom.ST_AsBinary()).where(Parcel.id.in_(parcel_ids))).scalars()
    shapes = shapely.from_wkb([bytes(g) for g in geoms])
    if len(shapes) == 0:
        return None
    minx, miny, maxx, maxy = shapely.total_bounds(shapes)
    dy = margin_m / METRES_PER_DEGREE
    dx = margin_m / (METRES_PER_DEGREE * max(math.cos(math.radians((miny + maxy) / 2)), 0.01))
    return (minx - dx, miny - dy, maxx + dx, maxy + dy)


def _set_hash(parcel_ids: list[int]) -> str:
    return hashlib.sha256(",".join(map(str, sorted(set(parcel_ids)))).encode()).hexdigest()[:16]


def pull(actor: User, cursor_text: str | None, limit: int, margin_m: float) -> dict:
    """One page of what the caller's tablet needs (see docs/sync.md, Pull)."""
    state = decode_cursor(cursor_text)
    assignments = open_assignments(actor.id)
    parcel_ids = sorted({a.parcel_id for a in assignments})
    whole_city = actor.role in WHOLE_CITY_ROLES
    # The area held offline is part of what the cursor follows: a change of it is a new snapshot.
    set_hash = "city" if whole_city else _set_hash(parcel_ids)
    high_water = audit_high_water(db.session)
    reset = state is None or state.get("s") != set_hash
    if reset:
        state = {"v": 1, "s": set_hash, "m": "snap", "hw": high_water, "l": 0, "a": 0}
    area = WHOLE_CITY if whole_city else assigned_area(parcel_ids, margin_m)
    features = {name: [] for name in PULL_LAYERS}
    tombstones: list[dict] = []
    if state["m"] == "snap":
        state, more = _snapshot_page(state, area, limit, features)
    else:
        state, more = _changes_page(state, area, limit, high_water, features, tombstones)
    page = {
        "cursor": encode_cursor(state), "more": more, "reset": reset,
        "assignments": [_assignment_for_tablet(a) for a in assignments],
        "templates": [template_out(t) for t in current_templates()],
        "features": {name: [json.loads(text) for text in texts] for name, texts in features.items()},
        "tombstones": tombstones,
    }
    if not more:
        # What the inspector's work led to, once per pull (on its last page).
        results = outcomes.inspection_results(actor)
        page["results"] = results
        page["parcels"] = outcomes.parcel_details(
            actor, set(parcel_ids) | {r["parcel_id"] for r in results if r["parcel_id"] is not None})
    return page


def _assignment_for_tablet(a: Assignment) -> dict:
    """An assignment as pulled, with what the domains above add (a reinspection's notice)."""
    out = assignment_out(a)
    for added in events.announce(events.assignment_pulled, assignment=a):
        out.update(added or {})
    return out


def _snapshot_page(state: dict, area, limit: int, features: dict) -> tuple[dict, bool]:
    """Every feature in the area, layer by layer in id order, up to ``limit``."""
    budget = limit
    layer_index, after = state["l"], state["a"]
    while area is not None and layer_index < len(PULL_LAYERS) and budget > 0:
        layer = LAYERS[PULL_LAYERS[layer_index]]
        page = feature_service.list_features(layer, bbox=area, limit=budget, after=after or None)
        features[layer.name].extend(page.features)
        budget -= len(page.features)
        if page.next_after is None:
            layer_index, after = layer_index + 1, 0
        else:
            after = page.next_after
    if area is None or layer_index >= len(PULL_LAYERS):
        # Snapshot complete: changes from its high-water mark on come incrementally.
        return {"v": 1, "s": state["s"], "m": "inc", "a": state["hw"], "h": state["hw"]}, False
    return {**state, "l": layer_index, "a": after}, True


def _changes_page(state: dict, area, limit: int, high_water: int, features: dict,
                  tombstones: list) -> tuple[dict, bool]:
    """Features of the area changed since the cursor, and tombstones for those that left.

    A feature goes on the page of its *last* change up to the high-water mark, never
    on an earlier one: a page that sent a feature's current state at an earlier change
    would send it again at the later one. So the page takes features ordered by their
    last change and the cursor moves to the last one taken; every change is delivered
    exactly once, as the state it left.
    """
    last_change = func.max(AuditEvent.id).label("last_change")
    rows = db.session.execute(
        select(AuditEvent.subject_type, AuditEvent.subject_id, last_change)
        .where(AuditEvent.id > state["a"], AuditEvent.id <= high_water,
               AuditEvent.subject_type.in_(list(SUBJECT_LAYERS)))
        .group_by(AuditEvent.subject_type, AuditEvent.subject_id)
        .order_by(last_change).limit(limit + 1)).all()
    more = len(rows) > limit
    rows = rows[:limit]
    last = rows[-1].last_change if more else high_water
    # Since the tablet's snapshot: a feature in the area at any change since then may be
    # on the tablet, so one that is no longer in the area gets a tombstone.
    since = state.get("h", state["a"])
    by_subject: dict[str, list[int]] = {}
    for row in rows:
        by_subject.setdefault(row.subject_type, []).append(row.subject_id)
    for subject_type, ids in by_subject.items():
        layer_name = SUBJECT_LAYERS[subject_type]
        current = feature_service.features_by_ids(LAYERS[layer_name], ids, bbox=area) if area else {}
        features[layer_name].extend(current[fid] for fid in ids if fid in current)
        gone = [fid for fid in ids if fid not in current]
        if gone and area is not None:
            tombstones.extend({"layer": layer_name, "id": fid}
                              for fid in _were_in_area(subject_type, gone, since, last, shapely.box(*area)))
    return {"v": 1, "s": state["s"], "m": "inc", "a": last, "h": since}, more


def _were_in_area(subject_type: str, ids: list[int], since: int, until: int, box) -> list[int]:
    """Which of ``ids`` were in ``box`` before or after any change in (since, until]."""
    events = db.session.execute(
        select(AuditEvent.subject_id, AuditEvent.before, AuditEvent.after)
        .where(AuditEvent.subject_type == subject_type, AuditEvent.subject_id.in_(ids),
               AuditEvent.id > since, AuditEvent.id <= until))
    return sorted({fid for fid, before, after in events if _in_box(before, box) or _in_box(after, box)})


def _in_box(snapshot, box) -> bool:
    geometry = (snapshot or {}).get("geometry") if isinstance(snapshot, dict) else None
    if not geometry:
        return False
    try:
        return shapely.geometry.shape(geometry).intersects(box)
    except (ValueError, TypeError, AttributeError):
        return False
