"""A verified plumber's permits on the portal: the application, their own permits only,
and the inspection before backfill they ask for.

* :func:`apply_for_permit` takes an application through the permits domain's own workflow
  (:func:`server.permits.workflow.apply`: state ``applied``, the plumber as applicant and
  licensed plumber, audited as theirs), with the owner's written consent attached as a file
  (PDF, JPEG or PNG, checked as the owners' files are) when the plumber is not the owner.
  Every refusal comes before anything is written.
* :func:`permit_of` opens one of the plumber's permits; any other id is ``not_found``,
  whether it exists or not.
* :func:`request_inspection` asks for the inspection (and, after a failed one, the
  reinspection) through :func:`server.permits.inspections.request`.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal

from sqlalchemy import select

from server.core import city, settings
from server.core.accounts.models import User
from server.core.audit import trail as audit
from server.core.errors import LateralError
from server.core.extensions import db
from server.core.models import as_utc
from server.field.models import Assignment
from server.network.models import Parcel
from server.permits import attachments, inspections, record, workflow
from server.permits.models import CONNECTION_KINDS, KINDS, Permit, PermitAttachment
from server.portal import plumbers
from server.portal.i18n import _
from server.portal.uploads import Upload, checked_type

#: How the owner's consent sent online is described among the permit's scanned forms.
CONSENT = "The owner's written consent, sent online by the plumber"

#: What an owner's consent may be: a scan (PDF) or a photo of the signed page.
CONSENT_TYPES = ("application/pdf", "image/jpeg", "image/png")
MAX_TEXT = 4000


@dataclass(frozen=True)
class Application:
    """A plumber's application as the form or the API sends it."""

    parcel_number: str
    kind: str
    connection_kind: str
    connection_size_in: float
    wastes: str
    plumber_is_owner: bool
    owner_name: str | None = None
    consent_signed_on: date | None = None
    consent: Upload | None = None
    work_description: str | None = None
    inside_limits: bool = True
    connected_by_cutoff: bool = False


def _field(field: str, message: str) -> LateralError:
    return LateralError("invalid_fields", message, {"fields": {field: [message]}})


def _may_apply(user: User):
    allowed, why = plumbers.may_apply(user)
    found = plumbers.license_of(user)
    if not allowed:
        if found.verified_at is None:
            raise LateralError("forbidden", why, {"your_role": user.role})
        raise LateralError("license_expired", why, {"expires_on": found.expires_on.isoformat()})
    return found


def fees() -> dict[str, dict]:
    """Each kind of permit's fees from the rulebook (§ 315-11H), item by item, and the total."""
    out = {}
    for kind in KINDS:
        items = workflow.fees_for(kind)
        out[kind] = {"items": {name: str(v) for name, v in items.items()},
                     "total": str(sum(items.values(), Decimal("0.00")))}
    return out


def connected_by() -> str:
    """The day a parcel outside the limits must have been connected on (§ 315-11E(2)), in words."""
    day = workflow.rules().get("outside_limits_connected_by")
    return f"{day:%B} {day.day}, {day.year}" if isinstance(day, date) else str(day or "")


def connection_sizes() -> list[float]:
    return [float(s) for s in workflow.rules().get("connection_sizes_in", [4.0, 6.0, 8.0])]


def _check(a: Application) -> tuple[int, str | None]:
    """The parcel's id and the consent's checked type; refusals before anything is written."""
    parcel_id = db.session.scalar(select(Parcel.id).where(Parcel.parcel_number == (a.parcel_number or "").strip()))
    if parcel_id is None:
        raise LateralError("unknown_parcel", _("no parcel has this number; type it as on the tax bill"),
                           {"fields": {"parcel_number": ["no parcel with this number"]}})
    if a.kind not in KINDS:
        raise _field("kind", _("choose the kind of work"))
    if a.connection_kind not in CONNECTION_KINDS:
        raise _field("connection_kind", _("choose gravity or pressure"))
    if a.connection_size_in not in connection_sizes():
        raise _field("connection_size_in", _("choose the connection's size"))
    if not (a.wastes or "").strip() or len(a.wastes) > MAX_TEXT:
        raise _field("wastes", _("say what wastes the connection will carry"))
    if a.work_description and len(a.work_description) > MAX_TEXT:
        raise _field("work_description", _("at most %(most)s characters", most=MAX_TEXT))
    if a.plumber_is_owner:
        return parcel_id, None
    if a.consent is None or not a.consent.data or not (a.owner_name or "").strip() or a.consent_signed_on is None:
        raise LateralError("owner_consent_missing",
                           _("you are not the owner: attach the owner's signed consent (§ 315-11E(1)), with "
                             "the owner's name and the day they signed it"),
                           {"fields": {"consent": ["the owner's signed consent, as a PDF, JPEG or PNG"],
                                       "owner_name": ["the owner who signed"],
                                       "consent_signed_on": ["the day they signed"]}})
    if a.consent_signed_on > city.current().today():
        raise _field("consent_signed_on", _("the day the owner signed cannot be in the future"))
    with tempfile.TemporaryDirectory(prefix="lateral-portal-") as folder:
        media_type = checked_type(a.consent, folder)
    if media_type not in CONSENT_TYPES:
        raise LateralError("unsupported_format",
                           _("%(file)s: send the consent as a PDF, JPEG or PNG", file=a.consent.filename),
                           {"file": a.consent.filename})
    return parcel_id, media_type


