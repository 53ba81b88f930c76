"""What the superintendent's pages read about violations: a filtered list, one violation with
its evidence, the open violations still waiting for a notice, and finished inspections.

Reads only; the writes stay in :mod:`server.rules.run` (a run),
:mod:`server.rules.violations` (a waiver) and :mod:`server.notices.drafts`.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta

import shapely
from geoalchemy2.shape import to_shape
from sqlalchemy import distinct, func, or_, select

from server.core.accounts.models import User
from server.core.extensions import db
from server.core.models import as_utc
from server.field.models import RESULTS, ChecklistTemplate, Inspection, InspectionPhoto, Photo, PushRecord, SyncConflict
from server.network.models import Parcel
from server.notices.drafts import kind_of, unnoticed_violations
from server.notices.models import Notice, NoticeViolation
from server.rules import violations as violation_service
from server.rules.models import STATUSES, Violation

LISTED = 200  # rows a page shows; the count says how many matched


@dataclass
class Filters:
    """The violation list's filters as the form sent them, checked."""

    rule_id: str = ""
    status: str = "open"
    place: str = ""  # part of a street address or a parcel number
    opened_from: date | None = None
    opened_to: date | None = None
    errors: dict[str, str] = field(default_factory=dict)

    def query(self) -> dict[str, str]:
        """The filters as query-string values (for links that keep them)."""
        out = {"rule_id": self.rule_id, "status": self.status, "place": self.place,
               "opened_from": self.opened_from.isoformat() if self.opened_from else "",
               "opened_to": self.opened_to.isoformat() if self.opened_to else ""}
        return {k: v for k, v in out.items() if v}


def _day(args, name: str, errors: dict[str, str]) -> date | None:
    value = (args.get(name) or "").strip()
    if not value:
        return None
    try:
        return date.fromisoformat(value)
    except ValueError:
        errors[name] = f"{value!r} is not a date (YYYY-MM-DD)"
        return None


def parse_filters(args) -> Filters:
    """The filters from a query string; what is wrong is in ``errors``, by field."""
    errors: dict[str, str] = {}
    status = (args.get("status") or "open").strip()
    if status not in (*STATUSES, "all"):
        errors["status"] = f"{status!r} is not a state (open, resolved, waived or all)"
    rule_id = (args.get("rule_id") or "").strip()
    if rule_id and rule_id not in rule_ids():
        errors["rule_id"] = f"no violation cites a rule {rule_id!r}"
    place = (args.get("place") or "").strip()
    if len(place) > 100:
        errors["place"] = "give at most 100 characters of a street or parcel number"
    f = Filters(rule_id, status, place, _day(args, "opened_from", errors), _day(args, "opened_to", errors), errors)
    if f.opened_from and f.opened_to and f.opened_from > f.opened_to:
        errors["opened_to"] = "the last day is before the first"
    return f


def rule_ids() -> list[str]:
    """Every rule a violation cites, and every registered rule."""
    stored = db.session.scalars(select(distinct(Violation.rule_id))).all()
    return sorted({*stored, *(r["id"] for r in violation_service.rule_registry())})


def _escaped(text: str) -> str:
    return text.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def search(f: Filters, limit: int = LISTED) -> tuple[list, int]:
    """(rows, how many matched): violations newest first, with their parcel's number and address."""
    stmt = (select(Violation.id, Violation.rule_id, Violation.section, Violation.status, Violation.message,
                   Violation.measured, Violation.limit, Violation.unit, Violation.opened_at, Violation.source,
                   Violation.subject_type, Violation.subject_id, Parcel.parcel_number, Parcel.site_address)
            .outerjoin(Parcel, Parcel.id == Violation.parcel_id))
    if f.status != "all":
        stmt = stmt.where(Violation.status == f.status)
    if f.rule_id:
        stmt = stmt.where(Violation.rule_id == f.rule_id)
    if f.place:
        like = f"%{_escaped(f.place)}%"
        stmt = stmt.where(or_(func.lower(Parcel.site_address).like(like, escape="\\"),
                              func.lower(Parcel.parcel_number).like(like, escape="\\")))
    if f.opened_from:
        stmt = stmt.where(Violation.opened_at >= datetime.combine(f.opened_from, time.min))
    if f.opened_to:
        stmt = stmt.where(Violation.opened_at < datetime.combine(f.opened_to + timedelta(days=1), time.min))
    total = db.session.scalar(select(func.count()).select_from(stmt.subquery()))
    rows = db.session.execute(stmt.order_by(Violation.id.desc()).limit(limit)).all()
    return list(rows), int(total or 0)


def _geojson(geom) -> dict | None:
    return None if geom is None else json.loads(shapely.to_geojson(to_shape(geom)))


@dataclass
class Evidence:
    """One violation and what it rests on."""

    violation: Violation
    parcel: Parcel | None
    parcel_shape: dict | None
    evidence_shape: dict | None
    statement: str | None
    inspections: list[dict]
    notices: list[Notice]
    waived_by: str | None


