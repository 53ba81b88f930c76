"""What a letter says was found, in words the owner can check, and how it was found.

A violation's ``message`` is written for the utility's staff: it names features by
their ids ("tap 76 ... main 19"). An owner cannot find "tap 76". Here each violation a
notice cites becomes one or more :class:`~server.notices.letters.documents.Finding` with

* the thing, described the way an owner finds it: the property, the building sewer
  from a side of the house, the connection to the main so many feet along the main from
  the manhole nearest an address (measured in the rulebook's projected CRS);
* what is wrong with it, with the measured value and the ordinance's limit;
* the basis, stated truly: an inspection of the property on a date by whom, or the
  city's records of the sewer network as of a date (a rules run, no visit).

A clear-water violation found by a survey lists every source the inspection recorded
as connected (sump pump, roof downspout, foundation drain, yard drain), where it
discharges, how it was tested and on what date, not only the first.
"""

from __future__ import annotations

import math
import re
from dataclasses import replace
from datetime import date

import shapely
from geoalchemy2.shape import to_shape
from sqlalchemy import select

from gis.crs import Measurer
from gis.rules.registry import fmt_number, get_rule
from gis.rules.taps import fmt_clock
from server.core.accounts.models import User
from server.core.dialects import bbox_filter
from server.core.extensions import db
from server.field.checklist_templates import get_template
from server.field.checklists import clear_water_entries
from server.field.models import Inspection
from server.network.models import ClearWaterFinding, Lateral, Manhole, Parcel, SewerMain, Tap
from server.notices.clock import city_day, rulebook
from server.notices.kinds import ART_ONE_KIND, CLEAR_WATER_RULES
from server.notices.letters.documents import Finding
from server.notices.models import Notice, NoticeViolation
from server.rules.models import Violation

SOURCES = {
    "roof_downspout": "Roof downspout", "foundation_drain": "Foundation drain", "sump_pump": "Sump pump",
    "yard_drain": "Yard drain", "other": "Other source of surface runoff or groundwater",
}
DISCHARGES = {
    "sanitary_sewer": "discharges to the sanitary sewer", "storm_sewer": "discharges to the storm sewer",
    "ground_surface": "discharges onto the ground", "dry_well": "discharges to a dry well",
    "unknown": "where it discharges was not determined",
}
TESTS = {"visual": "seen (visual check)", "dye": "tested with dye", "smoke": "tested with smoke"}
RESULTS = {"positive": "positive", "negative": "negative", "inconclusive": "inconclusive"}
NEAR_DEG = 0.0015  # about 400 ft: how far to look for the address nearest a manhole

_INTERNAL_REF = re.compile(r"\s*\((?:inspection|finding) [^)]*\)")


def long_day(d: date) -> str:
    return f"{d:%B} {d.day}, {d.year}"


def owner_findings(notice: Notice) -> tuple[Finding, ...]:
    """The findings the letter of ``notice`` prints, one or more per cited violation."""
    violations = db.session.scalars(
        select(Violation).join(NoticeViolation, NoticeViolation.violation_id == Violation.id)
        .where(NoticeViolation.notice_id == notice.id).order_by(Violation.id)).all()
    parcel = db.session.get(Parcel, notice.parcel_id)
    out: list[Finding] = []
    for v in violations:
        out += _findings(v, parcel)
    if notice.kind == ART_ONE_KIND:
        # An Art. I notice cites Art. I on each finding, not § 315-13D (issue 29).
        section = str(rulebook().deadline(ART_ONE_KIND).get("section") or "Art. I")
        out = [replace(f, section=section) for f in out]
    return tuple(out)


