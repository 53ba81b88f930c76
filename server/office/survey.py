"""The superintendent's survey: each parcel's state, the progress figures, parcel search.

A parcel's survey state is the first entry of ``SURVEY_STATES`` whose condition holds, so
the states rank, highest first; every open violation and every failed inspection puts a
parcel above "Surveyed, compliant":

1. ``notice_overdue``: a notice overdue or escalated;
2. ``notice_sent``: a notice mailed, delivered, refused, unclaimed or appealed, or
   upheld or modified on appeal;
3. ``finding_open``: a clear-water connection to the sanitary sewer found, and either a
   violation still open on the parcel or none ever recorded (once the parcel's violations
   are all resolved or waived, the finding is history);
4. ``access_refused``: an open ``SURVEY-ACCESS`` violation, which the clear-water survey
   checklist opens when the owner refuses entry;
5. ``violation_open``: any other violation open on the parcel, from an inspection or from
   a run of the rules over the network, with no notice mailed yet;
6. ``predates_rule``: every violation recorded on the parcel is a finding about a
   feature built before its rule took effect (stored waived, ``rules.PREDATES``);
7. ``resolved``: no open violation, and a violation recorded (resolved or waived) or a
   notice closed (complied, decided, withdrawn);
8. ``inspection_failed``: an inspection failed and no later inspection with the same
   checklist passed (a correction stands for the record it corrects), with nothing above
   holding: a failure always opens a violation, so this is the failure whose violation
   is gone from the records (a parcel with a failure and its violation still open is
   ``violation_open``; one whose violations were resolved or waived is ``resolved``);
9. ``visit_assigned``: an open assignment: a visit is due, or made and not synced yet;
10. ``compliant``: visited (a finding or an inspection), and nothing above holds;
11. ``not_visited``: every other parcel.

A later stage of the work is one more entry, placed before the states it outranks.
"Surveyed" on the dashboard and the certification counts the parcels visited, whatever
their state: a violation resolved or a notice mailed from the desk is not a visit.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import shapely
from sqlalchemy import and_, case, exists, func, literal, not_, or_, select, tuple_
from sqlalchemy.orm import aliased

from server.core.access.roles import INSPECTOR
from server.core.dialects import bbox_filter
from server.core.errors import LateralError
from server.core.extensions import db
from server.field.models import Assignment, Inspection
from server.network.geojson import feature_text
from server.network.models import ClearWaterFinding, Parcel
from server.network.streets import find_streets
from server.notices.clock import today
from server.notices.models import CLOSED_STATES, Notice
from server.office import survey_filters, survey_history, survey_notices
from server.office.survey_filters import SurveyFilter
from server.rules.models import Violation
from server.rules.run import PREDATES

ACCESS_RULE = "SURVEY-ACCESS"  # the clear-water survey checklist's "access refused"


@dataclass(frozen=True)
class SurveyState:
    key: str
    label: str
    colour: str  # fill on the map and in the legend
    pattern: str  # drawn over the fill, so that no state is told by colour alone
    meaning: str  # what the legend says the state is
    condition: Callable[[], object] | None  # SQL truth about ``Parcel``; None: every parcel


def _finding(*where):
    return exists().where(ClearWaterFinding.parcel_id == Parcel.id, *where).correlate(Parcel)


def _visited():
    return or_(_finding(), exists().where(Inspection.parcel_id == Parcel.id).correlate(Parcel))


def _notice(states: tuple[str, ...]):
    return exists().where(Notice.parcel_id == Parcel.id, Notice.state.in_(states)).correlate(Parcel)


def _violation(*where):
    return exists().where(Violation.parcel_id == Parcel.id, *where).correlate(Parcel)


def _open_violation(*where):
    return _violation(Violation.status == "open", *where)


def _finding_open():
    return and_(_finding(ClearWaterFinding.connected_to_sanitary == "yes"),
                or_(_open_violation(), not_(_violation())))


def _predates_rule():
    """Every violation recorded on the parcel pre-dates its rule (none open)."""
    predates = Violation.waiver_reason.like(f"{PREDATES}%")
    return and_(_violation(Violation.status == "waived", predates),
                not_(_violation(or_(Violation.status != "waived", Violation.waiver_reason.is_(None), not_(predates)))))


def _standing(inspection):
    """``inspection`` (an alias of ``Inspection``) is not replaced by a correction."""
    correction = aliased(Inspection)
    return not_(exists().where(correction.replaces_id == inspection.id))


def _inspection_failed():
    """A standing inspection failed, and no later standing one with its checklist passed."""
    failed, later = aliased(Inspection), aliased(Inspection)
    passed_since = exists().where(later.parcel_id == failed.parcel_id, later.template_id == failed.template_id,
                                  later.result == "pass", later.finished_at > failed.finished_at, _standing(later))
    return exists().where(failed.parcel_id == Parcel.id, failed.result == "fail", _standing(failed),
                          not_(passed_since)).correlate(Parcel)


def _visit_assigned():
    return exists().where(Assignment.parcel_id == Parcel.id, Assignment.status == "open").correlate(Parcel)


def _notice_where(*where):
    return exists().where(Notice.parcel_id == Parcel.id, *where).correlate(Parcel)


#: A decision on appeal that keeps the notice open, its clock set again.
_STANDS = Notice.decision.in_(("upheld", "modified"))


def _closed_notice():
    """Complied, withdrawn, or decided on appeal without the notice standing (overturned)."""
    return or_(_notice(CLOSED_STATES), _notice_where(Notice.state == "decided", or_(Notice.decision.is_(None),
                                                                                   not_(_STANDS))))


def _notice_sent():
    return or_(_notice(("mailed", "delivered", "refused", "unclaimed", "appealed")),
               _notice_where(Notice.state == "decided", _STANDS))


def _resolved():
    return and_(not_(_open_violation()), or_(_violation(), _closed_notice()))


# Eight of the colours tell any two of their states apart as the map's 55 % fills and the
# certification's full ones, to red-green colour-blind eyes too (CIEDE2000 over 8,
# simulated deuteranopia and protanopia included); eleven colours cannot all be, so every
# state but the last two also has a pattern (``state_patterns.svg``: the map draws it over
# the fill and the legend shows it), and the map's tooltip and panel name the state in
# words. The panel's badge writes on each colour in black or white, whichever reads.
SURVEY_STATES: list[SurveyState] = [
    SurveyState("notice_overdue", "Notice overdue", "#67001f", "cross",
                "A notice's deadline has passed (overdue or escalated).",
                lambda: _notice(("overdue", "escalated"))),
    SurveyState("notice_sent", "Notice mailed", "#7b3294", "diagonal",
                "A notice is mailed and its deadline running, or under appeal.", _notice_sent),
    SurveyState("finding_open", "Clear-water connection found", "#d7301f", "dots",
                "A clear-water source found connected to the sanitary sewer, not yet disconnected.",
                _finding_open),
    SurveyState("access_refused", "Access refused", "#e6ab02", "horizontal",
                "The owner refused the inspector entry; no notice mailed yet.",
                lambda: _open_violation(Violation.rule_id == ACCESS_RULE)),
    SurveyState("violation_open", "Open violation", "#ff7f00", "vertical",
                "A violation of another rule is open; no notice mailed yet.", _open_violation),
    SurveyState("predates_rule", "Pre-dates the rule", "#a6761d", "antidiagonal",
                "Every violation found is of a feature built before its rule took effect.", _predates_rule),
    SurveyState("resolved", "Resolved", "#4393c3", "grid",
                "Every violation found is resolved or waived, or the notice closed.", _resolved),
    SurveyState("inspection_failed", "Inspection failed", "#e7298a", "checker",
                "An inspection failed and no later one with its checklist passed.", _inspection_failed),
    SurveyState("visit_assigned", "Visit assigned", "#80cdc1", "ring",
                "An inspector is assigned to visit; due, or made and not synced yet.", _visit_assigned),
    SurveyState("compliant", "Surveyed, compliant", "#1a9850", "plain",
                "Visited, and nothing open or failed.", _visited),
    SurveyState("not_visited", "Not visited", "#bdbdbd", "plain",
                "Neither inspected nor surveyed, nothing recorded.", None),
]


def state_expression():
    """SQL CASE giving each parcel its survey state key."""
    whens = [(s.condition(), literal(s.key)) for s in SURVEY_STATES if s.condition is not None]
    default = next(s.key for s in SURVEY_STATES if s.condition is None)
    return case(*whens, else_=literal(default))


def ink_on(colour: str) -> str:
    """Black or white, whichever reads better on a "#rrggbb" fill (WCAG relative luminance):
    the pattern's marks and the panel's badge text on each state's colour."""
    def channel(i: int) -> float:
        c = int(colour[i:i + 2], 16) / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    lum = 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5)
    return "#000000" if (lum + 0.05) / 0.05 > 1.05 / (lum + 0.05) else "#ffffff"


