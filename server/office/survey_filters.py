"""The survey map's filters: which parcels the parcels layer draws.

Each filter is one SQL truth about ``Parcel``; the filters given all apply (AND).
A *visit* is an inspection, dated by the day its ``finished_at`` falls on in the
server's calendar, or a clear-water finding, dated by its ``observed_on`` (the
inspector's own day; the demo city's findings have no inspection behind them). The
date range and the inspector apply to the same visit: "Kari, in May" is a visit by
Kari in May, not any visit by Kari and any visit in May.

The survey state filter is :func:`server.office.survey.parcels_text`'s, where the
states are.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta

from sqlalchemy import exists, func, or_, select, union

from server.core import city
from server.core.accounts.models import User
from server.core.extensions import db
from server.field.models import Inspection
from server.network.models import ClearWaterFinding, Parcel
from server.rules.models import Violation


@dataclass(frozen=True)
class SurveyFilter:
    """What the superintendent ticked; ``None`` or empty is "any"."""

    states: tuple[str, ...] = ()
    rule: str | None = None  # an open violation of this rule on the parcel
    visited_from: date | None = None  # inclusive
    visited_to: date | None = None  # inclusive
    inspector: str | None = None  # the name a finding or inspection carries


def inspector_name():
    """The name a user's visits go by: the one ``inspections._record_findings`` writes
    into ``observed_by``, so an inspection and its findings name the same person."""
    return func.coalesce(User.display_name, User.username)


def _day_start(day: date) -> datetime:
    # Midnight of the city's day (the rulebook's zone), as the UTC the column holds.
    return city.current().start_of(day)


def _visited(f: SurveyFilter):
    """A visit to the parcel in the date range and by the inspector that ``f`` names."""
    finding = [ClearWaterFinding.parcel_id == Parcel.id]
    inspection = [Inspection.parcel_id == Parcel.id]
    if f.visited_from is not None:
        finding.append(ClearWaterFinding.observed_on >= f.visited_from)
        inspection.append(Inspection.finished_at >= _day_start(f.visited_from))
    if f.visited_to is not None:
        finding.append(ClearWaterFinding.observed_on <= f.visited_to)
        inspection.append(Inspection.finished_at < _day_start(f.visited_to + timedelta(days=1)))
    by_inspection = exists().where(*inspection)
    if f.inspector is not None:
        finding.append(ClearWaterFinding.observed_by == f.inspector)
        by_inspection = exists().where(*inspection, User.id == Inspection.inspector_id,
                                       inspector_name() == f.inspector)
    return or_(exists().where(*finding).correlate(Parcel), by_inspection.correlate(Parcel))


def conditions(f: SurveyFilter | None) -> list:
    """WHERE clauses on ``Parcel`` for the rule, date range and inspector of ``f``."""
    if f is None:
        return []
    out = []
    if f.rule is not None:
        out.append(exists().where(Violation.parcel_id == Parcel.id, Violation.rule_id == f.rule,
                                  Violation.status == "open").correlate(Parcel))
    if f.visited_from is not None or f.visited_to is not None or f.inspector is not None:
        out.append(_visited(f))
    return out


def options() -> dict:
    """The choices the map's filter lists offer: rules with an open violation on a
    parcel, and everyone who recorded a visit."""
    rules = db.session.scalars(
        select(Violation.rule_id).where(Violation.status == "open", Violation.parcel_id.is_not(None))
        .distinct().order_by(Violation.rule_id)).all()
    names = union(
        select(ClearWaterFinding.observed_by.label("name")).where(ClearWaterFinding.observed_by.is_not(None)),
        select(inspector_name().label("name")).join(Inspection, Inspection.inspector_id == User.id),
    ).subquery()
    inspectors = db.session.scalars(select(names.c.name).order_by(names.c.name)).all()
    return {"rules": list(rules), "inspectors": list(inspectors)}
