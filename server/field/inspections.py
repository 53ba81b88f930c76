"""Receiving an inspection: check it, store it once, and act on what it found.

A failing answer opens a ``Violation`` keyed ``<RULE>|inspection|parcel:<id>`` (one
open violation per rule and parcel, however often it is found); each source of a
clear-water survey becomes a ``ClearWaterFinding``; what the inspection shows gone is
resolved by whoever hears :data:`server.field.events.inspection_stored` (the notices
domain: :mod:`server.notices.compliance`). Everything is written in the caller's
transaction (the push wraps each record in a savepoint).
"""

from __future__ import annotations

from datetime import UTC, datetime

from geoalchemy2.shape import from_shape, to_shape
from sqlalchemy import select

from gis.geojson import GeometryError, parse_geometry
from gis.rulebook import RulebookError
from server.core import city
from server.core.access.roles import INSPECTOR
from server.core.accounts.models import User
from server.core.audit import trail as audit
from server.core.errors import LateralError
from server.core.extensions import db
from server.core.models import as_utc
from server.field import events
from server.field.checklist_templates import get_template
from server.field.checklists import AnswerError, Failure, check_answers, clear_water_entries, evaluate
from server.field.models import Assignment, Inspection, InspectionPhoto, Photo
from server.network import features as feature_service
from server.network import findings
from server.network.layers import LAYERS
from server.network.models import Parcel
from server.rules.models import Violation

FINDING_SOURCES = {"roof_downspout", "foundation_drain", "sump_pump", "yard_drain", "other"}


def violation_key(rule_id: str, parcel_id: int) -> str:
    """The identity of an inspection's violation: one open per rule and parcel."""
    return f"{rule_id}|inspection|parcel:{parcel_id}"


def _invalid(fields: dict) -> LateralError:
    return LateralError("invalid", "; ".join(f"{k}: {', '.join(v)}" for k, v in fields.items()),
                        {"fields": fields})


def create_inspection(uuid: str, data: dict, content_hash: str, actor: User) -> tuple[Inspection, list[str]]:
    """Store one inspection (``data`` loaded by ``InspectionData``) and evaluate it.

    Returns:
        The new inspection and the digests of its photos not stored yet.

    Raises:
        LateralError: ``invalid`` for a broken record, ``unknown_*`` for an unknown
            reference, ``already_replaced`` when ``replaces`` names an inspection already
            corrected, ``not_your_inspection`` when it names someone else's.
    """
    template = get_template(data["template_id"], data["template_version"])
    if template is None:
        raise LateralError("unknown_template",
                           f"no checklist {data['template_id']!r} version {data['template_version']}")
    parcel = db.session.get(Parcel, data["parcel_id"])
    if parcel is None:
        raise LateralError("unknown_parcel", f"no parcel with id {data['parcel_id']}")
    try:
        point = parse_geometry(data["location"], ("Point",))
    except GeometryError as exc:
        raise _invalid({"location": [str(exc)]}) from None
    digests = {p["sha256"] for p in data["photos"]}
    try:
        check_answers(template.content, data["answers"], digests)
    except AnswerError as exc:
        raise _invalid({f"answers.{k}": v for k, v in exc.fields.items()}) from None
    # A domain above may refuse it before anything is written (a tap without its permit).
    events.announce(events.inspection_checking, template_id=template.template_id, parcel_id=parcel.id,
                    answers=data["answers"], actor=actor)
    replaced = _replaced(data["replaces"], parcel.id, data["template_id"], actor)
    failures = evaluate(template.content, data["answers"])
    inspection = Inspection(
        uuid=uuid, template_id=template.template_id, template_version=template.version,
        parcel_id=parcel.id, inspector_id=actor.id, geom=from_shape(point, srid=4326),
        # Stored in UTC: SQLite keeps no offset, so a device's local time would drift.
        started_at=data["started_at"].astimezone(UTC), finished_at=data["finished_at"].astimezone(UTC),
        answers=data["answers"],
        result="fail" if failures else "pass",
        failures=[{"item": f.item_id, "rule_id": f.rule_id, "message": f.message} for f in failures],
        violation_ids=[], finding_ids=[], content_hash=content_hash,
        replaces_id=replaced.id if replaced else None,
    )
    db.session.add(inspection)
    db.session.flush()
    for ref in _unique_refs(data["photos"]):
        db.session.add(InspectionPhoto(inspection_id=inspection.id, **ref))
    if replaced is not None:
        _withdraw_findings(replaced, actor)
    inspection.violation_ids = _open_violations(inspection, failures, point, template.content, actor)
    observed_on = city.current().day_of(data["finished_at"])
    inspection.finding_ids = _record_findings(inspection, template.content, point, observed_on, actor)
    # What the inspection disproves is the notices domain's to settle (server/notices/compliance.py).
    resolved = sorted({vid for ids in events.announce(events.inspection_stored, inspection=inspection,
                                                       observed_on=observed_on, actor=actor) for vid in ids or []})
    _complete_assignments(inspection)
    db.session.flush()
    audit.record("create", "inspection", inspection.id, None,
                 {**inspection_summary(inspection), "resolved_violation_ids": resolved}, actor)
    return inspection, missing_photos(digests)