def _findings(v: Violation, parcel: Parcel | None) -> list[Finding]:
    subjects = {layer: ident for layer, ident in reversed(v.subjects or [])}
    if "finding" in subjects:
        found = _from_clear_water_finding(v, db.session.get(ClearWaterFinding, subjects["finding"]), parcel)
        if found:
            return found
    if v.source == "inspection":
        inspection = _inspection_of(v, subjects)
        basis = _inspection_basis(inspection) if inspection else _records_basis(v, "inspection")
        if inspection is not None and v.rule_id in CLEAR_WATER_RULES:
            sources = _connected_sources(inspection, parcel, v.section, basis)
            if sources:
                return sources
        return [Finding(_inspection_text(v, inspection), v.section, basis)]
    return [Finding(_records_text(v, subjects, parcel), v.section, _records_basis(v, "network"))]


# ------------------------------------------------------------------ the basis


def _inspection_of(v: Violation, subjects: dict) -> Inspection | None:
    """The inspection that found ``v``: named among its subjects, else the parcel's latest
    failing inspection whose failures name its rule."""
    if "inspection" in subjects:
        return db.session.get(Inspection, subjects["inspection"])
    if v.parcel_id is None:
        return None
    for inspection in db.session.scalars(
            select(Inspection).where(Inspection.parcel_id == v.parcel_id, Inspection.result == "fail")
            .order_by(Inspection.finished_at.desc(), Inspection.id.desc())):
        if any(f.get("rule_id") == v.rule_id for f in inspection.failures or []):
            return inspection
    return None


def _inspection_basis(inspection: Inspection) -> str:
    inspector = db.session.get(User, inspection.inspector_id)
    who = (inspector.display_name if inspector is not None and inspector.display_name
           else "an inspector of the utility")
    return f"an inspection of the property on {long_day(city_day(inspection.finished_at))} by {who}"


def _records_basis(v: Violation, which: str) -> str:
    on = long_day(city_day(v.opened_at)) if v.opened_at else "the date of this notice"
    if which == "network":
        return f"the city's records of the sewer network as of {on}"
    return f"the utility's inspection records as of {on}"


# ------------------------------------------------------------------ what an inspection found


def _connected_sources(inspection: Inspection, parcel: Parcel | None, section: str, basis: str) -> list[Finding]:
    """Every clear-water source the inspection recorded as connected to the sanitary sewer."""
    template = get_template(inspection.template_id, inspection.template_version)
    if template is None:
        return []
    on = long_day(city_day(inspection.finished_at))
    found = []
    for entry in clear_water_entries(template.content, inspection.answers or {}):
        if entry.get("connected_to_sanitary") != "yes":
            continue
        found.append(Finding(_source_text(entry.get("source"), _entry_side(entry, parcel),
                                          entry.get("discharges_to"), entry.get("test"),
                                          entry.get("test_result"), on), section, basis))
    return found


def _source_text(source, side, discharges_to, test, result, on: str) -> str:
    where = f", on the {side} side of the lot" if side else ""
    if discharges_to == "sanitary_sewer":
        what = DISCHARGES["sanitary_sewer"]
    elif discharges_to in DISCHARGES:
        what = f"connected to the sanitary sewer ({DISCHARGES[discharges_to]})"
    else:
        what = "connected to the sanitary sewer"
    how = TESTS.get(test, "how it was tested was not recorded")
    if test in TESTS:
        how += f" on {on}"
        if result in RESULTS and test != "visual":
            how += f" ({RESULTS[result]})"
    return f"{SOURCES.get(source, SOURCES['other'])}{where}: {what}; {how}"


def _entry_side(entry: dict, parcel: Parcel | None) -> str | None:
    location = entry.get("location")
    if not location or parcel is None or location.get("type") != "Point":
        return None
    return _side(to_shape(parcel.geom), shapely.Point(location["coordinates"][:2]))


def _from_clear_water_finding(v: Violation, finding: ClearWaterFinding | None,
                              parcel: Parcel | None) -> list[Finding]:
    if finding is None:
        return []
    if finding.observed_on:
        basis = f"an inspection of the property on {long_day(finding.observed_on)}" + (
            f" by {finding.observed_by}" if finding.observed_by else "")
    else:
        basis = _records_basis(v, "network")
    side = _side(to_shape(parcel.geom), to_shape(finding.geom)) if parcel is not None else None
    on = long_day(finding.observed_on) if finding.observed_on else "a date not recorded"
    return [Finding(_source_text(finding.source, side, None, finding.method, None, on), v.section, basis)]


