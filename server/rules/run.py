"""Running the ordinance's field rules against the stored network and keeping violations.

Two modes, one reconciliation:

* ``run_network`` checks the whole system (CLI ``rules run``, ``POST /api/v1/rules/run``).
* ``check_saved`` checks one saved feature and its neighbours (the feature API calls it
  after a POST or PATCH, so the inspector sees at the curb what the edit caused).

The engine (``gis.rules``) is pure; this module loads its input
(``server.network.loader``), then reconciles what it reports with the stored
violations in the caller's transaction: a new key opens a violation, a key still
reported stays open (re-measured), an open violation in the run's scope that is no
longer reported is resolved, and a waived one is never touched or re-opened.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import cast

import numpy as np
import shapely
from geoalchemy2.shape import from_shape
from sqlalchemy import Table, and_, bindparam, false, func, insert, or_, select, text, update

from gis.rules import Network, RuleViolation, get_rule, related_subjects, run_rules
from server.core import city
from server.core.audit import trail as audit
from server.core.dialects import bbox_filter, extent, insert_skipping_taken
from server.core.extensions import db
from server.core.models import utcnow
from server.network.loader import BY_SUBJECT, SOURCES, contains, grow, load_layer, load_network, merge_boxes
from server.network.models import Lateral, Parcel, Tap, TracerWire
from server.rules.models import Violation

# Farther than any rule looks across to another feature (HOOKUP-365's 150 ft adjacency
# is the longest); an on-save check loads everything this close to the edited feature.
NEIGHBOURHOOD_FT = 200.0
# A manhole this close to a main may be one of its flushing points (PRESSURE-SEWER).
MANHOLE_REACH_FT = 20.0
CHUNK = 2000
V = cast(Table, Violation.__table__)  # Core statements over the table itself, not the ORM entity
#: How a finding that pre-dates its rule is recorded (the waiver reason's first words).
PREDATES = "Pre-dates the rule"


class UnknownRule(ValueError):
    """A rule id that is not registered."""


@dataclass
class Outcome:
    """What one run did."""

    scope: str  # "network" or "layer:id"
    rules: list[str] | None
    found: int = 0
    opened: int = 0
    kept: int = 0
    resolved: int = 0
    waived_skipped: int = 0
    predating: int = 0
    features: int = 0
    seconds: dict[str, float] = field(default_factory=dict)
    keys: list[str] = field(default_factory=list)  # reported keys, engine order
    remember_keys: bool = True  # a run by cells keeps no keys: they would grow with the city

    def counts(self) -> dict:
        return {"scope": self.scope, "rules": self.rules, "features": self.features,
                "found": self.found, "opened": self.opened, "kept": self.kept,
                "resolved": self.resolved, "waived_skipped": self.waived_skipped,
                "predating": self.predating,
                "seconds": {k: round(v, 3) for k, v in self.seconds.items()}}


def check_rule_ids(only: Iterable[str] | None) -> list[str] | None:
    """The given rule ids, checked against the registry (None: every rule)."""
    if only is None:
        return None
    ids = list(dict.fromkeys(only))
    for rule_id in ids:
        try:
            get_rule(rule_id)
        except KeyError as exc:
            raise UnknownRule(exc.args[0]) from None
    return ids


# ---------------------------------------------------------------- whole network
#: Above this many parcels the whole-network run goes through the city cell by cell
#: (issue #35: the whole network at once took ~4.5 GiB at a million parcels), each cell
#: loaded with everything within NEIGHBOURHOOD_FT of it, as an on-save check is.
PARTITION_PARCELS = 20_000


def run_network(actor=None, only: Iterable[str] | None = None,
                progress: Callable[[str, int, int, str | None], None] | None = None,
                partition_parcels: int = PARTITION_PARCELS) -> Outcome:
    """Check the whole network and reconcile every rule-sourced open violation.

    Args:
        actor: The user who asked (audited); None for the CLI.
        only: Rule ids to run; only their violations are opened or resolved.
        progress: Told ``(stage, done, total, rule_id)`` as the run goes: ``load``
            (the network is read), ``check`` before each rule (``done`` of ``total``),
            or, in a city of more than ``partition_parcels`` parcels, before each cell
            (``rule_id`` None), ``reconcile`` (violations opened, kept and resolved).
        partition_parcels: The most parcels checked at once (see ``PARTITION_PARCELS``).
    """
    rules = check_rule_ids(only)
    tell = progress or (lambda *_: None)
    outcome = Outcome("network", rules)
    clock = time.perf_counter()
    tell("load", 0, 0, None)
    here = city.current()
    cells = _cells(partition_parcels)
    where = [V.c.status == "open", V.c.source == "rules"]
    if rules is not None:
        where.append(V.c.rule_id.in_(rules))
    if cells is None:
        network = load_network()
        outcome.features = _size(network)
        outcome.seconds["load"] = _lap(clock)
        found = run_rules(network, here.rulebook, only=rules, measurer=here.measurer,
                          on_rule=lambda done, total, rule_id: tell("check", done, total, rule_id))
        del network
        outcome.seconds["check"] = _lap(clock) - outcome.seconds["load"]
        tell("reconcile", 0, 0, None)
        _reconcile(found, _open_rows(where), outcome)
        outcome.seconds["reconcile"] = _lap(clock) - outcome.seconds["load"] - outcome.seconds["check"]
    else:
        outcome.seconds["load"] = _lap(clock)
        outcome.remember_keys = False
        reconciling = _run_in_cells(cells, rules, where, outcome, tell)
        outcome.seconds["reconcile"] = reconciling
        outcome.seconds["check"] = _lap(clock) - outcome.seconds["load"] - reconciling
    outcome.seconds["total"] = _lap(clock)
    audit.record("rules_run", "rules", None, None, outcome.counts(), actor)
    return outcome


def _cells(partition_parcels: int) -> list[tuple[float, float, float, float]] | None:
    """A grid over every layer's extent with about ``partition_parcels`` parcels a cell, or
    None when the city is small enough to check at once."""
    parcels = db.session.scalar(select(func.count(Parcel.id))) or 0
    if parcels <= partition_parcels:
        return None
    boxes = [b for b in (extent(db.session, source.model) for source in SOURCES) if b is not None]
    # A hair wider than the extents (index boxes may be rounded either way).
    minx, miny = min(b[0] for b in boxes) - 1e-7, min(b[1] for b in boxes) - 1e-7
    maxx, maxy = max(b[2] for b in boxes) + 1e-7, max(b[3] for b in boxes) + 1e-7
    n = math.ceil(math.sqrt(math.ceil(parcels / partition_parcels)))
    dx, dy = (maxx - minx) / n, (maxy - miny) / n
    return [(minx + i * dx, miny + j * dy, maxx if i == n - 1 else minx + (i + 1) * dx,
             maxy if j == n - 1 else miny + (j + 1) * dy) for j in range(n) for i in range(n)]


@dataclass
class Held:
    """What one cell holds: ``ids`` by subject, all inside ``box`` (what the cell loaded)."""

    box: tuple[float, float, float, float]
    ids: dict[str, set[int]]


def _cell_findings(cells: list, rules: list[str] | None, outcome: Outcome, tell):
    """Each cell checked with its neighbourhood, in turn: yields ``(held, findings)``, the
    features whose anchor (a point on each, ``_anchors``) the cell holds (:class:`Held`), and the
    findings whose primary subject is one of them. Each feature is held by exactly one cell,
    so each finding is yielded once, with every feature it involves loaded. A finding whose
    primary subject has no anchor (no geometry) comes once, with ``held`` None.
    Only one cell's network is in memory at a time."""
    here = city.current()
    first = (min(c[0] for c in cells), min(c[1] for c in cells))
    last = (max(c[2] for c in cells), max(c[3] for c in cells))
    homeless: set[str] = set()
    for index, cell in enumerate(cells):
        tell("check", index, len(cells), None)
        box = grow(cell, NEIGHBOURHOOD_FT)
        network = load_network([box])
        anchors = _anchors(network)
        held = Held(box, {})
        for (subject, ident), anchor in anchors.items():
            if anchor is not None and _holds(cell, anchor, first, last):
                held.ids.setdefault(subject, set()).add(ident)
        outcome.features += sum(len(ids) for ids in held.ids.values())
        mine, elsewhere = [], []
        for v in run_rules(network, here.rulebook, only=rules, measurer=here.measurer):
            anchor = anchors.get(tuple(v.subjects[0]))
            if anchor is None:
                if v.key not in homeless:
                    homeless.add(v.key)
                    elsewhere.append(v)
            elif _holds(cell, anchor, first, last):
                mine.append(v)
        del network, anchors
        yield held, mine
        if elsewhere:
            yield None, elsewhere