def _unique_refs(photos: list[dict]) -> list[dict]:
    seen, refs = set(), []
    for p in photos:
        if (p["sha256"], p["item_id"]) not in seen:
            seen.add((p["sha256"], p["item_id"]))
            refs.append({"sha256": p["sha256"], "item_id": p["item_id"], "filename": p.get("filename")})
    return refs


def _replaced(replaces, parcel_id: int, template_id: str, actor: User) -> Inspection | None:
    """The inspection a correction replaces: the same parcel and checklist, not corrected
    yet, and the sender's own (a correction withdraws the inspection's findings and its
    evidence; nobody does that to another inspector's work)."""
    if replaces is None:
        return None
    old = db.session.execute(select(Inspection).filter_by(uuid=str(replaces))).scalar_one_or_none()
    if old is None:
        raise LateralError("unknown_replaces", f"no inspection {replaces} to replace; push it first")
    if old.inspector_id != actor.id:
        raise LateralError("not_your_inspection",
                           f"inspection {replaces} is another inspector's; a correction replaces only your own")
    if (old.parcel_id, old.template_id) != (parcel_id, template_id):
        raise _invalid({"replaces": ["a correction is of the same parcel and checklist"]})
    newer = db.session.execute(select(Inspection.uuid).filter_by(replaces_id=old.id)).scalar_one_or_none()
    if newer is not None:
        raise LateralError("already_replaced", f"inspection {replaces} was already replaced by {newer}",
                           {"replaced_by": newer})
    return old


def section_for(rule_id: str, fallback: str | None) -> str:
    """The section the city's rulebook cites for ``rule_id``, else the template's."""
    rulebook = city.current().rulebook
    section = rulebook.rule(rule_id).get("section")
    if section is None:
        try:
            section = rulebook.deadline(rule_id).get("section")
        except RulebookError:
            section = None
    return section or fallback or rule_id


def _open_violations(inspection: Inspection, failures: list[Failure], point, template: dict, actor) -> list[int]:
    """One open violation per failing rule on the parcel; an open one is found, not doubled."""
    ids: list[int] = []
    by_rule: dict[str, Failure] = {}
    for failure in failures:
        by_rule.setdefault(failure.rule_id, failure)
    for rule_id, failure in by_rule.items():
        key = violation_key(rule_id, inspection.parcel_id)
        found = db.session.execute(
            select(Violation).filter_by(key=key, status="open")).scalar_one_or_none()
        if found is None:
            found = _new_violation(inspection, failure, key, point, template)
            db.session.add(found)
            db.session.flush()
            audit.record("open", "violation", found.id, None,
                         {"rule_id": rule_id, "key": key, "inspection": inspection.uuid}, actor)
        ids.append(found.id)
    return ids


