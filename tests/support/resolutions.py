"""Inspections pushed to resolve what they disprove: visits on a day, reinspections of a
notice, the violations of a parcel and what the API says of them."""

from __future__ import annotations

from datetime import date, timedelta

from sqlalchemy import select

from server.core.extensions import db
from server.rules.models import Violation
from tests.support.city_calendar import city_today
from tests.support.survey import notice_for
from tests.support.sync import JPEG_SHA, assign, location, push, record, sump_pump, survey

ACCESS, CW = "SURVEY-ACCESS", "CW-DISCONNECT-60"


def day(days_ago: int) -> date:
    return city_today() - timedelta(days=days_ago)


def at(days_ago: int) -> dict:
    """started_at and finished_at of a visit that morning, on an Arcadia tablet's clock."""
    d = day(days_ago).isoformat()
    return {"started_at": f"{d}T09:00:00-06:00", "finished_at": f"{d}T09:40:00-06:00"}


def reinspection(parcel_id: int, rule: str, corrected: str = "yes", days_ago: int = 2) -> dict:
    return {"template_id": "reinspection", "template_version": 2, "parcel_id": parcel_id,
            "location": location(), **at(days_ago), "replaces": None,
            "answers": {"notice_reference": "notice of the 60-day letter", "violation_rule": rule,
                        "corrected": corrected, "evidence_photo": [JPEG_SHA]},
            "photos": [{"sha256": JPEG_SHA, "item_id": "evidence_photo", "filename": "after.jpg"}]}


def send(client, auth, data: dict) -> dict:
    """Push one inspection record by inspector1, whose assigned parcel it is; the push
    result, with the record's uuid."""
    assign(data["parcel_id"], data["template_id"])
    rec = record(data)
    [result] = push(client, auth["inspector"], rec)
    assert (result["status"], result["code"]) == (201, "created"), result
    return {**result, "uuid": rec["uuid"]}


def violations(parcel_id: int, rule_id: str) -> list[Violation]:
    return db.session.scalars(select(Violation).filter_by(parcel_id=parcel_id, rule_id=rule_id)
                              .order_by(Violation.id)).all()


def survey_state(client, auth, parcel_id: int) -> str:
    r = client.get(f"/api/v1/survey/parcels/{parcel_id}", headers=auth["clerk"])
    assert r.status_code == 200, r.get_json()
    return r.get_json()["survey_state"]


def notice(client, auth, notice_id: int) -> dict:
    return client.get(f"/api/v1/notices/{notice_id}", headers=auth["clerk"]).get_json()


def violation_props(client, auth, vid: int) -> dict:
    return client.get(f"/api/v1/violations/{vid}", headers=auth["clerk"]).get_json()["properties"]


def sump_pump_notice(client, auth, parcel_id: int) -> tuple[int, int]:
    """A sump pump found connected a month ago, and its notice mailed and delivered: the
    violation's id and the notice's."""
    send(client, auth, survey(parcel_id, [sump_pump()], **at(30)))
    [vid] = [v.id for v in violations(parcel_id, CW)]
    notice_id = notice_for(client, auth, parcel_id, mailed_days_ago=20, delivered_days_ago=18)
    assert notice(client, auth, notice_id)["kind"] == CW
    return vid, notice_id


def status(vid: int) -> tuple[str, int | None]:
    v = db.session.get(Violation, vid)
    return v.status, v.resolved_by_inspection_id