def _found_in_cells(cells: list, rules: list[str] | None, outcome: Outcome, tell) -> list[RuleViolation]:
    """Every finding of a run by cells, gathered (tests; a run keeps one cell's at a time)."""
    found: dict[str, RuleViolation] = {}
    for _, findings in _cell_findings(cells, rules, outcome, tell):
        for v in findings:
            found.setdefault(v.key, v)
    return list(found.values())


def _run_in_cells(cells: list, rules: list[str] | None, where: list, outcome: Outcome, tell) -> float:
    """Check and reconcile cell by cell; returns the seconds spent reconciling.

    Each cell's findings are reconciled with the open violations whose primary subject the
    cell holds, then dropped, so neither the findings nor the open violations of the whole
    city are in memory at once (issue #35). Open violations no cell holds (their feature
    deleted, or left without a geometry, by an edit made outside Lateral) are reconciled
    last, in batches, with the findings that had no cell either.
    """
    spent = 0.0
    homeless: dict[str, RuleViolation] = {}
    for held, findings in _cell_findings(cells, rules, outcome, tell):
        if held is None:
            homeless.update((v.key, v) for v in findings)
            continue
        clock = time.perf_counter()
        _reconcile(findings, _open_rows_held(held, where), outcome)
        spent += _lap(clock)
    clock = time.perf_counter()
    tell("reconcile", 0, 0, None)
    after = 0
    while batch := _open_rows([*where, _unheld(), V.c.id > after], limit=CHUNK):
        after = batch[-1].id
        _reconcile([homeless.pop(r.key) for r in batch if r.key in homeless], batch, outcome)
    _reconcile(list(homeless.values()), [], outcome)
    return spent + _lap(clock)