def legend() -> list[dict]:
    return [{"key": s.key, "label": s.label, "colour": s.colour, "ink": ink_on(s.colour), "pattern": s.pattern,
             "meaning": s.meaning} for s in SURVEY_STATES]


def parcels_text(bbox, limit: int, only: SurveyFilter | None = None) -> tuple[list[str], bool]:
    """Parcels in ``bbox`` as GeoJSON Feature texts with their survey state; and whether more exist.

    ``only`` leaves out the parcels that do not match the map's filters.
    """
    state = state_expression().label("survey_state")
    stmt = (select(Parcel.id, func.ST_AsBinary(Parcel.geom), Parcel.parcel_number, Parcel.site_address, state)
            .where(bbox_filter(Parcel, bbox, db.session.get_bind().dialect.name),
                   *survey_filters.conditions(only))
            .order_by(Parcel.id).limit(limit + 1))
    if only is not None and only.states:
        stmt = stmt.where(state_expression().in_(only.states))
    rows = db.session.execute(stmt).all()
    more = len(rows) > limit
    rows = rows[:limit]
    texts = shapely.to_geojson(shapely.from_wkb([bytes(r[1]) for r in rows])) if rows else []
    return [
        feature_text(r[0], text, {"parcel_number": r[2], "site_address": r[3], "survey_state": r[4]})
        for r, text in zip(rows, texts, strict=True)
    ], more


