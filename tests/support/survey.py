"""What the field and the desk add to the demo city for the survey tests: inspections
pushed by an inspector, notices walked through the real workflow."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select

from server.core.extensions import db
from server.network.models import ClearWaterFinding, Parcel
from tests.support.city_calendar import city_today
from tests.support.notices import add_violation, mail, post
from tests.support.sync import push, record, survey

CITY_BBOX = "-91.52,44.24,-91.48,44.27"


def unvisited_parcels(n: int) -> list[Parcel]:
    """``n`` parcels with no finding (the demo city has no inspections), in id order."""
    return db.session.scalars(
        select(Parcel).where(Parcel.id.not_in(select(ClearWaterFinding.parcel_id).where(
            ClearWaterFinding.parcel_id.is_not(None)))).order_by(Parcel.id).limit(n)).all()


def inspect(client, auth, parcel_id: int, role: str = "inspector", **data) -> dict:
    """Push one clear-water survey of the parcel; returns the push result with its uuid."""
    rec = record(survey(parcel_id, **data))
    result = push(client, auth[role], rec)[0]
    assert (result["status"], result["code"]) == (201, "created"), result
    return {**result, "uuid": rec["uuid"]}


def notice_through(client, auth, parcel, mailed_days_ago: int | None, delivered_days_ago: int | None = None) -> int:
    """A notice for an open violation of ``parcel``, approved, mailed and delivered that
    many days ago (None: not that far); returns its id."""
    add_violation(parcel)
    return notice_for(client, auth, parcel.id, mailed_days_ago, delivered_days_ago)


def notice_for(client, auth, parcel_id: int, mailed_days_ago: int | None,
               delivered_days_ago: int | None = None) -> int:
    """The notice the desk drafts for the parcel's open violations (the first, if they
    make several), walked as :func:`notice_through` walks it; returns its id."""
    r = post(client, auth, "superintendent", "/notices/draft", {"parcel_ids": [parcel_id]})
    assert r.status_code == 201, r.get_json()
    notice_id = r.get_json()[0]["id"]
    if mailed_days_ago is None:
        return notice_id
    steps = [("approve", "superintendent", {}),
             ("mail", "clerk", {"mailed_on": (city_today() - timedelta(days=mailed_days_ago)).isoformat()})]
    if delivered_days_ago is not None:
        steps.append(("deliver", "clerk", {"on": (city_today() - timedelta(days=delivered_days_ago)).isoformat()}))
    for event, role, body in steps:
        r = (mail(client, auth, [notice_id], body["mailed_on"], role) if event == "mail"
             else post(client, auth, role, f"/notices/{notice_id}/{event}", body))
        assert r.status_code in (200, 201), (event, r.get_json())
    return notice_id
