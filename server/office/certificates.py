"""Issuing the survey certification, and keeping it as issued.

A certification is evidence: what the Commission received must be the document the
city can show later. :func:`issue` renders it once (:mod:`server.office.certification`),
stores the PDF and its SHA-256 with the parcels it lists, and audits it; the receipt
(:mod:`server.office.certification_receipt`) names that stored document.

Every parcel the certification lists is an owner in violation whom the Commission must
notify within 5 days of receipt (Art. I, ``SURVEY-NOTIFY-5``): so each gets an open
violation to draft the notice from. A clear-water connection recorded on the map with
no open violation (a finding entered without a failed inspection) is given one when it
is certified, citing the section the certification prints.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import date

from sqlalchemy import select

from server.core.access.roles import SUPERVISORS
from server.core.audit import trail as audit
from server.core.errors import LateralError
from server.core.extensions import db
from server.field.inspections import violation_key
from server.network.models import ClearWaterFinding
from server.notices.clock import today
from server.notices.models import Notice, NoticeViolation
from server.office import certification, survey
from server.office.models import IssuedCertification
from server.rules.models import Violation

#: The rule a certified clear-water connection without a violation is opened under.
CONNECTION_RULE = "CLEAR-WATER"
CONNECTION_RULES = tuple(r for r in certification.ART_I_RULES if r != survey.ACCESS_RULE)
#: Notice states in which the owner has been sent the notice.
SENT = ("mailed", "delivered", "refused", "unclaimed", "overdue", "escalated", "appealed", "decided", "complied")


def issue(actor, on: date | None = None) -> IssuedCertification:
    """Certify the survey as it stands on ``on`` (default today), signed by ``actor``,
    and keep it.

    Raises:
        LateralError: ``forbidden`` for a role other than the superintendent's or the
            administrator's.
    """
    role = getattr(actor, "role", None)
    if role not in SUPERVISORS:
        raise LateralError("forbidden", "the superintendent certifies the survey", {"your_role": role})
    on = on or today()
    figures = certification.survey_figures()
    opened = [_open_connection(row, on, actor) for row in figures.clear_water]
    if any(opened):
        figures = certification.survey_figures()  # the counts by rule now include them
    parcels = [_listed(row, "clear_water", CONNECTION_RULES) for row in figures.clear_water]
    parcels += [_listed(row, "access_refused", (survey.ACCESS_RULE,)) for row in figures.access_refused]
    signer: str = getattr(actor, "display_name", None) or getattr(actor, "username", "") or ""
    pdf = certification.render_certification(figures, certification.city_map_data(), signer, on)
    row = IssuedCertification(certified_on=on, certified_by_id=getattr(actor, "id", None), signed_as=signer,
                              parcels=parcels, pdf=pdf, pdf_sha256=certification_sha256(pdf))
    db.session.add(row)
    db.session.flush()
    audit.record("certify", "issued_certification", row.id, None, {
        "certified_on": on.isoformat(), "pdf_sha256": row.pdf_sha256,
        "parcel_ids": [p["parcel_id"] for p in parcels], "violations_opened": [v for v in opened if v],
    }, actor)
    return row


def certification_sha256(pdf: bytes) -> str:
    return hashlib.sha256(pdf).hexdigest()


def _open_violation(parcel_id: int, rules: tuple[str, ...]) -> Violation | None:
    return db.session.scalars(select(Violation).where(
        Violation.parcel_id == parcel_id, Violation.status == "open", Violation.rule_id.in_(rules))
        .order_by(Violation.id).limit(1)).first()


def _open_connection(row: dict, on: date, actor) -> int | None:
    """The id of the violation opened for a certified clear-water connection that had
    none, or None when it had one."""
    if _open_violation(row["parcel_id"], CONNECTION_RULES) is not None:
        return None
    finding = db.session.scalars(select(ClearWaterFinding).where(
        ClearWaterFinding.parcel_id == row["parcel_id"], ClearWaterFinding.connected_to_sanitary == "yes")
        .order_by(ClearWaterFinding.id).limit(1)).first()
    key = violation_key(CONNECTION_RULE, row["parcel_id"])
    violation = Violation(
        rule_id=CONNECTION_RULE, section=row["section"], key=key, status="open", source="inspection",
        subject_type="parcel", subject_id=row["parcel_id"], subjects=[["parcel", row["parcel_id"]]],
        parcel_id=row["parcel_id"],
        message=f"Clear-water connection ({row['sources']}) certified to the Commission on {on.isoformat()}",
        evidence=finding.geom if finding is not None else None,
    )
    db.session.add(violation)
    db.session.flush()
    audit.record("open", "violation", violation.id, None,
                 {"rule_id": CONNECTION_RULE, "key": key, "certified_on": on.isoformat()}, actor)
    return violation.id


def _listed(row: dict, listed: str, rules: tuple[str, ...]) -> dict:
    violation = _open_violation(row["parcel_id"], rules)
    return {"parcel_id": row["parcel_id"], "parcel_number": row["parcel_number"], "listed": listed,
            "violation_id": violation.id if violation is not None else None}


def get(certification_id: int) -> IssuedCertification:
    found = db.session.get(IssuedCertification, certification_id)
    if found is None:
        raise LateralError("not_found", f"no survey certification with id {certification_id}")
    return found


def issued() -> list[IssuedCertification]:
    """Every certification issued, the latest first."""
    return list(db.session.scalars(select(IssuedCertification).order_by(IssuedCertification.id.desc())))


@dataclass(frozen=True)
class ListedParcel:
    """A parcel on a certification and where its owner's notice stands now."""

    parcel_id: int
    parcel_number: str
    listed: str
    violation_id: int | None
    violation_status: str | None
    notice_id: int | None
    notice_state: str | None
    mailed_on: date | None
    deadline: date | None

    @property
    def notified(self) -> bool:
        return self.notice_state in SENT


def listed_parcels(cert: IssuedCertification) -> list[ListedParcel]:
    """Each parcel the certification lists, with its violation and the latest notice citing it."""
    ids = [p["violation_id"] for p in cert.parcels if p.get("violation_id")]
    status: dict[int, str] = {vid: st for vid, st in db.session.execute(
        select(Violation.id, Violation.status).where(Violation.id.in_(ids)))}
    notices: dict[int, Notice] = {}
    for violation_id, notice in db.session.execute(
            select(NoticeViolation.violation_id, Notice).join(Notice, Notice.id == NoticeViolation.notice_id)
            .where(NoticeViolation.violation_id.in_(ids)).order_by(Notice.id)).all():
        notices[violation_id] = notice  # the latest wins
    out = []
    for p in cert.parcels:
        notice = notices.get(p.get("violation_id"))
        out.append(ListedParcel(p["parcel_id"], p["parcel_number"], p["listed"], p.get("violation_id"),
                                status.get(p.get("violation_id")), notice.id if notice else None,
                                notice.state if notice else None, notice.mailed_on if notice else None,
                                notice.deadline if notice else None))
    return out
