"""Drafting notices from open violations: one per parcel (its owner) and kind.

The owner and mailing address are copied from the tax roll when a notice is
drafted; a parcel whose address cannot carry a certified letter gets a ``held``
notice with the reason, never a broken letter. A violation is in at most one notice
that is not closed: checked here, and by a partial unique index in the database.
"""

from __future__ import annotations

import re
from collections import defaultdict

from sqlalchemy import exists, select
from sqlalchemy.exc import IntegrityError

from server.core.audit import trail as audit
from server.core.errors import LateralError
from server.core.extensions import db
from server.network.models import ClearWaterFinding, Parcel
from server.notices.kinds import ART_ONE_KIND, ART_ONE_SOURCES, CLEAR_WATER_KINDS, kind_for_rule
from server.notices.models import Notice, NoticeViolation
from server.notices.record import summary
from server.rules.models import Violation

ZIP_RE = re.compile(r"^\d{5}(-?\d{4})?$")


def address_problem(parcel: Parcel) -> str | None:
    """Why the tax roll's mailing address cannot carry a certified letter, or None."""
    missing = [label for label, value in (
        ("owner name", parcel.owner_name), ("mailing street", parcel.mailing_street),
        ("mailing city", parcel.mailing_city), ("mailing state", parcel.mailing_state),
        ("mailing ZIP", parcel.mailing_zip),
    ) if not (value or "").strip()]
    if missing:
        return f"the tax roll has no {', '.join(missing)} for parcel {parcel.parcel_number}"
    if not ZIP_RE.match(parcel.mailing_zip.strip()):
        return f"mailing ZIP {parcel.mailing_zip!r} of parcel {parcel.parcel_number} is not a ZIP code"
    if not re.fullmatch(r"[A-Za-z]{2}", parcel.mailing_state.strip()):
        return f"mailing state {parcel.mailing_state!r} of parcel {parcel.parcel_number} is not a state code"
    return None


def snapshot_owner(notice: Notice, parcel: Parcel) -> None:
    """Copy the owner and mailing address from the tax roll; hold the notice if unusable."""
    notice.parcel_number = parcel.parcel_number
    notice.site_address = parcel.site_address
    notice.owner_names = [n for n in (parcel.owner_name, parcel.owner_name_2) if n]
    notice.mailing_street = parcel.mailing_street
    notice.mailing_city = parcel.mailing_city
    notice.mailing_state = parcel.mailing_state
    notice.mailing_zip = parcel.mailing_zip
    notice.held_reason = address_problem(parcel)


def kind_for(rule_id: str, clear_water_kind: str = CLEAR_WATER_KINDS[0]) -> str:
    """The kind a violation of ``rule_id`` is drafted as (:func:`server.notices.kinds.kind_for_rule`);
    clear-water violations may be drafted under Art. I (``CW-REMOVE-150``) instead."""
    kind = kind_for_rule(rule_id)
    return clear_water_kind if kind == CLEAR_WATER_KINDS[0] else kind


def unnoticed_violations(parcel_ids: list[int] | None):
    """Open violations on a parcel that no open notice cites yet (what drafting would take)."""
    in_open_notice = exists().where(NoticeViolation.violation_id == Violation.id, NoticeViolation.closed.is_(False))
    stmt = (select(Violation).where(Violation.status == "open", Violation.parcel_id.is_not(None), ~in_open_notice)
            .order_by(Violation.parcel_id, Violation.id))
    if parcel_ids:
        stmt = stmt.where(Violation.parcel_id.in_(parcel_ids))
    return db.session.scalars(stmt).all()


def _link(notice: Notice, violations: list[Violation]) -> None:
    for v in violations:
        db.session.add(NoticeViolation(notice_id=notice.id, violation_id=v.id, closed=False))
        notice.findings = [*notice.findings, {"text": v.message, "section": v.section, "violation_id": v.id}]
        if v.section not in notice.sections:
            notice.sections = [*notice.sections, v.section]


