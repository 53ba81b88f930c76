"""The inspection before backfill under a permit (LATERAL-INSPECT, § 315-13C(2)).

The holder's request becomes an assignment for an inspector (:mod:`server.field.assignments`),
the tablet gets the permit's conditions with it (:func:`conditions`), a tap checklist for a
parcel without an issued tap permit is refused before anything is written (TAP-PERMIT,
:func:`check_tap_permit`), and a stored inspection passes or fails the permit
(:func:`settle`), the failures listed as corrections with their section and measured value.
"""

from __future__ import annotations

from sqlalchemy import case, func, select

from server.core import city
from server.core.errors import LateralError
from server.core.extensions import db
from server.core.models import as_utc
from server.field import assignments
from server.field.models import Assignment, Inspection
from server.permits import as_built, events, workflow
from server.permits.models import Permit

#: The checklist an inspector fills in for each kind of permit.
TEMPLATES = {"new_connection": "new-lateral", "lateral_repair": "new-lateral", "tap": "tap",
             "excavation": "new-lateral", "abandonment": "new-lateral"}
#: Permits that allow a tap on the main (§ 315-13B(1)).
TAP_KINDS = ("tap", "new_connection")
#: A permit is in force for the work from its issue until it is closed.
IN_FORCE = ("issued", "scheduled", "inspection_requested", "passed", "failed", "connected")


def request(permit: Permit, actor, inspector_id: int | None = None, **data) -> Permit:
    """The holder's request for the inspection before backfill (earliest time, contact);
    with ``inspector_id``, assigned at once."""
    workflow.request_inspection(permit, actor, **data)
    if inspector_id is not None:
        assign(permit, inspector_id, actor)
    return permit


def assign(permit: Permit, inspector_id: int, actor) -> Assignment:
    """Send an inspector to the permit's parcel with its checklist, due on the day the
    holder asked for (audited by the assignments service)."""
    if permit.state != "inspection_requested":
        raise LateralError("invalid_transition", f"permit {permit.number} is {permit.state}: no inspection is "
                                                 "requested", {"state": permit.state, "event": "assign",
                                                               "allowed_events": workflow.allowed_events(permit.state)})
    due = city.current().day_of(permit.inspection_earliest) if permit.inspection_earliest else None
    assignment = assignments.create_assignment({
        "inspector_id": inspector_id, "parcel_id": permit.parcel_id, "template_id": TEMPLATES[permit.kind],
        "due_on": due, "reason": f"Permit {permit.number}: inspection before backfill (contact: "
                                 f"{permit.inspection_contact})"[:2000]}, actor)
    permit.assignment_id = assignment.id
    db.session.flush()
    events.changed(permit, "assign", actor)
    return assignment


def conditions(permit: Permit) -> dict:
    """What the tablet shows of a permit: the connection the tap must match, the pipe,
    the tracer wire, the backflow valve and the test, each with its section."""
    rulebook = city.current().rulebook
    sdr = rulebook.rule("LATERAL-SDR26")
    test = rulebook.section("permits").get("test", {})
    section = lambda rule_id, default: rulebook.rule(rule_id).get("section", default)  # noqa: E731
    return {
        "id": permit.id, "number": permit.number, "kind": permit.kind, "state": permit.state,
        "connection_kind": permit.connection_kind, "connection_size_in": permit.connection_size_in,
        # The city's time with its offset: a tablet reads it as the holder typed it.
        "earliest": (as_utc(permit.inspection_earliest).astimezone(city.current().time_zone).isoformat()
                     if permit.inspection_earliest else None),
        "contact": permit.inspection_contact, "plumber_name": permit.plumber_name,
        "plumber_license": permit.plumber_license,
        "conditions": [
            {"rule": "TAP-PERMIT", "section": section("TAP-PERMIT", "§ 315-13B(1)"),
             "text": f"{permit.connection_size_in:g}-inch {permit.connection_kind} connection, as permitted"},
            {"rule": "LATERAL-SDR26", "section": section("LATERAL-SDR26", "§ 315-13C(3)"),
             "text": f"ASTM D3034 SDR {sdr.get('sdr', 26):g} {sdr.get('material', 'PVC')} pipe"},
            {"rule": "TRACER-WIRE", "section": section("TRACER-WIRE", "§ 315-13C(3)"),
             "text": "tracer wire in a PVC conduit extended to the surface at the exterior wall"},
            {"rule": "BACKFLOW-VALVE", "section": section("BACKFLOW-VALVE", "§ 315-12D"),
             "text": "a backflow prevention valve"},
            {"rule": "LATERAL-INSPECT", "section": test.get("section", "SPS 382.21"),
             "text": f"air test at {test.get('air_psi', 5)} psi or water test at a {test.get('water_head_ft', 10)} ft "
                     f"head, held {test.get('minutes', 15)} minutes"},
        ],
    }