def _new_violation(inspection: Inspection, failure: Failure, key: str, point, template: dict) -> Violation:
    item = _item(template, failure.item_id)
    limit = item.get("pass_min", item.get("pass_max")) if item.get("type") == "number" else None
    return Violation(
        rule_id=failure.rule_id, section=section_for(failure.rule_id, failure.section), key=key,
        status="open", source="inspection", subject_type="parcel", subject_id=inspection.parcel_id,
        subjects=[["parcel", inspection.parcel_id], ["inspection", inspection.id]],
        parcel_id=inspection.parcel_id,
        measured=failure.value if limit is not None else None, limit=limit,
        unit=item.get("unit") if limit is not None else None,
        message=f"{failure.message} ({_where_found(inspection, template, item, failure.item_id)})",
        evidence=from_shape(point, srid=4326),
    )


def _where_found(inspection: Inspection, template: dict, item: dict, path: str) -> str:
    """Where a failure was found, as staff read it: the checklist's title, the city's day
    and the question asked (the entry's number in a group), never a uuid or item path."""
    entry = next((int(p) + 1 for p in path.split(".") if p.isdigit()), None)
    question = item.get("prompt") or item.get("id", path)
    day = city.current().day_of(inspection.finished_at).isoformat()
    return f"{template.get('title', 'inspection')} of {day}: {question}" + (f", entry {entry}" if entry else "")


def _item(template: dict, path: str) -> dict:
    parts = path.split(".")
    items = template["items"]
    item: dict = {}
    for part in parts:
        if part.isdigit():
            continue
        item = next(i for i in items if i["id"] == part)
        items = item.get("items", [])
    return item


def _record_findings(inspection: Inspection, template: dict, point, observed_on, actor) -> list[int]:
    """Each clear-water source becomes a finding, through the feature service (audited).

    ``observed_on`` is the day on the city's calendar, not UTC's nor the device's.
    """
    layer = LAYERS["findings"]
    observer = findings.observer_name(actor)
    ids = []
    for entry in clear_water_entries(template, inspection.answers):
        source = entry.get("source") if entry.get("source") in FINDING_SOURCES else "other"
        notes = (f"discharges to {entry.get('discharges_to', 'unknown')}; "
                 f"test result {entry.get('test_result', 'not recorded')}; inspection {inspection.uuid}")
        props = {"parcel_id": inspection.parcel_id, "source": source,
                 "connected_to_sanitary": entry.get("connected_to_sanitary", "unknown"),
                 "observed_on": observed_on.isoformat(), "observed_by": observer,
                 "method": entry.get("test"), "notes": notes}
        geometry = entry.get("location") or {"type": "Point", "coordinates": [point.x, point.y]}
        _, fid, _ = feature_service.create_feature(layer, geometry, props, actor)
        ids.append(fid)
    return ids


def _withdraw_findings(replaced: Inspection, actor) -> None:
    """A correction's findings stand in for the replaced inspection's."""
    layer = LAYERS["findings"]
    for fid in replaced.finding_ids or []:
        row = db.session.get(layer.model, fid)
        if row is not None:
            feature_service.delete_feature(layer, fid, row.version, actor)


def _complete_assignments(inspection: Inspection) -> None:
    open_ones = db.session.execute(select(Assignment).filter_by(
        inspector_id=inspection.inspector_id, parcel_id=inspection.parcel_id,
        template_id=inspection.template_id, status="open")).scalars()
    for assignment in open_ones:
        assignment.status = "done"
        assignment.completed_by_inspection_id = inspection.id
        audit.record("complete", "assignment", assignment.id, {"status": "open"},
                     {"status": "done", "inspection": inspection.uuid})