def apply_for_permit(user: User, a: Application) -> Permit:
    """The plumber's application, through the permits workflow, as theirs.

    Raises:
        LateralError: ``forbidden`` (not verified), ``license_expired``, ``unknown_parcel``,
            ``invalid_fields``, ``owner_consent_missing``, ``unsupported_format``,
            ``too_large``, the workflow's own (``outside_limits``); nothing is written.
    """
    lic = _may_apply(user)
    parcel_id, media_type = _check(a)
    permit = workflow.apply(
        user, parcel_id=parcel_id, kind=a.kind, applicant_name=user.display_name or user.username,
        applicant_phone=lic.phone, applicant_email=lic.email, applicant_is_owner=a.plumber_is_owner,
        owner_consent_by=(a.owner_name or "").strip()[:200] or None, owner_consent_on=a.consent_signed_on,
        plumber_name=user.display_name or user.username, plumber_license=lic.license_number,
        plumber_license_expires=lic.expires_on, wastes=a.wastes.strip(), connection_kind=a.connection_kind,
        connection_size_in=a.connection_size_in, work_description=(a.work_description or "").strip() or None,
        inside_limits=a.inside_limits, connected_by_cutoff=a.connected_by_cutoff, plumber_user_id=user.id)
    extra = {}
    if media_type and a.consent is not None:
        # Kept with the permit's scanned forms, where the desk's attachments are.
        filename = os.path.basename(a.consent.filename)[:200] or "consent"
        [kept] = attachments.attach(permit, [attachments.Upload(filename, a.consent.data)], user,
                                    description=CONSENT)
        extra = {"owner_consent_sha256": kept.sha256}
    audit.record("portal_permit_application", "permit", permit.id, None,
                 {"via": "portal", "number": permit.number, "license_number": lic.license_number, **extra}, user)
    return permit


def permits_of(user: User) -> list[tuple[Permit, Parcel]]:
    """The plumber's own permits, newest first, each with its parcel."""
    rows = db.session.execute(select(Permit, Parcel).join(Parcel, Parcel.id == Permit.parcel_id)
                              .where(Permit.plumber_user_id == user.id).order_by(Permit.id.desc()))
    return [(p, parcel) for p, parcel in rows]


def permit_of(user: User, permit_id: int) -> Permit:
    """One of the plumber's permits. Another plumber's, and one that does not exist, are
    the same ``not_found``: the portal never says which ids exist."""
    permit = db.session.get(Permit, permit_id)
    if permit is None or permit.plumber_user_id != user.id:
        raise LateralError("not_found", "no such permit among yours")
    return permit


def may_request_inspection(permit: Permit) -> bool:
    return (permit.state, "request_inspection") in workflow.TRANSITIONS


def request_inspection(user: User, permit_id: int, earliest: datetime | None, contact: str) -> Permit:
    """Ask for the inspection before backfill, or the reinspection after a failed one.

    Raises:
        LateralError: ``not_found`` (not theirs), ``invalid_transition`` (not scheduled nor
            failed), ``invalid_fields``; nothing is written.
    """
    permit = permit_of(user, permit_id)
    if not may_request_inspection(permit):
        raise LateralError("invalid_transition",
                           f"permit {permit.number} is {permit.state.replace('_', ' ')}: you can ask for the "
                           "inspection once the clerk has set the day of the work, and again after a failed "
                           "inspection",
                           {"state": permit.state, "event": "request_inspection",
                            "allowed_events": []})
    text = (contact or "").strip()
    if not text or len(text) > 200:
        raise _field("contact", _("who the inspector calls on site, and the phone number"))
    if earliest is None or earliest.tzinfo is None:
        raise _field("earliest", _("the earliest day and time the trench is ready"))
    if city.current().day_of(earliest) < city.current().today():
        raise _field("earliest", _("the earliest time cannot be in the past"))
    return inspections.request(permit, user, earliest=earliest, contact=text)


