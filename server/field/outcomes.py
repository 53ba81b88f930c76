"""What an inspector's tablet learns at each pull about what their work led to.

An inspector holds their own work (``docs/security.md``, "own"): the results of their own
inspections, and on the parcels they are sent to or recently inspected, the open
violations and the notices (both readable by every signed-in user through the API).
The pull carries them so the tablet shows them offline: each sent inspection's pass or
fail with the violations it opened or resolved, and the parcel's page as it stands.
"""

from __future__ import annotations

from sqlalchemy import select

from server.core.accounts.models import User
from server.core.extensions import db
from server.field import events
from server.field.checklist_templates import rule_names
from server.field.models import Inspection
from server.network.models import Parcel
from server.rules.models import Violation

#: The caller's latest inspections whose results travel in a pull (older ones have
#: long left the outbox's "Sent" list).
RESULT_LIMIT = 100


def _iso(value) -> str | None:
    return value.isoformat() if value is not None else None


def violation_brief(v: Violation) -> dict:
    """A violation as the tablet shows it: rule, its name, section, what was found."""
    name = rule_names().get(v.rule_id, {}).get("title")
    return {"id": v.id, "rule_id": v.rule_id, "rule_title": name, "section": v.section, "status": v.status,
            "message": v.message, "measured": v.measured, "limit": v.limit, "unit": v.unit,
            "opened_at": _iso(v.opened_at)}


def inspection_results(actor: User) -> list[dict]:
    """The caller's own latest inspections (:data:`RESULT_LIMIT`), newest first: pass or
    fail, what failed (with the limit), the violations opened and resolved."""
    rows = db.session.scalars(
        select(Inspection).where(Inspection.inspector_id == actor.id)
        .order_by(Inspection.id.desc()).limit(RESULT_LIMIT)).all()
    opened_ids = {vid for i in rows for vid in i.violation_ids or []}
    opened = {v.id: v for v in db.session.scalars(select(Violation).where(Violation.id.in_(opened_ids)))} \
        if opened_ids else {}
    resolved: dict[int, list[Violation]] = {}
    if rows:
        for v in db.session.scalars(select(Violation).where(
                Violation.resolved_by_inspection_id.in_([i.id for i in rows])).order_by(Violation.id)):
            if v.resolved_by_inspection_id is not None:
                resolved.setdefault(v.resolved_by_inspection_id, []).append(v)
    return [{
        "uuid": i.uuid, "parcel_id": i.parcel_id, "template_id": i.template_id, "result": i.result,
        "failures": i.failures or [], "received_at": _iso(i.received_at),
        "violations_opened": [violation_brief(opened[vid]) for vid in i.violation_ids or [] if vid in opened],
        "violations_resolved": [violation_brief(v) for v in resolved.get(i.id, [])],
    } for i in rows]


def parcel_details(actor: User, parcel_ids: set[int]) -> dict[str, dict]:
    """For each parcel: who and where, its open violations, its notices and the caller's
    own inspections of it (another inspector's stay theirs). Keys are parcel ids as text."""
    if not parcel_ids:
        return {}
    ids = sorted(parcel_ids)
    out: dict[str, dict] = {}
    for p in db.session.scalars(select(Parcel).where(Parcel.id.in_(ids))):
        out[str(p.id)] = {"parcel": {"id": p.id, "site_address": p.site_address, "parcel_number": p.parcel_number,
                                     "owner_name": p.owner_name, "user_class": p.user_class},
                          "violations": [], "notices": [], "inspections": []}
    for v in db.session.scalars(select(Violation).where(Violation.parcel_id.in_(ids), Violation.status == "open")
                                .order_by(Violation.id)):
        out[str(v.parcel_id)]["violations"].append(violation_brief(v))
    for i in db.session.scalars(select(Inspection).where(Inspection.parcel_id.in_(ids),
                                                         Inspection.inspector_id == actor.id)
                                .order_by(Inspection.id.desc())):
        out[str(i.parcel_id)]["inspections"].append(
            {"uuid": i.uuid, "template_id": i.template_id, "result": i.result,
             "finished_at": _iso(i.finished_at), "received_at": _iso(i.received_at)})
    # What the domains above field work add (the notices domain: each parcel's notices).
    for added in events.announce(events.parcels_pulled, actor=actor, parcel_ids=ids):
        for parcel_id, fields in (added or {}).items():
            if str(parcel_id) in out:
                out[str(parcel_id)].update(fields)
    return out