def _open_rows_held(held: Held, where: list) -> list:
    """The violations matching ``where`` whose primary subject is one of ``held``'s features.

    One query a layer, joining the layer's features inside the cell's box (its spatial
    index) rather than listing the ids held (some 70,000 a cell), then kept to those held.
    """
    dialect = db.session.get_bind().dialect.name
    cols = (V.c.id, V.c.key, V.c.section, V.c.measured, V.c.limit, V.c.unit, V.c.message, V.c.subjects,
            V.c.subject_id)
    rows = []
    for source in SOURCES:
        ids = held.ids.get(source.subject)
        if not ids:
            continue
        model = source.model
        stmt = (select(*cols).select_from(V.join(model, and_(V.c.subject_type == source.subject,
                                                                V.c.subject_id == model.id)))
                .where(*where, bbox_filter(model, held.box, dialect)))
        rows += [r for r in db.session.execute(stmt) if r.subject_id in ids]
    return rows


def _unheld():
    """Violations whose primary subject no cell holds: no such feature, or one without a
    geometry (an empty one counts as none, as in ``_anchors``)."""
    placed = [and_(V.c.subject_type == source.subject,
                   select(source.model.id).where(source.model.id == V.c.subject_id,
                                                 source.model.geom.is_not(None),
                                                 func.ST_IsEmpty(source.model.geom) == false()).exists())
              for source in SOURCES]
    return ~or_(*placed)


def _anchors(network: Network) -> dict:
    """(subject, id) -> a point on the feature itself (None without a geometry), one
    vectorised ``shapely.point_on_surface`` per layer.

    The point must lie on the geometry, not merely in its bounds: the cell that holds it
    then always loads the feature, because the feature passes through the cell. (The middle
    of a bent line's bounds can lie farther than NEIGHBOURHOOD_FT from the line, in a cell
    that never loads it, and then no cell would check it.) A geometry always gives the same
    point, so every cell that loads a feature agrees on which of them holds it."""
    out: dict = {}
    for source in SOURCES:
        features = getattr(network, source.attr)
        if not features:
            continue
        points = shapely.point_on_surface(np.array([f.geometry for f in features], dtype=object))
        bounds = shapely.bounds(points)  # a point's bounds are its x and y twice; NaN when empty
        for feature, x, y in zip(features, bounds[:, 0].tolist(), bounds[:, 1].tolist(), strict=True):
            out[(source.subject, feature.id)] = None if x != x else (x, y)  # NaN: no geometry, or empty
    return out


def _holds(cell, point, first, last) -> bool:
    """Half-open cells whose outer edges reach past the grid (an extent read off a rounded
    index may stop short of a feature): each point is held by exactly one cell."""
    x, y = point
    return (x >= cell[0] or cell[0] == first[0]) and (x < cell[2] or cell[2] == last[0]) and \
        (y >= cell[1] or cell[1] == first[1]) and (y < cell[3] or cell[3] == last[1])


