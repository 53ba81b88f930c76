"""Plumbers' CCTV submittals: a verified plumber's camera inspection of a lateral, its coded
observations and its video, and the superintendent's decision on it.

* :func:`submit` keeps the submittal and its observations (NASSCO LACP terms, checked by
  :mod:`server.portal.lacp`); a bad value names its field and nothing is kept.
* :func:`check_video` and :func:`attach_video`: the video arrives over tus
  (``/api/v1/portal/cctv/uploads``, :mod:`server.portal.cctv_pages`); its bytes tell its
  type (:mod:`server.portal.video`), and only the submittal's own plumber can send it.
* :func:`certify` issues the certificate of compliance (a PDF kept with its SHA-256,
  recorded against the parcel, its lateral, the permit and the submittal);
  :func:`order_repair` makes the observations the reviewer picks violations of
  ``LATERAL-REPAIR`` (§ 315-12B, C) and drafts the repair notice through the notices
  domain's own drafting, so it follows the notice workflow from there.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from datetime import date

from sqlalchemy import select

from server.core import city
from server.core.accounts.models import User
from server.core.audit import trail as audit
from server.core.errors import LateralError
from server.core.extensions import db
from server.core.models import utcnow
from server.network.models import Lateral, Parcel
from server.notices.drafts import draft_notices
from server.notices.letters.notice import long_date
from server.notices.models import Notice
from server.permits.models import Permit
from server.portal import lacp, plumbers
from server.portal.cctv_models import DECIDED, CctvCertificate, CctvObservation, CctvSubmittal
from server.portal.i18n import _
from server.portal.receipts import render_receipt
from server.portal.video import NotAVideo, media_type
from server.rules.models import Violation

REPAIR_KIND = "LATERAL-REPAIR"
REPAIR_SECTION = "§ 315-12B"
MAX_OBSERVATIONS = 200
MAX_NOTE = 4000


@dataclass(frozen=True)
class Submission:
    """What the plumber's form sends, as text."""

    parcel_number: str
    inspected_on: str
    observations: list[dict] = field(default_factory=list)
    permit_number: str = ""
    notice_id: str = ""
    note: str = ""


def _refuse(field_name: str, message: str) -> LateralError:
    return LateralError("invalid_fields", message, {"fields": {field_name: [message]}})


def _may_submit(user: User) -> None:
    found = plumbers.license_of(user)
    if found.verified_at is None:
        raise LateralError("forbidden", _("the clerk has not verified your license yet"))
    if found.expires_on < city.current().today():
        raise LateralError("license_expired", _("your license expired on %(day)s; send the renewed license to the "
                                                "clerk first", day=found.expires_on.isoformat()),
                           {"expires_on": found.expires_on.isoformat()})


def _parcel(number: str) -> Parcel:
    parcel = db.session.scalar(select(Parcel).filter_by(parcel_number=(number or "").strip()))
    if parcel is None:
        raise _refuse("parcel_number", _("no parcel has this number; type it as on the tax bill"))
    return parcel


def _permit(number: str, parcel: Parcel, user: User) -> Permit | None:
    text = (number or "").strip()
    if not text:
        return None
    permit = db.session.scalar(select(Permit).filter_by(number=text))
    lic = plumbers.license_of(user)
    # Another plumber's permit is no different from no permit.
    if permit is None or permit.plumber_license != lic.license_number:
        raise _refuse("permit_number", _("none of your permits has this number"))
    if permit.parcel_id != parcel.id:
        raise _refuse("permit_number", _("this permit is for another parcel"))
    return permit


def _notice(value: str, parcel: Parcel) -> Notice | None:
    text = (value or "").strip()
    if not text:
        return None
    notice = db.session.get(Notice, int(text)) if text.isascii() and text.isdigit() and len(text) < 10 else None
    if notice is None or notice.parcel_id != parcel.id:
        raise _refuse("notice_id", _("no notice of this parcel has this number"))
    return notice


def _inspected_on(value: str) -> date:
    try:
        day = date.fromisoformat((value or "").strip())
    except ValueError:
        raise _refuse("inspected_on", _("the day of the camera inspection, as a date")) from None
    if day > city.current().today():
        raise _refuse("inspected_on", _("the day of the camera inspection cannot be in the future"))
    return day


