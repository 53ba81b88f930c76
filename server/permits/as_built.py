"""The as-built record a passed inspection writes (LATERAL-INSPECT, § 315-13C(2)).

The lateral's line (from the tap to the building wall, as the inspector located them),
its material and diameter, the tap's position on the main, the tracer wire, each naming
the permit and the inspection they came from. They are written through the feature
service, so the rules check them at once (the layers' on-save hook): what they find is
added to the inspection's violations, where the tablet shows it, and returned for the
permit's correction order. An abandonment (§ 315-12E) keeps the lateral, marked
abandoned with its day.
"""

from __future__ import annotations

import json
from datetime import date

from geoalchemy2.shape import to_shape
from shapely.geometry import LineString, Point, mapping, shape
from sqlalchemy import select

from server.core import city
from server.core.dialects import bbox_filter, engine_name
from server.core.extensions import db
from server.field.models import Inspection
from server.network import features as feature_service
from server.network.layers import LAYERS, Layer
from server.network.models import Lateral, SewerMain, Tap, TracerWire
from server.permits.models import Permit
from server.rules.models import Violation

#: A tap located this close to a main is on it (the imports' snapping distance).
ON_MAIN_FT = 10.0
#: Kinds whose passed inspection writes a lateral, its tap and its tracer wire.
WRITES_LATERAL = ("new_connection", "lateral_repair")


def _layer(model) -> Layer:
    return next(layer for layer in LAYERS.values() if layer.model is model)


def _point(answer) -> Point | None:
    try:
        geom = shape(answer) if isinstance(answer, dict) else None
    except (ValueError, KeyError, TypeError, AttributeError):
        return None
    return geom if isinstance(geom, Point) else None


def _yes(answer) -> bool | None:
    return {"yes": True, "no": False}.get(answer)


def write(permit: Permit, inspection: Inspection, actor) -> list[dict]:
    """Write what the passed ``inspection`` found under ``permit``; the rules' findings on it."""
    answers = inspection.answers or {}
    on = city.current().day_of(inspection.finished_at)
    source = {"permit_number": permit.number, "inspection_uuid": inspection.uuid}
    if permit.kind == "abandonment":
        return _abandon(permit, on, source, actor)
    found: list[dict] = []
    tap_at, wall_at = _point(answers.get("tap_location")), _point(answers.get("wall_location"))
    lateral_id = permit.lateral_id
    if permit.kind in WRITES_LATERAL and tap_at is not None and wall_at is not None:
        lateral_id, lateral_found = _lateral(permit, answers, LineString([tap_at, wall_at]), on, source, actor)
        found += lateral_found
        if _yes(answers.get("tracer_wire_present")):
            found += _save(TracerWire, None, LineString([tap_at, wall_at]), {
                "lateral_id": lateral_id, "in_conduit": _yes(answers.get("tracer_wire_in_conduit")),
                "reaches_surface_at_wall": _yes(answers.get("tracer_wire_at_wall")), **source}, actor)[1]
    if tap_at is not None and permit.kind in (*WRITES_LATERAL, "tap"):
        found += _save(Tap, None, tap_at, {
            "main_id": _main_near(tap_at), "lateral_id": lateral_id, "method": answers.get("method"),
            "clock_position": answers.get("clock_position"), "installed_on": on.isoformat(),
            "downstream_manhole_ft": answers.get("downstream_manhole_ft"), **source}, actor)[1]
    permit.lateral_id = lateral_id
    return _still_open(found)


def _still_open(found: list[dict]) -> list[dict]:
    """What the rules found on the features written, less what a later one resolved (a
    lateral's tracer-wire finding, say, before its wire was written)."""
    ids = {v["id"] for v in found if v.get("id") is not None}
    open_ids = set(db.session.scalars(select(Violation.id).where(Violation.id.in_(ids), Violation.status == "open")))
    seen: set[int] = set()
    out = []
    for v in found:
        if v.get("id") in open_ids and v["id"] not in seen:
            seen.add(v["id"])
            out.append(v)
    return out


def _lateral(permit: Permit, answers: dict, line: LineString, on: date, source: dict, actor) -> tuple[int, list]:
    sdr = city.current().rulebook.rule("LATERAL-SDR26")
    props = {"parcel_id": permit.parcel_id, "material": sdr.get("material", "PVC"), "sdr": sdr.get("sdr", 26),
             "diameter_in": answers.get("diameter_in") or permit.connection_size_in, "installed_on": on.isoformat(),
             "backflow_valve": _yes(answers.get("backflow_valve_installed")), "status": "active",
             "is_new_or_replacement": True, **source}
    return _save(Lateral, permit.lateral_id if permit.kind == "lateral_repair" else None, line, props, actor)


def _abandon(permit: Permit, on: date, source: dict, actor) -> list[dict]:
    """§ 315-12E: the lateral is capped and kept, marked abandoned on the day."""
    lateral_id = permit.lateral_id or db.session.scalar(select(Lateral.id).where(
        Lateral.parcel_id == permit.parcel_id, Lateral.status == "active").order_by(Lateral.id))
    if lateral_id is None:
        return []
    permit.lateral_id = lateral_id
    return _still_open(_save(Lateral, lateral_id, None,
                             {"status": "abandoned", "abandoned_on": on.isoformat(), **source}, actor)[1])


def _save(model, fid: int | None, geom, props: dict, actor) -> tuple[int, list[dict]]:
    """Create (or update) one feature through the feature service; its id and the
    violations the rules' on-save check returned."""
    layer = _layer(model)
    props = {k: v for k, v in props.items() if v is not None}
    geometry = mapping(geom) if geom is not None else None
    if fid is None:
        text, fid, _ = feature_service.create_feature(layer, geometry, props, actor)
    else:
        row = db.session.get(model, fid)
        version = row.version if row is not None else 0  # a row gone since: the service's not_found
        text, _ = feature_service.update_feature(layer, fid, version, geometry, props, actor)
    return fid, json.loads(text).get("violations", [])


def _main_near(point: Point) -> int | None:
    """The main within :data:`ON_MAIN_FT` of the tap, the nearest."""
    pad = 0.0005  # degrees: a box comfortably larger than ON_MAIN_FT at any latitude
    box = (point.x - pad, point.y - pad, point.x + pad, point.y + pad)
    rows = db.session.execute(select(SewerMain.id, SewerMain.geom).where(
        bbox_filter(SewerMain, box, engine_name(db.session)))).all()
    measurer = city.current().measurer
    at = measurer.project(point)
    best = min(((measurer.to_feet(measurer.project(to_shape(g)).distance(at)), i) for i, g in rows), default=None)
    return best[1] if best is not None and best[0] <= ON_MAIN_FT else None