JOB_KIND = "rules_run"


def run_job(params: dict, progress) -> dict:
    """The whole-network run as a job of the queue (server/core/queue/): its counts.

    ``params``: ``rules`` (ids, or None for every rule) and ``user_id`` (who asked).
    """
    from server.core.accounts.models import User

    actor = db.session.get(User, params["user_id"]) if params.get("user_id") else None
    outcome = run_network(actor, params.get("rules"),
                          progress=lambda stage, done, total, rule_id: progress(stage, done, total, rule_id))
    return outcome.counts()


# ---------------------------------------------------------------- one saved feature
def check_saved(subject: str, fid: int, geoms: Iterable, actor=None) -> tuple[Outcome, list[Violation]]:
    """Re-check a saved feature and the features its edit can affect.

    Args:
        subject: The layer's subject (``"tap"``, ``"main"``, ``"tracer_wire"`` …).
        fid: The saved feature's id.
        geoms: Its geometry now and, after a move, before (EPSG:4326 shapely).
        actor: The user who saved (audited when a violation opened or closed).

    Returns:
        The outcome and the violations now reported for the feature and its related
        subjects (open ones, and waived ones still reported).
    """
    if subject == "service_area":
        # The area decides HOOKUP-365 and SEPTIC-IN-AREA for every parcel inside it.
        outcome = run_network(actor)
        return outcome, []
    clock = time.perf_counter()
    network, scope = _neighbourhood(subject, fid, [g for g in geoms if g is not None])
    outcome = Outcome(f"{subject}:{fid}", None, features=_size(network))
    outcome.seconds["load"] = _lap(clock)
    here = city.current()
    found = run_rules(network, here.rulebook, subjects=scope, measurer=here.measurer)
    outcome.seconds["check"] = _lap(clock) - outcome.seconds["load"]
    candidates = [r for r in _open_rows(_primary_in(network, scope))
                  if any(tuple(s) in scope for s in r.subjects)]
    _reconcile(found, candidates, outcome)
    outcome.seconds["total"] = _lap(clock)
    if outcome.opened or outcome.resolved:
        audit.record("rules_check", "rules", None, None,
                     {**outcome.counts(), "subject": [subject, fid]}, actor)
    return outcome, _reported_rows(outcome.keys)


def _neighbourhood(subject: str, fid: int, geoms: list) -> tuple[Network, set]:
    """Every feature near the saved one, its related features and the mains they sit on."""
    pieces = geoms + _referenced_geoms(subject, fid)
    boxes = merge_boxes([grow(g.bounds, NEIGHBOURHOOD_FT) for g in pieces if not g.is_empty])
    network = load_network(boxes)
    scope = _scope(network, subject, fid)
    # The scope may reach beyond the first boxes (a manhole's mains): load around it too.
    wanted = [grow(g.bounds, NEIGHBOURHOOD_FT) for g in _scope_geoms(network, scope)]
    missing = [b for b in wanted if not any(contains(box, b) for box in boxes)]
    if missing:
        boxes = merge_boxes(boxes + missing)
        network = load_network(boxes)
        scope = _scope(network, subject, fid)
    return network, scope


def _referenced_geoms(subject: str, fid: int) -> list:
    """Geometry an edit must see whole: the mains its taps sit on, a parcel's laterals."""
    laterals = None
    if subject == "tap":
        mains = select(Tap.main_id).where(Tap.id == fid)
    elif subject == "lateral":
        mains = select(Tap.main_id).where(Tap.lateral_id == fid)
    elif subject in ("parcel", "tracer_wire"):
        laterals = (select(Lateral.id).where(Lateral.parcel_id == fid) if subject == "parcel"
                    else select(TracerWire.lateral_id).where(TracerWire.id == fid))
        mains = select(Tap.main_id).where(Tap.lateral_id.in_(laterals))
    else:
        return []
    found = load_layer(BY_SUBJECT["main"], [BY_SUBJECT["main"].model.id.in_(mains)])
    if laterals is not None:
        found += load_layer(BY_SUBJECT["lateral"], [Lateral.id.in_(laterals)])
    return [f.geometry for f in found]


def _scope(network: Network, subject: str, fid: int) -> set:
    scope = related_subjects(network, (subject, fid))
    if subject == "manhole":
        here = next((m.geometry for m in network.manholes if m.id == fid), None)
        if here is not None:
            reach = shapely.box(*grow(here.bounds, MANHOLE_REACH_FT))
            for main in network.mains:
                if main.geometry.intersects(reach):
                    scope |= related_subjects(network, ("main", main.id))
    return scope