def check_observations(rows: list[dict]) -> list[lacp.Observation]:
    """Each row checked; blank rows skipped; at least one.

    Raises:
        LateralError: ``invalid_fields`` naming ``observations.<n>.<field>`` (n from 1).
    """
    rows = [r for r in rows if any(str(v or "").strip() for v in r.values())]
    if not rows:
        raise _refuse("observations", _("record at least one observation of the report"))
    if len(rows) > MAX_OBSERVATIONS:
        raise _refuse("observations", _("at most %(most)s observations", most=MAX_OBSERVATIONS))
    out = []
    for n, row in enumerate(rows, start=1):
        try:
            out.append(lacp.check(row))
        except lacp.BadObservation as exc:
            why = _("observation %(n)s: %(why)s", n=n, why=exc.message)
            raise _refuse(f"observations.{n}.{exc.field}", why) from None
    return out


def submit(user: User, s: Submission) -> CctvSubmittal:
    """Keep a verified plumber's submittal, awaiting its video.

    Raises:
        LateralError: ``invalid_fields`` naming the field, ``license_expired``, ``forbidden``.
    """
    _may_submit(user)
    parcel = _parcel(s.parcel_number)
    permit = _permit(s.permit_number, parcel, user)
    notice = _notice(s.notice_id, parcel)
    inspected_on = _inspected_on(s.inspected_on)
    note = (s.note or "").strip() or None
    if note and len(note) > MAX_NOTE:
        raise _refuse("note", _("the note: at most %(most)s characters", most=MAX_NOTE))
    observations = check_observations(s.observations)
    submittal = CctvSubmittal(plumber_id=user.id, parcel_id=parcel.id, permit_id=getattr(permit, "id", None),
                              notice_id=getattr(notice, "id", None), state="awaiting_video",
                              inspected_on=inspected_on, note=note)
    db.session.add(submittal)
    db.session.flush()
    for n, o in enumerate(observations, start=1):
        db.session.add(CctvObservation(submittal_id=submittal.id, position=n, code=o.code,
                                       distance_ft=float(o.distance_ft), clock=o.clock, grade=o.grade,
                                       seconds=float(o.seconds) if o.seconds is not None else None,
                                       remark=o.remark))
    db.session.flush()
    audit.record("submit_cctv", "cctv_submittal", submittal.id, None,
                 {"via": "portal", "parcel_id": parcel.id, "permit_id": submittal.permit_id,
                  "notice_id": submittal.notice_id, "observations": len(observations)}, user)
    return submittal


# ------------------------------------------------------------------ reading


def own(user: User, submittal_id: int) -> CctvSubmittal:
    """The plumber's own submittal; anyone else's is not found."""
    found = db.session.get(CctvSubmittal, submittal_id)
    if found is None or found.plumber_id != user.id:
        raise LateralError("not_found", "no such submittal")
    return found


def get(submittal_id: int) -> CctvSubmittal:
    found = db.session.get(CctvSubmittal, submittal_id)
    if found is None:
        raise LateralError("not_found", f"no CCTV submittal {submittal_id}")
    return found


def of_plumber(user: User) -> list[CctvSubmittal]:
    return list(db.session.scalars(select(CctvSubmittal).filter_by(plumber_id=user.id)
                                   .order_by(CctvSubmittal.id.desc())))


def waiting() -> list[CctvSubmittal]:
    """Submittals whose video arrived, waiting for review, oldest first."""
    return list(db.session.scalars(select(CctvSubmittal).filter_by(state="received")
                                   .order_by(CctvSubmittal.received_at, CctvSubmittal.id)))


def observations_of(submittal: CctvSubmittal) -> list[CctvObservation]:
    return list(db.session.scalars(select(CctvObservation).filter_by(submittal_id=submittal.id)
                                   .order_by(CctvObservation.position)))


def certificate_of(submittal: CctvSubmittal) -> CctvCertificate | None:
    return db.session.scalar(select(CctvCertificate).filter_by(submittal_id=submittal.id))


def parcels_of(submittals: list[CctvSubmittal]) -> dict[int, Parcel]:
    ids = sorted({s.parcel_id for s in submittals})
    return {p.id: p for p in db.session.scalars(select(Parcel).where(Parcel.id.in_(ids)))} if ids else {}


def plumber_of(submittal: CctvSubmittal) -> tuple[User, str, str]:
    """(the plumber's login, their license number, their email)."""
    user = db.session.get_one(User, submittal.plumber_id)
    lic = plumbers.license_of(user)
    return user, lic.license_number, lic.email


