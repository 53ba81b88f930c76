"""What became of the violations a notice cites, and the refusal to mail a notice
whose violations were all resolved since it was drafted.

A notice not yet mailed is never complied; when a later inspection resolves all it
cites, :func:`citations` says so (the API and the desk show it) and
:func:`check_violations_open` refuses to mail it (409 ``violations_resolved``): the
superintendent withdraws it instead.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime

from sqlalchemy import select

from server.core.errors import LateralError
from server.core.extensions import db
from server.core.models import as_utc
from server.field.models import Inspection
from server.notices.calendar import fmt
from server.notices.clock import city_day
from server.notices.models import Notice, NoticeViolation
from server.rules.models import Violation


@dataclass(frozen=True)
class Citations:
    """What became of the violations one notice cites.

    Attributes:
        violation_ids: The cited violations, in id order.
        open: How many of them are still open.
        waived: How many of them were waived rather than resolved (open ones aside).
        resolved_on: Once none is open, the day the last of them was closed: the day of
            the inspection that resolved it, else the day it was resolved or waived.
        resolved_by_inspection_id: The inspection that resolved that last one, if any.
        last_status: ``resolved`` or ``waived``: what happened to that last one.
    """

    violation_ids: tuple[int, ...] = ()
    open: int = 0
    waived: int = 0
    resolved_on: date | None = None
    resolved_by_inspection_id: int | None = None
    last_status: str | None = None

    @property
    def all_resolved(self) -> bool:
        """The notice cites violations and none of them is open any more."""
        return bool(self.violation_ids) and self.open == 0

    @property
    def partly_resolved(self) -> bool:
        """Some of the cited violations were closed since, and some are still open."""
        return 0 < self.open < len(self.violation_ids)

    def partly_sentence(self) -> str:
        """:attr:`partly_resolved` in plain words, e.g. "1 of the 2 violations this notice
        cites was resolved since it was drafted; its letter still lists it"."""
        count, closed = len(self.violation_ids), len(self.violation_ids) - self.open
        was, them = ("was", "it") if closed == 1 else ("were", "them")
        return (f"{closed} of the {count} violations this notice cites {was} {self._closed_verb(closed)} "
                f"since it was drafted; its letter still lists {them}")

    def note(self) -> str | None:
        """What the desk says of the notice (and records if it is withdrawn): :meth:`sentence`
        when all its violations were closed, :meth:`partly_sentence` when some were, else None."""
        if self.all_resolved:
            return self.sentence()
        return self.partly_sentence() if self.partly_resolved else None

    def _closed_verb(self, closed: int) -> str:
        """How ``closed`` violations were closed: resolved, waived, or some of each."""
        return "resolved" if not self.waived else "waived" if self.waived == closed else "resolved or waived"

    def sentence(self) -> str:
        """:attr:`all_resolved` in plain words, for the desk and the refusal to mail.

        E.g. "All 2 violations this notice cites were resolved, the last on Sat
        2026-11-28 by inspection #17".
        """
        count = len(self.violation_ids)
        verb = self._closed_verb(count)
        when = f" on {fmt(self.resolved_on)}" if self.resolved_on else ""
        by = f" by inspection #{self.resolved_by_inspection_id}" if self.resolved_by_inspection_id else ""
        if count == 1:
            return f"The violation this notice cites was {verb}{when}{by}"
        last = "the last" if self.last_status == verb else f"the last {self.last_status}"
        return f"All {count} violations this notice cites were {verb}, {last}{when}{by}"


def citations(notices: Iterable[Notice]) -> dict[int, Citations]:
    """What became of each notice's violations, read in one query for all the notices.

    A page of notices costs one query here, not one per notice.
    """
    ids = sorted({n.id for n in notices})
    if not ids:
        return {}
    rows = db.session.execute(
        select(NoticeViolation.notice_id, Violation.id.label("violation_id"), Violation.status,
               Violation.resolved_at, Violation.waived_at, Inspection.id.label("inspection_id"),
               Inspection.finished_at.label("inspected_at"))
        .join(Violation, Violation.id == NoticeViolation.violation_id)
        .outerjoin(Inspection, Inspection.id == Violation.resolved_by_inspection_id)
        .where(NoticeViolation.notice_id.in_(ids))
        .order_by(NoticeViolation.notice_id, Violation.id)).all()
    by_notice: dict[int, list] = defaultdict(list)
    for row in rows:
        by_notice[row.notice_id].append(row)
    return {notice_id: _citations(by_notice[notice_id]) for notice_id in ids}


_NEVER = datetime.min.replace(tzinfo=UTC)


def _citations(rows: list) -> Citations:
    cited = tuple(row.violation_id for row in rows)
    still_open = sum(row.status == "open" for row in rows)
    waived = sum(row.status == "waived" for row in rows)
    if not rows or still_open:
        return Citations(cited, still_open, waived)
    last = max(rows, key=lambda row: (_closed_at(row), row.violation_id))
    by_inspection = last.inspection_id if last.status == "resolved" else None
    closed_at = _closed_at(last)
    return Citations(cited, 0, waived,
                     None if closed_at == _NEVER else city_day(closed_at), by_inspection, last.status)


def _closed_at(row) -> datetime:
    """When a closed violation was closed: the resolving inspection's finish (UTC), else
    when it was resolved or waived."""
    if row.status == "waived":
        value = row.waived_at
    else:
        value = row.inspected_at if row.inspection_id is not None else row.resolved_at
    if value is None:
        return _NEVER
    return as_utc(value)


def check_violations_open(notices: Iterable[Notice]) -> None:
    """Refuse to mail notices whose violations have all been resolved since drafting.

    The letter would order the owner to correct what a later inspection found corrected
    (§ 315-21B: a notice states the violation). Such a notice is withdrawn instead
    (``withdraw``, superintendent or admin), which this does not stand in the way of.

    Raises:
        LateralError: ``violations_resolved`` naming the notices and what closed them.
    """
    found = citations(notices)
    cleared = {notice_id: c for notice_id, c in found.items() if c.all_resolved}
    if not cleared:
        return
    first_id, first = next(iter(cleared.items()))
    others, them = (f" (and {len(cleared) - 1} more)", "them") if len(cleared) > 1 else ("", "it")
    raise LateralError(
        "violations_resolved",
        f"notice {first_id}{others} cannot be mailed. {first.sentence()}; "
        f"the superintendent may withdraw {them} instead",
        {"notice_ids": list(cleared), "notices": [
            {"notice_id": notice_id, "violation_ids": list(c.violation_ids),
             "resolved_on": c.resolved_on.isoformat() if c.resolved_on else None,
             "resolved_by_inspection_id": c.resolved_by_inspection_id}
            for notice_id, c in cleared.items()]},
    )

