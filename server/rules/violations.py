"""Reading violations as GeoJSON, waiving them, and describing the rules that find them."""

from __future__ import annotations

import shapely
from sqlalchemy import func, select

from gis.rules import registered_rules
from server.core import city
from server.core.access.roles import SUPERINTENDENT
from server.core.audit import trail as audit
from server.core.dialects import bbox_filter
from server.core.errors import LateralError
from server.core.extensions import db
from server.core.models import utcnow
from server.network.features import Page, page_rows
from server.network.geojson import feature_text
from server.rules.models import Violation
from server.rules.schemas import ViolationProperties, ViolationSummary

#: Who waives a violation: the superintendent alone (the API route and the page declare it).
WAIVER_ROLES = frozenset({SUPERINTENDENT})
_NAMES = [n for n, f in ViolationProperties().fields.items() if not f.load_only]


def _select():
    cols = [getattr(Violation, n) for n in _NAMES if n != "id"]
    return select(Violation.id, func.ST_AsBinary(Violation.evidence).label("wkb"), *cols)


def _render(rows) -> list[str]:
    if not rows:
        return []
    geoms = shapely.from_wkb([bytes(r.wkb) if r.wkb is not None else None for r in rows])
    texts = shapely.to_geojson(geoms)
    dump = ViolationProperties().dump
    return [
        feature_text(r.id, text, dump({n: getattr(r, n) for n in _NAMES}))
        for r, text in zip(rows, texts, strict=True)
    ]


def list_violations(*, bbox=None, filters=None, limit: int, after: int | None = None) -> Page:
    """One page of violations in id order, optionally with evidence inside ``bbox``."""
    stmt = _select()
    if bbox is not None:
        dialect = db.session.get_bind().dialect.name
        stmt = stmt.where(bbox_filter(Violation, bbox, dialect, "evidence"))
    for name, value in (filters or {}).items():
        stmt = stmt.where(getattr(Violation, name) == value)
    rows, next_after = page_rows(stmt, Violation.id, limit, after)
    return Page(_render(rows), next_after)


def violation_text(vid: int) -> tuple[str, int]:
    """(GeoJSON text, version) of one violation, or a 404."""
    row = db.session.execute(_select().where(Violation.id == vid)).one_or_none()
    if row is None:
        raise _not_found(vid)
    return _render([row])[0], row.version


def summaries(rows: list[Violation]) -> list[dict]:
    """The short form a save returns for each violation."""
    return ViolationSummary(many=True).dump(rows)


def waive(vid: int, reason: str, actor) -> tuple[str, int]:
    """Waive an open violation: it stays on record, with who waived it and why.

    A waived violation is never re-opened or resolved by a rules run.
    """
    row = db.session.get(Violation, vid)
    if row is None:
        raise _not_found(vid)
    if row.status != "open":
        raise LateralError("not_open", f"violation {vid} is {row.status}; only an open violation can be waived",
                           {"status": row.status})
    before = {"status": row.status}
    row.status, row.waived_at = "waived", utcnow()
    row.waived_by_id, row.waiver_reason = getattr(actor, "id", None), reason.strip()
    db.session.flush()
    audit.record("waive", "violation", vid, before,
                 {"status": "waived", "reason": row.waiver_reason, "key": row.key}, actor)
    return violation_text(vid)


def rule_registry() -> list[dict]:
    """Every registered rule with the section and parameters the rulebook gives it."""
    rulebook = city.current().rulebook
    out = []
    for rule in registered_rules():
        params = rule.params(rulebook)
        section = params.pop("section")
        params.pop("rule_id")
        params.pop("effective", None)
        out.append({"id": rule.id, "section": section, "statement": rule.statement, "parameters": params,
                    "effective": rule.effective(rulebook)})
    return out


def _not_found(vid) -> LateralError:
    return LateralError("not_found", f"no violation with id {vid}")