def permit_of_assignment(assignment_id: int) -> Permit | None:
    return db.session.scalar(select(Permit).where(Permit.assignment_id == assignment_id))


def typed_number(answers: dict | None) -> str:
    """The permit number the inspector typed on the tap checklist (``permit_number``)."""
    return str((answers or {}).get("permit_number") or "").strip()


def _permit_numbered(number: str) -> Permit | None:
    return db.session.scalar(select(Permit).where(func.upper(Permit.number) == number.upper())) if number else None


def _tap_section() -> str:
    return city.current().rulebook.rule("TAP-PERMIT").get("section", "§ 315-13B(1)")


def check_tap_permit(template_id: str, parcel_id: int, answers: dict | None = None) -> Permit | None:
    """TAP-PERMIT (§ 315-13B(1)): a tap recorded in the field needs a tap permit (a tap's or
    a new connection's) issued for the parcel and not yet closed, and the number typed on
    the checklist must be that permit's.

    A typed number that names a permit of another parcel, of work that taps no main, or
    one not in force (not yet issued, or closed, expired, withdrawn) is refused: the
    inspection would be filed under the wrong record. A number that names no permit at
    all is a slip of the thumb on site: the tap is recorded under the parcel's permit in
    force and the slip is flagged on that permit (:func:`settle`).

    Returns:
        The permit the tap is recorded under (None for another checklist).

    Raises:
        LateralError: ``tap_without_permit``, ``permit_not_for_parcel``,
            ``permit_not_for_tap``, ``permit_not_in_force``; nothing is written.
    """
    if template_id != TEMPLATES["tap"]:
        return None
    section, number = _tap_section(), typed_number(answers)
    typed = _permit_numbered(number)
    if typed is not None:
        details = {"rule_id": "TAP-PERMIT", "section": section, "permit_number": typed.number,
                   "parcel_id": parcel_id, "field": "answers.permit_number"}
        if typed.parcel_id != parcel_id:
            raise LateralError("permit_not_for_parcel",
                               f"permit {typed.number} is for another parcel ({_place(typed.parcel_id)}), not this "
                               f"one: type the number on the permit card posted at this site ({section})",
                               {**details, "permit_parcel_id": typed.parcel_id})
        if typed.kind not in TAP_KINDS:
            raise LateralError("permit_not_for_tap",
                               f"permit {typed.number} is {_a(typed.kind.replace('_', ' '))} permit: tapping the main "
                               f"needs a tap or new connection permit ({section})", {**details, "kind": typed.kind})
        if typed.state not in IN_FORCE:
            raise LateralError("permit_not_in_force",
                               f"permit {typed.number} is {typed.state.replace('_', ' ')}, not issued and in force: "
                               f"no tap may be made under it ({section})", {**details, "state": typed.state})
        return typed
    # The permit waiting for this inspection first, else the oldest in force.
    in_force = db.session.scalar(select(Permit).where(
        Permit.parcel_id == parcel_id, Permit.kind.in_(TAP_KINDS), Permit.state.in_(IN_FORCE))
        .order_by(case((Permit.state == "inspection_requested", 0), else_=1), Permit.id).limit(1))
    if in_force is None:
        typed_note = f" (no permit is numbered {number!r})" if number else ""
        raise LateralError("tap_without_permit", f"no issued tap permit for this parcel{typed_note}: tapping a public "
                                                 f"sewer needs the Commission's permit ({section})",
                           {"rule_id": "TAP-PERMIT", "section": section, "parcel_id": parcel_id})
    return in_force