def permit_number(submittal: CctvSubmittal) -> str | None:
    permit = db.session.get(Permit, submittal.permit_id) if submittal.permit_id else None
    return permit.number if permit is not None else None


# ------------------------------------------------------------------ the video


def check_video(path, owner_id: str, submittal_id: str | None) -> tuple[CctvSubmittal, str]:
    """Before the bytes are kept: the submittal is the uploader's and waits for its video,
    and the bytes are a video. Returns the submittal and the video's media type.

    Raises:
        LateralError: ``not_found`` (not the uploader's), ``not_open`` (it has its video),
            ``not_a_video``.
    """
    text = (submittal_id or "").strip()
    found = db.session.get(CctvSubmittal, int(text)) if text.isascii() and text.isdigit() and len(text) < 10 else None
    if found is None or str(found.plumber_id) != str(owner_id):
        raise LateralError("not_found", "no such submittal: name it in the upload's metadata as submittal_id")
    if found.state != "awaiting_video":
        raise LateralError("not_open", "this submittal has its video already")
    try:
        kind = media_type(path)
    except NotAVideo as exc:
        raise LateralError("not_a_video", f"the file is not a video the city takes (MP4, QuickTime or WebM): {exc}",
                           {"accepted": ["video/mp4", "video/quicktime", "video/webm"]}) from None
    return found, kind


def attach_video(submittal_id: int, owner_id: str, sha256: str, kind: str, size: int, filename: str | None) -> \
        CctvSubmittal:
    """The video is stored (by its SHA-256): the submittal is received, for review."""
    found = db.session.get(CctvSubmittal, submittal_id)
    if found is None or str(found.plumber_id) != str(owner_id):
        raise LateralError("not_found", "no such submittal")
    if found.state != "awaiting_video":
        raise LateralError("not_open", "this submittal has its video already")
    name = re.sub(r"[\x00-\x1f/\\]", "_", (filename or "").strip())[:200] or "video"
    found.video_sha256, found.video_media_type, found.video_size, found.video_filename = sha256, kind, size, name
    found.state, found.received_at = "received", utcnow()
    db.session.flush()
    audit.record("receive_cctv_video", "cctv_submittal", found.id, {"state": "awaiting_video"},
                 {"state": "received", "sha256": sha256, "media_type": kind, "size": size},
                 db.session.get(User, found.plumber_id))
    return found


# ------------------------------------------------------------------ the decision


def _open_for_review(submittal_id: int) -> CctvSubmittal:
    found = get(submittal_id)
    if found.state in DECIDED:
        raise LateralError("not_open", f"this submittal was decided already ({found.state})")
    if found.state != "received":
        raise LateralError("not_open", "this submittal's video has not arrived yet")
    return found


def _reason(text: str | None, required: bool) -> str | None:
    value = (text or "").strip()
    if required and not value:
        raise _refuse("reason", "write the reason (recorded)")
    if len(value) > MAX_NOTE:
        raise _refuse("reason", f"the reason: at most {MAX_NOTE} characters")
    return value or None


def _decided(found: CctvSubmittal, state: str, note: str | None, actor) -> None:
    found.state, found.review_note = state, note
    found.reviewed_by_id, found.reviewed_at = getattr(actor, "id", None), utcnow()


def certify(submittal_id: int, note: str | None, actor) -> CctvCertificate:
    """Issue the certificate of compliance for the submittal's lateral, dated the city's today.

    Raises:
        LateralError: ``not_found``, ``not_open`` (decided already, or no video yet).
    """
    found = _open_for_review(submittal_id)
    reason = _reason(note, required=False)
    parcel = db.session.get_one(Parcel, found.parcel_id)
    permit = db.session.get(Permit, found.permit_id) if found.permit_id else None
    lateral_id = (permit.lateral_id if permit is not None and permit.lateral_id else
                  db.session.scalar(select(Lateral.id).filter_by(parcel_id=parcel.id).order_by(Lateral.id).limit(1)))
    today = city.current().today()
    _decided(found, "certified", reason, actor)
    db.session.flush()
    pdf = certificate_pdf(found, parcel, permit, actor, today)
    certificate = CctvCertificate(submittal_id=found.id, parcel_id=parcel.id, lateral_id=lateral_id,
                                  permit_id=found.permit_id, issued_by_id=actor.id, issued_on=today, pdf=pdf,
                                  sha256=hashlib.sha256(pdf).hexdigest())
    db.session.add(certificate)
    db.session.flush()
    audit.record("certify_cctv", "cctv_submittal", found.id, {"state": "received"},
                 {"state": "certified", "certificate_id": certificate.id, "sha256": certificate.sha256,
                  "parcel_id": parcel.id, "lateral_id": lateral_id, "permit_id": found.permit_id,
                  "issued_on": today.isoformat()}, actor)
    return certificate