def _inspection_text(v: Violation, inspection: Inspection | None) -> str:
    """The checklist's own words for the failure (written for owners), else the
    violation's message without its internal references."""
    if inspection is not None:
        for failure in inspection.failures or []:
            if failure.get("rule_id") == v.rule_id and failure.get("message"):
                return _sentence(failure["message"])
    return _sentence(_INTERNAL_REF.sub("", v.message))


def _sentence(text: str) -> str:
    text = text.strip().rstrip(".")
    return text[:1].upper() + text[1:]


# ------------------------------------------------------------------ what the records show


def _measurer() -> Measurer:
    return Measurer(rulebook().measurement_crs)


def _records_text(v: Violation, subjects: dict, parcel: Parcel | None) -> str:
    primary = (v.subjects or [["parcel", v.parcel_id]])[0][0]
    if primary == "tap" and (tap := db.session.get(Tap, subjects["tap"])) is not None:
        return f"{_tap_place(tap)} {_tap_problem(v, tap)}"
    if primary == "lateral" and (lateral := db.session.get(Lateral, subjects["lateral"])) is not None:
        return f"{_lateral_place(lateral, parcel)} {_lateral_problem(v, lateral)}"
    if primary == "main":
        return f"The public sewer main that serves the property {_statement(v)}"
    return _parcel_problem(v)


def _value(v: Violation, digits: int = 1) -> str:
    return f"{v.measured:.{digits}f}" if v.measured is not None else "an unrecorded amount"


def _limit(v: Violation) -> str:
    return fmt_number(v.limit) if v.limit is not None else ""


def _statement(v: Violation) -> str:
    try:
        rule = get_rule(v.rule_id).statement
    except KeyError:
        return f"does not meet {v.section}"
    return f"does not meet {v.section}, which requires: {rule[:1].lower()}{rule[1:]}"


def _tap_place(tap: Tap) -> str:
    main = db.session.get(SewerMain, tap.main_id) if tap.main_id else None
    text = "The connection (tap) of the building sewer to the public sewer main"
    if main is None:
        return text
    m = _measurer()
    line = m.project(to_shape(main.geom))
    along = m.to_feet(line.project(m.project(to_shape(tap.geom))))
    ends = [(along, main.from_manhole_id), (m.to_feet(line.length) - along, main.to_manhole_id)]
    for feet, manhole_id in sorted(ends, key=lambda e: e[0]):
        near = _manhole_words(manhole_id)
        if near:
            return f"{text}, {feet:.0f} ft along the main from {near},"
    return text


def _manhole_words(manhole_id: int | None) -> str | None:
    """The manhole described by the address nearest to it."""
    manhole = db.session.get(Manhole, manhole_id) if manhole_id else None
    if manhole is None:
        return None
    point = to_shape(manhole.geom)
    box = (point.x - NEAR_DEG, point.y - NEAR_DEG, point.x + NEAR_DEG, point.y + NEAR_DEG)
    rows = db.session.execute(select(Parcel.site_address, Parcel.geom).where(
        bbox_filter(Parcel, box, db.session.get_bind().dialect.name), Parcel.site_address.is_not(None))).all()
    if not rows:
        return "the nearest manhole"
    address = min(rows, key=lambda r: to_shape(r.geom).distance(point)).site_address
    return f"the manhole nearest {address}"


