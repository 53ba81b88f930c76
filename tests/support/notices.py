"""Parcels with owners, open violations, and a notice walked to any state, via the API."""

from __future__ import annotations

import itertools
from datetime import UTC, date, datetime, time, timedelta

from flask import has_app_context
from geoalchemy2.shape import from_shape, to_shape
from shapely.geometry import MultiPolygon, Point, box

from server.core.extensions import db
from server.network.models import ClearWaterFinding, Parcel
from server.notices.models import MailingBatch, Notice
from server.rules.models import Violation
from tests.support.city_calendar import city_today
from tests.support.sync import JPEG_SHA, assign, location, push, record

X, Y = -91.501, 44.253
_numbers = itertools.count(1)

OWNER = "ANN KULIG"
ADDRESS = {"mailing_street": "412 N DETTLOFF DR", "mailing_city": "ARCADIA", "mailing_state": "WI",
           "mailing_zip": "54612-1123"}
NO_STREET = {**ADDRESS, "mailing_street": None}


def add_parcel(address: dict = ADDRESS, owner: str = OWNER) -> Parcel:
    n = next(_numbers)
    x = X + 0.0005 * n
    parcel = Parcel(parcel_number=f"206-00{n:03d}-0000", owner_name=owner, site_address=f"{n} W Main St",
                    geom=from_shape(MultiPolygon([box(x, Y, x + 0.0003, Y + 0.0002)]), srid=4326), **address)
    db.session.add(parcel)
    db.session.flush()
    return parcel


def add_violation(parcel: Parcel, rule_id: str = "CLEAR-WATER", section: str = "§ 315-13D",
                  message: str = "Sump pump discharges to the floor drain") -> Violation:
    n = next(_numbers)
    v = Violation(rule_id=rule_id, section=section, key=f"{rule_id}:test:{n}", status="open",
                  source="inspection", subject_type="parcel", subject_id=parcel.id,
                  subjects=[["parcel", parcel.id]], parcel_id=parcel.id, message=message)
    db.session.add(v)
    db.session.flush()
    return v


def add_finding(parcel: Parcel, source: str, connected: str = "yes") -> ClearWaterFinding:
    """A clear-water source observed on the parcel (a survey's finding)."""
    centre = to_shape(parcel.geom).centroid
    finding = ClearWaterFinding(parcel_id=parcel.id, source=source, connected_to_sanitary=connected,
                                geom=from_shape(Point(centre.x, centre.y), srid=4326))
    db.session.add(finding)
    db.session.flush()
    return finding


# The path each state is reached by: (event, role, body).
MAILED_ON = city_today() - timedelta(days=20)
PATHS = {
    "draft": [],
    "approved": [("approve", "superintendent", {})],
    "mailed": [("approve", "superintendent", {}), ("mail", "clerk", {"mailed_on": MAILED_ON.isoformat()})],
}
PATHS["delivered"] = PATHS["mailed"] + [("deliver", "clerk", {"on": (MAILED_ON + timedelta(days=2)).isoformat()})]
PATHS["refused"] = PATHS["mailed"] + [("refuse", "clerk", {"on": (MAILED_ON + timedelta(days=3)).isoformat()})]
PATHS["unclaimed"] = PATHS["mailed"] + [("unclaimed", "clerk", {"on": (MAILED_ON + timedelta(days=15)).isoformat()})]
# Within the 10 days of § 315-21H, counted from the notice's date (the mailing day).
APPEAL = {"on": (MAILED_ON + timedelta(days=3)).isoformat(), "note": "The downspout drains to the lawn, not the sewer."}
PATHS["appealed"] = PATHS["delivered"] + [("appeal", "clerk", APPEAL)]
# The officer of the deciding body who signs a decision letter.
SIGNED = {"signed_by": "Pat Lund, President, Arcadia Utility Commission"}
# Upheld, and the decision letter mailed: the owner's clock runs again from it.
PATHS["decided"] = PATHS["appealed"] + [("decide", "clerk", {"decision": "upheld"}),
                                        ("decision-letter", "clerk", SIGNED)]
PATHS["complied"] = PATHS["delivered"] + [("comply", "superintendent", {"note": "owner showed the plumber's invoice"})]
PATHS["withdrawn"] = [("withdraw", "superintendent", {})]