# The search's order, site address then id, and so the key its pages start after: a parcel
# with no address sorts as the empty address (first, on both engines, where a bare
# ``ORDER BY site_address`` puts NULL first on SQLite and last on PostgreSQL).
SEARCH_KEY = (str, int)


def search(query: str, limit: int = 10, after: tuple[str, int] | None = None,
           ) -> tuple[list[dict], tuple[str, int] | None]:
    """Parcels whose number starts with, or whose site address contains, ``query``.

    One page of ``limit`` in (site address, id) order, starting after the key ``after``;
    returns it with the key of its last parcel while more match, else None.
    """
    q = query.strip().lower()
    if not q:
        return [], None
    escaped = q.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    # One expression for the ORDER BY and the keyset's comparison, so the database
    # compares the cursor under the collation it sorted by.
    address = func.coalesce(Parcel.site_address, "")
    stmt = (select(Parcel.id, Parcel.parcel_number, Parcel.site_address, Parcel.owner_name,
                   func.ST_AsBinary(Parcel.geom), address.label("order_address"))
            .where(or_(func.lower(Parcel.parcel_number).like(f"{escaped}%", escape="\\"),
                       func.lower(Parcel.site_address).like(f"%{escaped}%", escape="\\")))
            .order_by(address, Parcel.id).limit(limit + 1))  # one more: whether a next page exists
    if after is not None:
        stmt = stmt.where(tuple_(address, Parcel.id) > tuple_(literal(after[0]), literal(after[1])))
    rows = db.session.execute(stmt).all()
    results = [{"id": pid, "parcel_number": number, "site_address": site, "owner_name": owner,
                "bbox": list(shapely.from_wkb(bytes(wkb)).bounds)}
               for pid, number, site, owner, wkb, _ in rows[:limit]]
    if len(rows) <= limit:
        return results, None
    last = rows[limit - 1]
    return results, (last.order_address, last.id)