def _tap_problem(v: Violation, tap: Tap) -> str:
    if v.rule_id == "TAP-SPACING-24IN":
        return (f"is {_value(v)} in from another building sewer's connection on the same main; "
                f"{v.section} requires at least {_limit(v)} in")
    if v.rule_id == "TAP-JOINT-6IN":
        return f"is {_value(v)} in from a joint of the main; {v.section} requires at least {_limit(v)} in"
    if v.rule_id == "TAP-QUADRANT" and v.measured is not None:
        return (f"is at {fmt_clock(v.measured)} o'clock looking downstream; {v.section} requires a tap "
                "on the upper quadrant of the main")
    if v.rule_id == "TAP-METHOD":
        made = " ".join(x for x in (tap.method, f"of {tap.fitting_material}" if tap.fitting_material else "") if x)
        return (f"was made as {made or 'a fitting not recorded'}; {v.section} requires a saddle on a cored "
                "main, or a cut-in wye or tee of the same material as the main")
    return _statement(v)


def _lateral_place(lateral: Lateral, parcel: Parcel | None) -> str:
    side = None
    if parcel is not None:
        side = _side(to_shape(parcel.geom), shapely.get_point(to_shape(lateral.geom), -1))
    where = f" from the {side} side of the house" if side else ""
    return f"The building sewer (lateral){where} to the public sewer main"


def _lateral_problem(v: Violation, lateral: Lateral) -> str:
    aspect = (v.key or "").split("|")[1] if "|" in (v.key or "") else ""
    if v.rule_id == "TRACER-WIRE":
        return {
            "missing": f"has no tracer wire; {v.section} requires tracer wire with a new or replacement "
                       "PVC building sewer",
            "follow": f"has tracer wire along only {_value(v, 0)} % of its length; {v.section} requires "
                      "tracer wire with the building sewer",
            "wall-end": f"has tracer wire that ends {_value(v)} ft from the house; {v.section} requires it "
                        "extended to the surface at the exterior wall of the building served",
            "conduit": f"has tracer wire that is not in a PVC conduit; {v.section} requires tracer wire "
                       "within a PVC conduit",
        }.get(aspect, _statement(v))
    if v.rule_id == "LATERAL-SDR26":
        found = " ".join(x for x in (lateral.material, f"SDR {lateral.sdr:g}" if lateral.sdr else "") if x)
        return (f"is recorded as {found or 'of a material not recorded'}; {v.section} requires new or "
                "replacement building sewers of ASTM D3034 SDR 26 PVC")
    if v.rule_id == "BACKFLOW-VALVE":
        state = "has no" if lateral.backflow_valve is False else "has no recorded"
        return f"{state} backflow prevention valve; {v.section} requires one on every sewer service"
    if v.rule_id == "EXCLUSIVE-SEWER":
        if aspect == "merge":
            return (f"joins another building sewer before the main; {v.section} requires a building sewer "
                    "to serve one property only")
        return (f"ends at a building on a neighbouring parcel; {v.section} requires a building sewer "
                "exclusive to its parcel")
    return _statement(v)


def _parcel_problem(v: Violation) -> str:
    if v.rule_id == "HOOKUP-365":
        distance = f" about {v.measured:.0f} ft from the building" if v.measured is not None else " by it"
        return ("The property has a building and no building sewer connected to the public sewer; "
                f"a public sewer main runs{distance}")
    if v.rule_id == "SEPTIC-IN-AREA":
        return ("The property is inside the sewer service area and is served by a septic tank or other "
                "private sewage disposal system that the Common Council has not approved")
    return f"The property {_statement(v)}"


# ------------------------------------------------------------------ directions


def _side(parcel_geom, point) -> str | None:
    """The compass side of the parcel's centre ``point`` lies on (north, east, south, west),
    or None when it is at the centre. The parcel's centre stands for the house's."""
    m = _measurer()
    centre = m.project(parcel_geom.centroid)
    p = m.project(point)
    dx, dy = p.x - centre.x, p.y - centre.y
    if math.hypot(dx, dy) < m.from_feet(3.0):
        return None
    angle = math.degrees(math.atan2(dx, dy)) % 360  # 0 = north, clockwise
    return ("north", "east", "south", "west")[int(((angle + 45) % 360) // 90)]