def _new_notice(kind: str, parcel: Parcel, actor, follow_up_of: Notice | None = None) -> Notice:
    notice = Notice(kind=kind, parcel_id=parcel.id, sections=[], findings=[], owner_names=[],
                    drafted_by_id=getattr(actor, "id", None),
                    follow_up_of_id=getattr(follow_up_of, "id", None))
    snapshot_owner(notice, parcel)
    notice.state = "held" if notice.held_reason else "draft"
    db.session.add(notice)
    db.session.flush()
    return notice


def art_one_reaches(parcel_id: int | None) -> bool:
    """Whether Art. I reaches every clear-water source found connected on the parcel: at
    least one is, and each is a roof drain, foundation drain or sump pump."""
    sources = set(db.session.scalars(select(ClearWaterFinding.source).where(
        ClearWaterFinding.parcel_id == parcel_id, ClearWaterFinding.connected_to_sanitary == "yes")))
    return parcel_id is not None and bool(sources) and sources <= ART_ONE_SOURCES


def kind_of(v: Violation, clear_water_kind: str = CLEAR_WATER_KINDS[0]) -> str:
    """The kind ``v`` is drafted as: :func:`kind_for`, but the Art. I kind only where Art. I
    reaches the parcel's sources (:func:`art_one_reaches`)."""
    kind = kind_for(v.rule_id, clear_water_kind)
    if kind == ART_ONE_KIND and v.rule_id != ART_ONE_KIND and not art_one_reaches(v.parcel_id):
        return CLEAR_WATER_KINDS[0]  # a yard drain or other source: § 315-13D, not Art. I
    return kind


def draft_notices(actor, parcel_ids: list[int] | None = None, kinds: list[str] | None = None,
                  clear_water_kind: str = CLEAR_WATER_KINDS[0]) -> list[Notice]:
    """Draft notices from open violations: one per parcel (its owner) and kind.

    ``clear_water_kind`` ``CW-REMOVE-150`` (Art. I) is taken only for a parcel whose
    connected sources are all roof drains, foundation drains or sump pumps; any other
    source keeps the § 315-13D kind. A violation already in a notice that is not closed
    is skipped, so drafting twice
    drafts nothing new. New violations for a parcel that has a draft (or held) notice
    of the same kind join that notice. Returns the notices created or extended.
    """
    groups: dict[tuple[int, str], list[Violation]] = defaultdict(list)
    for v in unnoticed_violations(parcel_ids):
        kind = kind_of(v, clear_water_kind)
        if kinds is None or kind in kinds:
            groups[(v.parcel_id, kind)].append(v)
    touched = []
    for (parcel_id, kind), violations in groups.items():
        notice = db.session.scalar(
            select(Notice).where(Notice.parcel_id == parcel_id, Notice.kind == kind,
                                 Notice.state.in_(("draft", "held")), Notice.follow_up_of_id.is_(None))
            .order_by(Notice.id).limit(1))
        created = notice is None
        if created:
            notice = _new_notice(kind, db.session.get(Parcel, parcel_id), actor)
        before = None if created else summary(notice)
        _link(notice, violations)
        _flush_links()
        audit.record("draft" if created else "add_violations", "notice", notice.id, before,
                     {**summary(notice), "violation_ids": [v.id for v in violations]}, actor)
        touched.append(notice)
    return touched


def _flush_links() -> None:
    try:
        with db.session.begin_nested():
            db.session.flush()
    except IntegrityError:
        raise LateralError("violation_already_noticed",
                           "another request put one of these violations in a notice first; draft again") from None


def draft_follow_up(notice: Notice, kind: str, actor) -> Notice:
    """A follow-up notice (e.g. the ten days' notice of the hookup penalty) for the same violations."""
    links = db.session.scalars(select(NoticeViolation).filter_by(notice_id=notice.id, closed=False)).all()
    for link in links:
        link.closed = True
    db.session.flush()
    follow = _new_notice(kind, db.session.get(Parcel, notice.parcel_id), actor, follow_up_of=notice)
    _link(follow, [db.session.get(Violation, link.violation_id) for link in links])
    _flush_links()
    audit.record("draft", "notice", follow.id, None, {**summary(follow), "follow_up_of": notice.id}, actor)
    return follow