def evidence(vid: int) -> Evidence:
    """A violation, its parcel, the rule's statement, the inspection that found it and its photos.

    Raises:
        LateralError: ``not_found`` for an unknown id.
    """
    v = db.session.get(Violation, vid)
    if v is None:
        raise violation_service._not_found(vid)
    parcel = db.session.get(Parcel, v.parcel_id) if v.parcel_id else None
    statement = next((r["statement"] for r in violation_service.rule_registry() if r["id"] == v.rule_id), None)
    found_by = [i for i in db.session.scalars(
        select(Inspection).where(Inspection.parcel_id == v.parcel_id).order_by(Inspection.id))
        if vid in (i.violation_ids or []) or i.id == v.resolved_by_inspection_id] if v.parcel_id else []
    notices = list(db.session.scalars(select(Notice).join(NoticeViolation, NoticeViolation.notice_id == Notice.id)
                                      .where(NoticeViolation.violation_id == vid).order_by(Notice.id)))
    waiver = db.session.get(User, v.waived_by_id) if v.waived_by_id else None
    return Evidence(v, parcel, _geojson(parcel.geom) if parcel else None, _geojson(v.evidence), statement,
                    inspection_cards(found_by), notices,
                    (waiver.display_name or waiver.username) if waiver else None)


# ---------------------------------------------------------------- drafting notices

@dataclass
class Draftable:
    """A parcel with open violations that no notice cites yet."""

    parcel: Parcel
    violations: list[Violation]
    kinds: list[str]


def draftable(clear_water_kind: str | None = None) -> list[Draftable]:
    """Parcels whose open violations wait for a notice, with the kinds they would be drafted as."""
    by_parcel: dict[int, list[Violation]] = defaultdict(list)
    for v in unnoticed_violations(None):
        by_parcel[v.parcel_id].append(v)
    parcels = {p.id: p for p in db.session.scalars(select(Parcel).where(Parcel.id.in_(list(by_parcel))))}
    out = []
    for pid, vs in by_parcel.items():
        kinds = sorted({kind_of(v, *([clear_water_kind] if clear_water_kind else [])) for v in vs})
        out.append(Draftable(parcels[pid], vs, kinds))
    return sorted(out, key=lambda d: d.parcel.parcel_number)


def draft_and_held() -> list[Notice]:
    """Notices drafted or held, awaiting approval or an address (newest first)."""
    return list(db.session.scalars(select(Notice).where(Notice.state.in_(("draft", "held")))
                                   .order_by(Notice.id.desc()).limit(LISTED)))


# ---------------------------------------------------------------- review

def _names(ids) -> dict[int, str]:
    if not ids:
        return {}
    return {u.id: u.display_name or u.username for u in db.session.scalars(select(User).where(User.id.in_(list(ids))))}


def inspection_cards(inspections: list[Inspection]) -> list[dict]:
    """What the review page shows of each inspection: who, where, the result and its photos."""
    ids = [i.id for i in inspections]
    photos: dict[int, list[InspectionPhoto]] = defaultdict(list)
    stored: set[str] = set()
    if ids:
        for p in db.session.scalars(select(InspectionPhoto).where(InspectionPhoto.inspection_id.in_(ids))
                                    .order_by(InspectionPhoto.id)):
            photos[p.inspection_id].append(p)
        digests = {p.sha256 for ps in photos.values() for p in ps}
        if digests:
            stored = set(db.session.scalars(select(Photo.sha256).where(Photo.sha256.in_(digests))))
    names = _names({i.inspector_id for i in inspections})
    parcels = {p.id: p for p in db.session.scalars(
        select(Parcel).where(Parcel.id.in_({i.parcel_id for i in inspections if i.parcel_id})))} if ids else {}
    titles = dict(db.session.execute(select(ChecklistTemplate.template_id, ChecklistTemplate.title)).tuples().all())
    return [{
        "id": i.id, "uuid": i.uuid, "result": i.result, "failures": i.failures or [],
        "violation_ids": i.violation_ids or [], "finished_at": as_utc(i.finished_at),
        "template": titles.get(i.template_id, i.template_id), "inspector": names.get(i.inspector_id, "?"),
        "parcel": parcels.get(i.parcel_id) if i.parcel_id else None,
        "photos": [{"sha256": p.sha256, "item_id": p.item_id, "stored": p.sha256 in stored} for p in photos[i.id]],
    } for i in inspections]


def finished_inspections(result: str | None = None, limit: int = 50) -> list[dict]:
    """The latest finished inspections, newest first; ``result`` pass or fail, None both."""
    stmt = select(Inspection).order_by(Inspection.finished_at.desc(), Inspection.id.desc()).limit(limit)
    if result in RESULTS:
        stmt = stmt.where(Inspection.result == result)
    return inspection_cards(list(db.session.scalars(stmt)))


def open_conflicts() -> list[dict]:
    """The sync queue: field edits held as conflicts (stale version) or proposals (outside the
    inspector's parcels), each with the properties it would change."""
    conflicts = list(db.session.scalars(select(SyncConflict).filter_by(status="open").order_by(SyncConflict.id)))
    outcomes = dict(db.session.execute(
        select(PushRecord.conflict_id, PushRecord.outcome)
        .where(PushRecord.conflict_id.in_([c.id for c in conflicts]))).tuples().all()) if conflicts else {}
    names = _names({c.created_by_id for c in conflicts if c.created_by_id})
    out = []
    for c in conflicts:
        current = ((c.current or {}).get("properties") or {})
        proposed = (c.proposed or {}).get("properties") or {}
        changes = [(k, current.get(k), v) for k, v in sorted(proposed.items()) if current.get(k) != v]
        out.append({"conflict": c, "kind": outcomes.get(c.id, "stale_version"), "changes": changes,
                    "moves": (c.proposed or {}).get("geometry") is not None,
                    "by": names.get(c.created_by_id or 0, "?")})
    return out