def certificate_pdf(found: CctvSubmittal, parcel: Parcel, permit: Permit | None, actor, on: date) -> bytes:
    """The certificate: what was inspected, by whom, what it showed, who certifies it and when."""
    m = city.current().rulebook.municipality
    user, license_number, _ = plumber_of(found)
    observations = observations_of(found)
    seen = "; ".join(f"{lacp.describe(o.code)} at {o.distance_ft:.1f} ft, {o.clock} o'clock, grade {o.grade}"
                     for o in observations)
    rows = [("Certificate number", f"CCTV-{found.id}"),
            ("Property", f"{parcel.site_address or ''}, parcel {parcel.parcel_number}".lstrip(", ")),
            ("Building sewer (lateral)", "from the cleanout to the public sewer main"),
            ("Camera inspection", f"{long_date(found.inspected_on)} by {user.display_name or user.username}, "
                                  f"Wisconsin license {license_number}"),
            ("Video", f"{found.video_filename} ({found.video_media_type}), SHA-256 {found.video_sha256}"),
            ("Observations recorded", seen or "none")]
    if permit is not None:
        rows.insert(2, ("Permit", permit.number or f"application {permit.id}"))
    rows.append(("Reviewed and certified", f"{long_date(on)} by {actor.display_name or actor.username}"))
    if found.review_note:
        rows.append(("Reviewer's note", found.review_note))
    closing = [f"The {m['utility']} reviewed the camera inspection of this building sewer and finds it in compliance "
               "with § 315-12B and C of the sewer use ordinance: maintained free of defective conditions and in "
               "good repair.",
               f"Questions: call the {m['utility']} at {m['phone']}."]
    return render_receipt("Certificate of compliance: building sewer", [m["utility"]], rows, closing)


def order_repair(submittal_id: int, observation_ids: list[int], note: str, actor) -> Notice:
    """Draft the repair notice: each observation picked becomes an open ``LATERAL-REPAIR``
    violation of the parcel, and the notices domain drafts them (one notice per parcel and
    kind) for the superintendent to approve and the clerk to mail as any other.

    Raises:
        LateralError: ``not_found``, ``not_open``, ``invalid_fields`` (no observation
            picked, or one of another submittal; no reason).
    """
    found = _open_for_review(submittal_id)
    reason = _reason(note, required=True)
    mine = {o.id: o for o in observations_of(found)}
    picked = sorted(set(observation_ids))
    if not picked or any(i not in mine for i in picked):
        raise _refuse("observation_ids", "pick the observations the repair notice cites")
    user, license_number, _ = plumber_of(found)
    who = f"{user.display_name or user.username} (license {license_number})"
    for i in picked:
        o = mine[i]
        text = (f"A camera inspection of the building sewer on {long_date(found.inspected_on)} by {who} recorded "
                f"{lacp.describe(o.code)}, grade {o.grade}, {o.distance_ft:.1f} feet from the cleanout at "
                f"{o.clock} o'clock" + (f": {o.remark}" if o.remark else ""))
        violation = Violation(rule_id=REPAIR_KIND, section=REPAIR_SECTION, key=f"{REPAIR_KIND}:cctv:{found.id}:{o.id}",
                              status="open", source="inspection", subject_type="parcel", subject_id=found.parcel_id,
                              subjects=[["parcel", found.parcel_id]], parcel_id=found.parcel_id, message=text)
        db.session.add(violation)
        db.session.flush()
        audit.record("open", "violation", violation.id, None,
                     {"rule_id": REPAIR_KIND, "key": violation.key, "cctv_submittal": found.id}, actor)
    [notice] = [n for n in draft_notices(actor, parcel_ids=[found.parcel_id], kinds=[REPAIR_KIND])]
    _decided(found, "repair", reason, actor)
    found.repair_notice_id = notice.id
    db.session.flush()
    audit.record("order_cctv_repair", "cctv_submittal", found.id, {"state": "received"},
                 {"state": "repair", "notice_id": notice.id, "observation_ids": picked, "reason": reason}, actor)
    return notice
