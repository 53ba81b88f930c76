"""Notices as the survey map and dashboard show them: a parcel's notices, notices by
state, the deadlines coming up and the notices past theirs.

A notice's clock runs from the day it is served (``server.notices.clock.start_clock``)
to its ``deadline``, the last day the owner has. While it runs (mailed or served) the
deadline is *coming up*; once the day is past, the notice is *overdue*: the daily tick
marks it so (state ``overdue``, then ``escalated``), and until the tick has run the
overdue list shows it with the state it still has. "Today" is the notice service's
clock, so the dashboard and the tick agree on the day.
"""

from __future__ import annotations

from datetime import date, timedelta

from sqlalchemy import and_, func, or_, select

from server.core.extensions import db
from server.notices import clock as notice_clock
from server.notices.kinds import KINDS
from server.notices.models import STATES, Notice
from server.notices.workflow import SERVED

UPCOMING_DAYS = 14
#: The owner's clock runs and the tick has not called the notice overdue.
RUNNING = ("mailed", *SERVED)
#: The tick called the notice overdue.
OVERDUE = ("overdue", "escalated")
LISTED = 500  # rows per dashboard table; a city's notices in two weeks are far fewer


def _past_deadline(today: date):
    return or_(Notice.state.in_(OVERDUE),
               and_(Notice.state.in_(RUNNING), Notice.deadline.is_not(None), Notice.deadline < today))


def notice_row(n: Notice, today: date) -> dict:
    """One notice for the panel and the dashboard's tables."""
    clock = n.state in RUNNING + OVERDUE and n.deadline is not None
    return {
        "id": n.id, "kind": n.kind, "title": KINDS[n.kind].title if n.kind in KINDS else n.kind,
        "sections": list(n.sections or []), "state": n.state, "parcel_id": n.parcel_id,
        "parcel_number": n.parcel_number, "site_address": n.site_address,
        "mailed_on": n.mailed_on.isoformat() if n.mailed_on else None,
        "served_on": n.served_on.isoformat() if n.served_on else None,
        "deadline": n.deadline.isoformat() if n.deadline else None,
        # Days to the last day while the clock runs (negative: past it); None when closed.
        "days_left": (n.deadline - today).days if clock else None,
        "overdue": n.state in OVERDUE or (clock and n.deadline < today),
    }


def notices_of(parcel_id: int) -> list[dict]:
    """The parcel's notices, newest first."""
    today = notice_clock.today()
    rows = db.session.scalars(select(Notice).where(Notice.parcel_id == parcel_id).order_by(Notice.id.desc()))
    return [notice_row(n, today) for n in rows]


def by_state() -> list[dict]:
    """Notices per state, in the workflow's order; states no notice is in are left out."""
    counts = dict(db.session.execute(select(Notice.state, func.count()).group_by(Notice.state)).all())
    return [{"state": s, "count": counts[s]} for s in STATES if counts.get(s)]


def deadlines_within(days: int = UPCOMING_DAYS) -> list[dict]:
    """Running notices whose last day is today or within ``days`` days, soonest first."""
    today = notice_clock.today()
    rows = db.session.scalars(
        select(Notice).where(Notice.state.in_(RUNNING), Notice.deadline >= today,
                             Notice.deadline <= today + timedelta(days=days))
        .order_by(Notice.deadline, Notice.id).limit(LISTED))
    return [notice_row(n, today) for n in rows]


def past_deadline() -> list[dict]:
    """Notices past their deadline (marked overdue or escalated, or not yet marked), longest first."""
    today = notice_clock.today()
    rows = db.session.scalars(
        select(Notice).where(_past_deadline(today))
        # No deadline sorts last on both databases (SQLite puts NULL first).
        .order_by(Notice.deadline.is_(None), Notice.deadline, Notice.id).limit(LISTED))
    return [notice_row(n, today) for n in rows]
