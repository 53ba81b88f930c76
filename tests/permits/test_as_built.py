"""A passed inspection under a permit writes the as-built (lateral, tap, tracer wire, with
their provenance), the rules check it at once, and an abandonment keeps the lateral."""

from __future__ import annotations

from sqlalchemy import select

from server.core.extensions import db
from server.field.models import Inspection
from server.network.models import Lateral, Tap, TracerWire
from server.permits.models import Permit
from tests.support.features import point
from tests.support.permits import apply, walk
from tests.support.sync import JPEG_SHA, make_feature, push, record, survey

REQUEST = {"earliest": "2099-06-15T08:00:00-05:00", "contact": "Dana, 608-555-0110"}
PHOTO_ITEMS = ("pipe_marking_photo", "tracer_wire_photo", "backflow_valve_photo")


#: About 58.6 ft along the main from its upstream end: 6.6 ft clear of the 13-ft joints.
TAP_DX = 0.000224


def _new_lateral(parcel_id: int, tap_dx: float = TAP_DX) -> dict:
    answers = {"pipe_exposed": "yes", "pipe_marked_sdr26": "yes", "diameter_in": 6, "tracer_wire_present": "yes",
               "tracer_wire_in_conduit": "yes", "tracer_wire_at_wall": "yes", "backflow_valve_installed": "yes",
               "backfill_layer_in": 6, "excavation_permit": "n/a", "test_method": "air", "test_result": "pass",
               "test_pressure": 5, "test_minutes": 15, "tap_location": point(dx=tap_dx),
               "wall_location": point(dx=tap_dx, dy=0.0002), "downstream_manhole_ft": 112.5, "clock_position": 12,
               **{item: [JPEG_SHA] for item in PHOTO_ITEMS}}
    photos = [{"sha256": JPEG_SHA, "item_id": item, "filename": f"{item}.jpg"} for item in PHOTO_ITEMS]
    return {**survey(parcel_id, []), "template_id": "new-lateral", "template_version": 3, "answers": answers,
            "photos": photos}


def _requested(client, auth, parcel_id: int, **changes) -> int:
    permit = apply(client, auth, parcel_id, **changes)
    walk(client, auth, permit["id"], "scheduled")
    response = client.post(f"/api/v1/permits/{permit['id']}/request_inspection", json=REQUEST, headers=auth["clerk"])
    assert response.status_code == 200, response.get_json()
    return permit["id"]


def _main(**props) -> int:
    return make_feature("mains", **{"segment_length_ft": None, **props})


def test_a_passed_inspection_writes_the_as_built_with_its_provenance(client, auth, templates, parcel):
    main_id = _main()
    permit_id = _requested(client, auth, parcel.id)
    [result] = push(client, auth["inspector"], rec := record(_new_lateral(parcel.id)))
    assert result.get("result") == "pass", result
    permit = db.session.get(Permit, permit_id)
    assert permit.state == "passed", permit.corrections
    lateral = db.session.get(Lateral, permit.lateral_id)
    provenance = (permit.number, rec["uuid"])
    assert (lateral.parcel_id, lateral.material, lateral.sdr, lateral.diameter_in) == (parcel.id, "PVC", 26, 6)
    assert (lateral.permit_number, lateral.inspection_uuid) == provenance
    tap = db.session.scalar(select(Tap).filter_by(lateral_id=lateral.id))
    assert (tap.main_id, tap.clock_position, tap.downstream_manhole_ft) == (main_id, 12, 112.5)
    assert (tap.permit_number, tap.inspection_uuid) == provenance
    wire = db.session.scalar(select(TracerWire).filter_by(lateral_id=lateral.id))
    assert wire.reaches_surface_at_wall is True and wire.inspection_uuid == rec["uuid"]
    served = client.get(f"/api/v1/laterals/{lateral.id}", headers=auth["inspector"]).get_json()
    assert served["properties"]["permit_number"] == permit.number


def test_the_rules_check_the_as_built_at_once_and_a_failure_is_a_correction_order(client, auth, templates, parcel):
    main_id = _main()
    make_feature("taps", geometry=point(dx=TAP_DX + 0.000003), main_id=main_id)  # about 9 in along the main
    permit_id = _requested(client, auth, parcel.id)
    [result] = push(client, auth["inspector"], rec := record(_new_lateral(parcel.id)))
    permit = db.session.get(Permit, permit_id)
    assert permit.state == "failed"
    spacing = [c for c in permit.corrections if c["rule_id"] == "TAP-SPACING-24IN"]
    assert spacing and spacing[0]["section"] == "§ 315-13B(2)" and spacing[0]["measured"].endswith("in")
    inspection = db.session.scalar(select(Inspection).filter_by(uuid=rec["uuid"]))
    assert spacing[0]["note"] and inspection.violation_ids  # the tablet's result shows them
    assert result.get("result") == "pass"  # the checklist passed; the rules found the as-built wrong


def test_an_abandonment_keeps_the_lateral_marked_abandoned_with_its_day(client, auth, templates, parcel):
    lateral_id = make_feature("laterals", parcel_id=parcel.id)
    permit_id = _requested(client, auth, parcel.id, kind="abandonment", lateral_id=lateral_id)
    answers = _new_lateral(parcel.id)
    del answers["answers"]["tap_location"], answers["answers"]["wall_location"]
    [result] = push(client, auth["inspector"], record(answers))
    assert result.get("result") == "pass", result
    lateral = db.session.get(Lateral, lateral_id)
    assert lateral.status == "abandoned" and lateral.abandoned_on.isoformat() == "2026-11-30"
    assert db.session.get(Permit, permit_id).state == "passed"