def _scope_geoms(network: Network, scope: set) -> list:
    geoms = []
    mains = {m.id: m.geometry for m in network.mains}
    for source in SOURCES:
        for feature in getattr(network, source.attr):
            if (source.subject, feature.id) in scope:
                geoms.append(feature.geometry)
                if source.subject == "tap" and feature.main_id in mains:
                    geoms.append(mains[feature.main_id])
    return [g for g in geoms if g is not None and not g.is_empty]


def _primary_in(network: Network, scope: set) -> list:
    """Open rule violations whose primary subject was loaded (all that can involve ``scope``).

    Parcels are only ever the primary (and only) subject of their violations, so only
    the parcels in scope are asked for. Features in scope are asked for whether loaded
    or not: after a delete the saved feature is no longer there to load.
    """
    clauses = []
    for source in SOURCES:
        # A feature in scope but not loaded was just deleted: its violations still count.
        ids = [ident for layer, ident in scope if layer == source.subject]
        if source.subject != "parcel":
            ids = list(dict.fromkeys([f.id for f in getattr(network, source.attr)] + ids))
        for start in range(0, len(ids), CHUNK):
            clauses.append(and_(V.c.subject_type == source.subject,
                                V.c.subject_id.in_(ids[start:start + CHUNK])))
    return [V.c.status == "open", V.c.source == "rules", or_(*clauses) if clauses else false()]


# ---------------------------------------------------------------- reconciliation
def _open_rows(where, limit: int | None = None) -> list:
    """The violations matching ``where``; with ``limit``, the first so many in id order."""
    cols = (V.c.id, V.c.key, V.c.section, V.c.measured, V.c.limit, V.c.unit, V.c.message, V.c.subjects)
    stmt = select(*cols).where(*where)
    if limit is not None:
        stmt = stmt.order_by(V.c.id).limit(limit)
    return db.session.execute(stmt).all()


def _reconcile(found: list[RuleViolation], candidates: list, outcome: Outcome) -> None:
    """Open, keep or resolve so the stored open violations match ``found`` in scope, adding
    to ``outcome``'s counts (a run by cells reconciles each cell in turn).

    A finding that pre-dates its rule (``RuleViolation.predates``) is not a violation:
    it is stored as waived by no one, its reason beginning :data:`PREDATES`, so it is
    shown on the map and never drafted into a notice; an open violation it matches is
    turned into one. If the build date is later corrected, the finding opens again.
    """
    predating = [v for v in found if v.predates]
    found = [v for v in found if not v.predates]
    _record_predating(predating, {r.key: r for r in candidates}, outcome)
    candidates = [r for r in candidates if r.key not in {v.key for v in predating}]
    reported = {v.key: v for v in found}
    outcome.found += len(reported)
    if outcome.remember_keys:
        outcome.keys += list(reported)
    open_rows = {r.key: r for r in candidates}
    fresh = [v for k, v in reported.items() if k not in open_rows]
    waived = _waived_keys([v.key for v in fresh])
    fresh = [v for v in fresh if v.key not in waived]
    changed = [(open_rows[k], v) for k, v in reported.items() if k in open_rows
               and (open_rows[k].section, open_rows[k].measured, open_rows[k].limit,
                    open_rows[k].unit, open_rows[k].message)
               != (v.section, v.measured, v.limit, v.unit, v.message)]
    gone = [r.id for k, r in open_rows.items() if k not in reported]
    now = utcnow()
    if fresh:
        # Two saves at once may both find a key new; the partial unique index keeps one.
        stmt = insert_skipping_taken(db.session.get_bind(), Violation, ["key"], text("status = 'open'"))
        db.session.execute(stmt, [_new_row(v, now) for v in fresh])
    if changed:
        _remeasure(changed, now)
    for start in range(0, len(gone), CHUNK):
        db.session.execute(
            update(V).where(V.c.id.in_(gone[start:start + CHUNK]))
            .values(status="resolved", resolved_at=now, updated_at=now, version=V.c.version + 1)
        )
    db.session.flush()
    outcome.opened += len(fresh)
    outcome.kept += len(open_rows) - len(gone)
    outcome.resolved += len(gone)
    if outcome.remember_keys:
        outcome.keys += [v.key for v in predating]  # shown with the feature, as pre-dating the rule
    outcome.waived_skipped += len(waived)