def search_streets(query: str) -> list[dict]:
    """The streets, or blocks of them, a search names (:func:`server.network.streets.find_streets`)."""
    return find_streets(query)


def parcel_survey(pid: int, viewer=None) -> dict:
    """What the map's side panel shows for one parcel: owner, state, findings, violations,
    inspections newest first (an inspector sees their own) and notices newest first."""
    row = db.session.execute(select(Parcel, state_expression(), func.ST_AsBinary(Parcel.geom))
                             .where(Parcel.id == pid)).one_or_none()
    if row is None:
        raise LateralError("not_found", f"no parcel with id {pid}")
    parcel, state, wkb = row
    findings = db.session.scalars(
        select(ClearWaterFinding).where(ClearWaterFinding.parcel_id == pid).order_by(ClearWaterFinding.id))
    violations = db.session.scalars(select(Violation).where(Violation.parcel_id == pid).order_by(Violation.id))
    return {
        "id": parcel.id,
        "parcel_number": parcel.parcel_number,
        "owner_name": parcel.owner_name,
        "owner_name_2": parcel.owner_name_2,
        "site_address": parcel.site_address,
        "mailing_address": ", ".join(filter(None, (parcel.mailing_street, parcel.mailing_city,
                                                   " ".join(filter(None, (parcel.mailing_state,
                                                                          parcel.mailing_zip)))))),
        "survey_state": state,
        "bbox": list(shapely.from_wkb(bytes(wkb)).bounds),
        "findings": [{"id": f.id, "source": f.source, "connected_to_sanitary": f.connected_to_sanitary,
                      "observed_on": f.observed_on.isoformat() if f.observed_on else None,
                      "method": f.method, "notes": f.notes} for f in findings],
        "violations": [{"id": v.id, "rule_id": v.rule_id, "section": v.section, "status": v.status,
                        "measured": v.measured, "limit": v.limit, "unit": v.unit, "message": v.message}
                       for v in violations],
        "inspections": survey_history.inspections_of(pid, viewer),
        "inspections_scope": "own" if viewer is not None and viewer.role == INSPECTOR else "all",
        "notices": survey_notices.notices_of(pid),
    }


def progress() -> dict:
    """The dashboard's figures: parcels by survey state, findings by source, open violations
    by rule, notices by state, the deadlines of the next days and the notices past theirs."""
    state = state_expression().label("state")
    by_state = dict(db.session.execute(select(state, func.count()).select_from(Parcel).group_by(state)).all())
    total = sum(by_state.values())
    findings = db.session.execute(
        select(ClearWaterFinding.source, func.count()).group_by(ClearWaterFinding.source)
        .order_by(func.count().desc(), ClearWaterFinding.source)).all()
    violations = db.session.execute(
        select(Violation.rule_id, Violation.section, func.count()).where(Violation.status == "open")
        .group_by(Violation.rule_id, Violation.section).order_by(func.count().desc(), Violation.rule_id)).all()
    return {
        "parcels": total,
        "surveyed": db.session.scalar(select(func.count()).select_from(Parcel).where(_visited())),
        "by_state": [{**s, "count": by_state.get(s["key"], 0)} for s in legend()],
        "findings_by_source": [{"source": src, "count": n} for src, n in findings],
        "connected_findings": db.session.scalar(select(func.count()).where(
            ClearWaterFinding.connected_to_sanitary == "yes")),
        "violations_by_rule": [{"rule_id": r, "section": s, "count": n} for r, s, n in violations],
        "today": today().isoformat(),
        "notices_by_state": survey_notices.by_state(),
        "upcoming_days": survey_notices.UPCOMING_DAYS,
        "deadlines_soon": survey_notices.deadlines_within(),
        "past_deadline": survey_notices.past_deadline(),
    }