def view(permit: Permit) -> dict:
    """A permit as its plumber reads it over the API: the state, the fees due or paid, the
    work, the inspection asked for and scheduled, and the results with their corrections."""
    parcel = db.session.get_one(Parcel, permit.parcel_id)
    scheduled = scheduled_on(permit)
    plain = lambda v: v.isoformat() if v is not None else None  # noqa: E731
    return {
        "id": permit.id, "number": permit.number, "kind": permit.kind, "state": permit.state,
        "parcel_number": parcel.parcel_number, "site_address": parcel.site_address,
        "applied_on": plain(permit.applied_on), "connection_kind": permit.connection_kind,
        "connection_size_in": permit.connection_size_in, "wastes": permit.wastes,
        "fees": permit.fees, "fee_total": str(permit.fee_total), "paid": permit.paid, "paid_on": plain(permit.paid_on),
        "rejected_reason": permit.rejected_reason, "issued_on": plain(permit.issued_on),
        "expires_on": plain(permit.expires_on), "work_on": plain(permit.work_on),
        "inspection": {"requested_on": plain(permit.inspection_requested_on),
                       "earliest": plain(in_city(permit.inspection_earliest)), "contact": permit.inspection_contact,
                       "scheduled_on": plain(scheduled)},
        "may_request_inspection": may_request_inspection(permit),
        "results": results(permit),
    }


def in_city(moment: datetime | None) -> datetime | None:
    """A stored time in the city's zone, with its offset (SQLite gives it back naive, in UTC)."""
    return as_utc(moment).astimezone(city.current().time_zone) if moment is not None else None


def consent_file(permit: Permit) -> PermitAttachment | None:
    """The owner's consent the plumber attached online, among the permit's scanned forms."""
    return db.session.scalar(select(PermitAttachment).where(PermitAttachment.permit_id == permit.id,
                                                            PermitAttachment.description == CONSENT)
                             .order_by(PermitAttachment.id))


def results(permit: Permit) -> list[dict]:
    """The permit's inspection results, first to last: the day, passed or failed, and
    each correction with its section and measured value, as the permits domain recorded them."""
    out = []
    for h in record.history(permit.id):
        if h["event"] in ("pass", "fail"):
            out.append({"on": h["on"], "passed": h["event"] == "pass",
                        "corrections": list((h["data"] or {}).get("corrections") or [])})
    return out


def scheduled_on(permit: Permit) -> date | None:
    """The day an inspector is to come, once the inspection is assigned."""
    if permit.state != "inspection_requested" or permit.assignment_id is None:
        return None
    assignment = db.session.get(Assignment, permit.assignment_id)
    return assignment.due_on if assignment is not None else None


# ------------------------------------------------------------------ reading forms


def _date(raw: str, field: str) -> date | None:
    raw = (raw or "").strip()
    if not raw:
        return None
    try:
        return date.fromisoformat(raw)
    except ValueError:
        raise LateralError("invalid_fields", _("type the day as on a calendar"),
                           {"fields": {field: ["a date"]}}) from None


def application_from(form, files) -> Application:
    """An application from a form's fields and files (the page's and the API's)."""
    try:
        size = float(form.get("connection_size_in", ""))
    except ValueError:
        raise LateralError("invalid_fields", _("choose the connection's size"),
                           {"fields": {"connection_size_in": ["a size in inches"]}}) from None
    consent = files.get("consent")
    upload = None
    if consent is not None and consent.filename:
        upload = Upload(consent.filename, consent.read(settings.current().portal_file_max_bytes + 1))
    return Application(
        parcel_number=form.get("parcel_number", "")[:64], kind=form.get("kind", ""),
        connection_kind=form.get("connection_kind", "gravity"), connection_size_in=size,
        wastes=form.get("wastes", ""), plumber_is_owner=form.get("plumber_is_owner") == "yes",
        owner_name=form.get("owner_name", "")[:200] or None,
        consent_signed_on=_date(form.get("consent_signed_on", ""), "consent_signed_on"), consent=upload,
        work_description=form.get("work_description") or None, inside_limits=form.get("inside_limits") != "no",
        connected_by_cutoff=form.get("connected_by_cutoff") == "yes")


def earliest_from(raw: str) -> datetime | None:
    """A time typed in the city's zone (a browser's ``datetime-local``), or one with its offset."""
    raw = (raw or "").strip()
    if not raw:
        return None
    try:
        moment = datetime.fromisoformat(raw)
    except ValueError:
        raise LateralError("invalid_fields", _("type the day and time the trench is ready"),
                           {"fields": {"earliest": ["a day and time"]}}) from None
    return moment if moment.tzinfo else moment.replace(tzinfo=city.current().time_zone)