def _a(words: str) -> str:
    return ("an " if words[:1] in "aeiou" else "a ") + words


def _place(parcel_id: int) -> str:
    from server.network.models import Parcel

    parcel = db.session.get(Parcel, parcel_id)
    if parcel is None:
        return f"parcel {parcel_id}"
    return f"parcel {parcel.parcel_number}" + (f", {parcel.site_address}" if parcel.site_address else "")


def settle(inspection: Inspection, actor) -> Permit | None:
    """Pass or fail the permit whose inspection this was: the permit on the parcel waiting
    for an inspection of this checklist.

    A checklist that passes writes the as-built (:mod:`.as_built`) and the rules check it at
    once: what they find joins the inspection's violations (the tablet shows them) and the
    permit fails with a correction order. A failure lists what to correct, each with its
    section and the measured value.
    """
    if inspection.template_id == TEMPLATES["tap"] and inspection.parcel_id is not None:
        under = check_tap_permit(inspection.template_id, inspection.parcel_id, inspection.answers)
        if under is not None and (under.state != "inspection_requested" or TEMPLATES[under.kind] != "tap"):
            # A tap under an issued permit whose inspection was not requested: linked, not settled.
            return workflow.link_inspection(under, inspection.id, actor, _slip(inspection, under),
                                            on=city.current().day_of(inspection.finished_at))
        permit = under
    else:
        permit = db.session.scalar(select(Permit).where(
            Permit.parcel_id == inspection.parcel_id, Permit.state == "inspection_requested").order_by(Permit.id))
    if permit is None or TEMPLATES[permit.kind] != inspection.template_id:
        return None
    slip = _slip(inspection, permit)
    if slip:
        workflow.flag(permit, actor, slip, inspection_id=inspection.id)
    corrections = [{"item": f["item"], "section": _section_of(f.get("rule_id")), "rule_id": f.get("rule_id"),
                    "measured": _measured(inspection.answers.get(f["item"])), "note": f.get("message")}
                   for f in inspection.failures]
    if not corrections:
        found = [v for v in as_built.write(permit, inspection, actor) if v.get("status") == "open"]
        inspection.violation_ids = sorted({*inspection.violation_ids, *(v["id"] for v in found)})
        corrections = [{"item": "as_built", "section": v["section"], "rule_id": v["rule_id"],
                        "measured": _measured(_with_unit(v)), "note": v["message"]} for v in found]
    return workflow.record_result(permit, actor, passed=not corrections, inspection_id=inspection.id,
                                  corrections=corrections, on=city.current().day_of(inspection.finished_at))


def _slip(inspection: Inspection, permit: Permit) -> str | None:
    """What to flag when the number typed on site is not the permit's it was recorded under."""
    number = typed_number(inspection.answers)
    if inspection.template_id != TEMPLATES["tap"] or (number and number.upper() == (permit.number or "").upper()):
        return None
    typed = repr(number) if number else "no number"
    return (f"the tap checklist gave {typed}, which is no permit of the city: the tap was recorded under "
            f"permit {permit.number}, this parcel's tap permit in force; check the card posted at the site")


def _with_unit(violation: dict) -> str | None:
    if violation.get("measured") is None:
        return None
    return f"{violation['measured']:g} {violation.get('unit') or ''}".strip()


def _section_of(rule_id: str | None) -> str:
    return city.current().rulebook.rule(rule_id).get("section", "") if rule_id else ""


def _measured(answer) -> str | None:
    return None if answer is None else str(answer)[:80]