def reinspect(client, auth, parcel_id: int, rule: str, days_ago: int = 2) -> int:
    """Push a passing reinspection naming ``rule``, made ``days_ago`` on an Arcadia tablet;
    its server id. (Needs the checklist ``templates`` fixture.)"""
    d = (city_today() - timedelta(days=days_ago)).isoformat()
    data = {"template_id": "reinspection", "template_version": 2, "parcel_id": parcel_id,
            "location": location(), "started_at": f"{d}T09:00:00-06:00", "finished_at": f"{d}T09:40:00-06:00",
            "replaces": None, "answers": {"notice_reference": "the notice", "violation_rule": rule,
                                          "corrected": "yes", "evidence_photo": [JPEG_SHA]},
            "photos": [{"sha256": JPEG_SHA, "item_id": "evidence_photo", "filename": "after.jpg"}]}
    assign(parcel_id, "reinspection")
    [result] = push(client, auth["inspector"], record(data))
    assert (result["status"], result.get("result")) == (201, "pass"), result
    return result["server_id"]


def post(client, auth, role, path, body=None):
    return client.post(f"/api/v1{path}", json=body if body is not None else {}, headers=auth[role])


def draft_one(client, auth) -> dict:
    r = post(client, auth, "superintendent", "/notices/draft")
    assert r.status_code == 201, r.get_json()
    return r.get_json()[0]


def approved_by(notice_ids, day: date) -> None:
    """Date the notices' approval back to ``day`` (noon UTC, morning in Arcadia): a mailing
    is refused for a day before its approval, and the tests mail in the past."""
    for notice_id in notice_ids:
        notice = db.session.get(Notice, notice_id)
        if notice.approved_at is not None:
            notice.approved_at = datetime.combine(day, time(12), tzinfo=UTC)
    db.session.flush()


def _in_app(client, change) -> None:
    """Make ``change`` inside the test's context or, for a live app's client, in one of
    its own that commits."""
    if has_app_context():
        change()
        return
    with client.application.app_context():
        change()
        db.session.commit()
        db.session.remove()


def printed_back(batch_id: int, day: date) -> None:
    """Date a printed batch back to ``day``: a mailing is refused for a day before its
    letters were printed, and the tests mail in the past. The letters keep the day they
    were printed with, so recording them prints them again with the mailing day."""
    batch = db.session.get(MailingBatch, batch_id)
    batch.printed_on = min(batch.printed_on, day)
    db.session.flush()


def mail(client, auth, notice_ids, mailed_on: date | str | None = None, role: str = "clerk", stickers=None):
    """Print the notices as one batch and record it as mailed on ``mailed_on`` (the two
    steps of the desk), with approval and printing dated back to a past mailing day.
    Returns the record's response (201 of the print on a refused print)."""
    day = date.fromisoformat(mailed_on) if isinstance(mailed_on, str) else mailed_on
    if day is not None:
        _in_app(client, lambda: approved_by(notice_ids, day))
    body = {"notice_ids": list(notice_ids), **({"stickers": stickers} if stickers else {})}
    printed = post(client, auth, role, "/mailings", body)
    if printed.status_code != 201:
        return printed
    batch = printed.get_json()
    if day is not None:
        _in_app(client, lambda: printed_back(batch["id"], day))
    return post(client, auth, role, f"/mailings/{batch['id']}/record",
                {"count": batch["pieces"], **({"mailed_on": day.isoformat()} if day else {})})


def walk(client, auth, notice_id: int, state: str) -> dict:
    """Send the events that bring a draft notice to ``state``; returns the notice."""
    body = None
    for event, role, data in PATHS[state]:
        if event == "mail":
            r = mail(client, auth, [notice_id], data.get("mailed_on"), role)
            assert r.status_code == 200, (event, r.get_json())
            continue
        r = post(client, auth, role, f"/notices/{notice_id}/{event}", data)
        assert r.status_code in (200, 201), (event, r.get_json())
        body = r.get_json()
    r = client.get(f"/api/v1/notices/{notice_id}", headers=auth["clerk"])
    assert r.get_json()["state"] == state
    return r.get_json() if body is None or "state" not in body else r.get_json()