def missing_photos(digests) -> list[str]:
    """Of ``digests``, those with no stored photo yet (sorted)."""
    digests = set(digests)
    if not digests:
        return []
    stored = set(db.session.execute(select(Photo.sha256).where(Photo.sha256.in_(digests))).scalars())
    return sorted(digests - stored)


def inspection_summary(inspection: Inspection) -> dict:
    """What the audit trail keeps of an inspection (the answers stay on the row)."""
    return {"uuid": inspection.uuid, "template": f"{inspection.template_id} v{inspection.template_version}",
            "parcel_id": inspection.parcel_id, "result": inspection.result,
            "violation_ids": inspection.violation_ids, "finding_ids": inspection.finding_ids,
            "replaces_id": inspection.replaces_id}


def _iso(value: datetime | None) -> str | None:
    """ISO 8601 in UTC; SQLite hands back naive UTC."""
    if value is None:
        return None
    return as_utc(value).isoformat()


def inspection_out(inspection: Inspection) -> dict:
    """An inspection as the API shows it, with its photos and whether all arrived."""
    photos = db.session.execute(select(InspectionPhoto).filter_by(inspection_id=inspection.id)
                                .order_by(InspectionPhoto.id)).scalars().all()
    missing = set(missing_photos({p.sha256 for p in photos}))
    replaced_uuid = (db.session.get(Inspection, inspection.replaces_id).uuid
                     if inspection.replaces_id else None)
    superseded_by = db.session.execute(
        select(Inspection.uuid).filter_by(replaces_id=inspection.id)).scalar_one_or_none()
    point = to_shape(inspection.geom)
    return {
        "uuid": inspection.uuid, "id": inspection.id,
        "template_id": inspection.template_id, "template_version": inspection.template_version,
        "parcel_id": inspection.parcel_id, "inspector_id": inspection.inspector_id,
        "location": {"type": "Point", "coordinates": [point.x, point.y]},
        "started_at": _iso(inspection.started_at), "finished_at": _iso(inspection.finished_at),
        "received_at": _iso(inspection.received_at), "answers": inspection.answers,
        "result": inspection.result, "failures": inspection.failures,
        "violation_ids": inspection.violation_ids, "finding_ids": inspection.finding_ids,
        "resolved_violation_ids": list(db.session.scalars(
            select(Violation.id).filter_by(resolved_by_inspection_id=inspection.id).order_by(Violation.id))),
        "photos": [{"sha256": p.sha256, "item_id": p.item_id, "filename": p.filename,
                    "stored": p.sha256 not in missing} for p in photos],
        "photos_complete": not missing, "replaces": replaced_uuid, "superseded_by": superseded_by,
    }


def list_inspections(*, viewer: User, parcel_id=None, inspector=None, template=None,
                     limit: int = 100, after: int | None = None) -> tuple[list[Inspection], int | None]:
    """One page of inspections in id order after ``after``; inspectors see only their own.

    Returns:
        The page's inspections, and the id the next page starts after while inspections
        follow this page (``None`` on the last page, also when it holds exactly ``limit``).
    """
    stmt = select(Inspection.id, Inspection)
    if viewer.role == INSPECTOR:
        stmt = stmt.where(Inspection.inspector_id == viewer.id)
    if parcel_id is not None:
        stmt = stmt.where(Inspection.parcel_id == parcel_id)
    if inspector is not None:
        stmt = stmt.where(Inspection.inspector_id == inspector)
    if template is not None:
        stmt = stmt.where(Inspection.template_id == template)
    # The id leads the row: page_rows reads the next page's start from it.
    rows, next_after = feature_service.page_rows(stmt, Inspection.id, limit, after)
    return [row.Inspection for row in rows], next_after


def get_inspection(uuid: str, viewer: User) -> Inspection:
    inspection = db.session.execute(select(Inspection).filter_by(uuid=uuid)).scalar_one_or_none()
    if inspection is None or (viewer.role == INSPECTOR and inspection.inspector_id != viewer.id):
        raise LateralError("not_found", f"no inspection {uuid}")
    return inspection