def _waived_keys(keys: list[str], predates: bool = False) -> set[str]:
    """Keys waived by a person (or, with ``predates``, recorded as pre-dating the rule)."""
    kind = V.c.waiver_reason.like(f"{PREDATES}%")
    out: set[str] = set()
    for start in range(0, len(keys), CHUNK):
        out.update(db.session.scalars(
            select(V.c.key).where(V.c.status == "waived", V.c.key.in_(keys[start:start + CHUNK]),
                                  kind if predates else or_(V.c.waiver_reason.is_(None), ~kind))
        ))
    return out


def _record_predating(predating: list[RuleViolation], open_rows: dict, outcome: Outcome) -> None:
    """Store findings that pre-date their rule as waived with the reason; an open
    violation of the same key becomes one."""
    outcome.predating += len(predating)
    if not predating:
        return
    now = utcnow()
    converted = [(open_rows[v.key].id, v) for v in predating if v.key in open_rows]
    if converted:
        db.session.execute(
            update(V).where(V.c.id == bindparam("b_id"))
            .values(status="waived", waived_at=now, waiver_reason=bindparam("b_reason"),
                    updated_at=now, version=V.c.version + 1),
            [{"b_id": row_id, "b_reason": f"{PREDATES}: {v.predates}"} for row_id, v in converted])
    rest = [v for v in predating if v.key not in open_rows]
    known = _waived_keys([v.key for v in rest], predates=True) | _waived_keys([v.key for v in rest])
    new = [{**_new_row(v, now), "status": "waived", "waived_at": now, "waiver_reason": f"{PREDATES}: {v.predates}"}
           for v in rest if v.key not in known]
    if new:
        db.session.execute(insert(Violation), new)


def _evidence(v: RuleViolation):
    geom = v.evidence
    return None if geom is None or geom.is_empty else from_shape(geom, srid=4326)


def _new_row(v: RuleViolation, now) -> dict:
    layer, ident = v.subjects[0]
    return {
        "rule_id": v.rule_id, "section": v.section, "key": v.key, "status": "open",
        "source": "rules", "subject_type": layer,
        "subject_id": ident if isinstance(ident, int) else None,
        "subjects": [[s, i] for s, i in v.subjects], "parcel_id": v.parcel_id,
        "measured": v.measured, "limit": v.limit, "unit": v.unit, "message": v.message,
        "evidence": _evidence(v), "opened_at": now, "created_at": now, "updated_at": now,
        "version": 1,
    }


def _remeasure(changed: list, now) -> None:
    stmt = (
        update(V).where(V.c.id == bindparam("b_id"))
        .values(section=bindparam("b_section"), measured=bindparam("b_measured"),
                limit=bindparam("b_limit"), unit=bindparam("b_unit"), message=bindparam("b_message"),
                evidence=bindparam("b_evidence", type_=V.c.evidence.type),
                updated_at=now, version=V.c.version + 1)
    )
    db.session.execute(stmt, [
        {"b_id": row.id, "b_section": v.section, "b_measured": v.measured, "b_limit": v.limit,
         "b_unit": v.unit, "b_message": v.message, "b_evidence": _evidence(v)}
        for row, v in changed
    ])


def _reported_rows(keys: list[str]) -> list[Violation]:
    """The stored violation standing for each reported key: the open one, else the waiver."""
    if not keys:
        return []
    rows = db.session.scalars(
        select(Violation).where(Violation.key.in_(keys), Violation.status.in_(("open", "waived")))
        .order_by(Violation.id).execution_options(populate_existing=True)
    ).all()
    best: dict[str, Violation] = {}
    for row in rows:
        if row.key not in best or row.status == "open":
            best[row.key] = row
    return [best[k] for k in keys if k in best]


def _size(network: Network) -> int:
    return sum(len(getattr(network, s.attr)) for s in SOURCES)


def _lap(start: float) -> float:
    return time.perf_counter() - start



# ---------------------------------------------------------------- the feature API's hook
def violations_on_save(layer, fid: int, geoms: list, actor) -> dict:
    """Write hook of the layers the engine reads (``Layer.checked_on_save``): the
    ``violations`` member of the saved Feature. After a delete, ``geoms`` is where the
    feature was; the violations it took part in are resolved and none are returned."""
    from server.rules.violations import summaries

    _, rows = check_saved(layer.subject, fid, geoms, actor)
    return {"violations": summaries(rows)}
