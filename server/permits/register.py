"""The permit register: permits by state with the fees collected, its CSV export, and
what is overdue (work not started, an inspection requested and not done)."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal

from sqlalchemy import select
from sqlalchemy.orm import load_only

from server.core import city
from server.core.extensions import db
from server.network.models import Parcel
from server.permits.models import STATES, Permit, PermitTotal

COLUMNS = ("number", "kind", "state", "parcel_number", "site_address", "applicant_name", "plumber_name",
           "plumber_license", "applied_on", "approved_on", "issued_on", "work_on", "fee_total", "paid", "paid_on",
           "receipt_number", "closed_on")


@dataclass(frozen=True)
class StateTotal:
    state: str
    permits: int
    fees_collected: Decimal


#: What the Permits page shows of a permit: loading only these spares reading and
#: building each row's JSON and text columns (bench/README.md, "Permit register").
LISTED = load_only(Permit.number, Permit.kind, Permit.state, Permit.plumber_name, Permit.plumber_license,
                   Permit.applied_on, Permit.issued_on, Permit.fee_total, Permit.paid, Permit.paid_on,
                   Permit.inspection_contact, Permit.inspection_earliest, Permit.inspection_requested_on,
                   Permit.version)


def _rows(state: str | None = None, kind: str | None = None, limit: int | None = None, after: int | None = None,
          listed: bool = False):
    stmt = (select(Permit, Parcel.parcel_number, Parcel.site_address).join(Parcel, Parcel.id == Permit.parcel_id)
            .order_by(Permit.id))
    if listed:
        stmt = stmt.options(LISTED)
    if state:
        stmt = stmt.where(Permit.state == state)
    if kind:
        stmt = stmt.where(Permit.kind == kind)
    if after is not None:
        stmt = stmt.where(Permit.id > after)
    if limit is not None:
        stmt = stmt.limit(limit)
    return db.session.execute(stmt)


def page(state: str | None = None, kind: str | None = None, limit: int = 100, after: int | None = None) -> list:
    """One page of the register, in id order: ``(permit, parcel_number, site_address)`` rows."""
    return list(_rows(state, kind, limit, after, listed=True).all())


def totals() -> list[StateTotal]:
    """Permits in each state and the fees collected on them (paid permits' totals).

    Read from ``permit_totals``, which triggers on ``permits`` keep (migration 0021): 13
    rows whatever the register's size."""
    kept = {t.state: t for t in db.session.scalars(select(PermitTotal))}
    return [StateTotal(s, kept[s].row_count if s in kept else 0,
                       Decimal(kept[s].amount if s in kept else 0).quantize(Decimal("0.01"))) for s in STATES]


def csv_text(state: str | None = None, kind: str | None = None) -> str:
    """The register as CSV, one permit a line (spreadsheet formulas defused)."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(COLUMNS)
    for permit, parcel_number, site_address in _rows(state, kind).yield_per(1000):
        values = {"parcel_number": parcel_number, "site_address": site_address}
        writer.writerow([_cell(values[c] if c in values else getattr(permit, c)) for c in COLUMNS])
    return out.getvalue()


def _cell(value) -> str:
    if value is None:
        return ""
    text = value.isoformat() if isinstance(value, date) else str(value)
    # A cell a spreadsheet would run as a formula is written as text.
    return "'" + text if text[:1] in ("=", "+", "-", "@") else text


def business_days_after(day: date, n: int) -> date:
    """The ``n``-th weekday after ``day``."""
    while n > 0:
        day += timedelta(days=1)
        if day.weekday() < 5:
            n -= 1
    return day


@dataclass(frozen=True)
class Overdue:
    not_started: list[Permit]
    inspections_waiting: list[Permit]


def requested_before(today: date, business_days: int) -> date:
    """The last day an inspection could have been requested on and be overdue today: its
    ``business_days`` weekdays ran out before ``today``."""
    day = today - timedelta(days=1)
    while business_days_after(day, business_days) >= today:
        day -= timedelta(days=1)
    return day


def overdue(today: date | None = None, limit: int = 100) -> Overdue:
    """Issued permits whose work is not scheduled ``[permits] work_start_days`` after issue,
    and inspections requested and not done within ``inspection_business_days`` (the oldest
    ``limit`` of each)."""
    today = today or city.current().today()
    rules = city.current().rulebook.section("permits")
    start_by = today - timedelta(days=int(rules.get("work_start_days", 30)))
    not_started = list(db.session.scalars(select(Permit).options(LISTED)
                                          .where(Permit.state == "issued", Permit.issued_on < start_by)
                                          .order_by(Permit.issued_on, Permit.id).limit(limit)))
    last = requested_before(today, int(rules.get("inspection_business_days", 1)))
    waiting = list(db.session.scalars(select(Permit).options(LISTED).where(
        Permit.state == "inspection_requested", Permit.inspection_requested_on <= last)
        .order_by(Permit.inspection_requested_on, Permit.id).limit(limit)))
    return Overdue(not_started, waiting)


def unassigned_requests(limit: int = 100) -> list:
    """Inspections requested and not yet assigned, oldest first: ``(permit, parcel_number,
    site_address)`` rows."""
    return list(db.session.execute(
        select(Permit, Parcel.parcel_number, Parcel.site_address).join(Parcel, Parcel.id == Permit.parcel_id)
        .options(LISTED).where(Permit.state == "inspection_requested", Permit.assignment_id.is_(None))
        .order_by(Permit.id).limit(limit)).all())
